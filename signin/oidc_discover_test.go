package signin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOIDCDiscoveryHangingIssuer (docs/deploy.md#institutional-sign-in):
// fifty anonymous sign-ins against an issuer that never answers do not
// queue behind one lock: one discovery request is made, bounded by the
// discovery time-out, its failure is shared and then cached, so the next
// sign-in is refused without asking the issuer again.
func TestOIDCDiscoveryHangingIssuer(t *testing.T) {
	var asked atomic.Int32
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	o := New(nil, nil).NewOIDC(OIDCConfig{Issuer: hang.URL, ClientID: "c", ClientSecret: "s", Name: "Uni"}, nil)
	o.discoverTimeout = 300 * time.Millisecond
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			// A sign-in that waited behind forty-nine others' discoveries
			// would outlive this context.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, _, err := o.Begin(ctx, "http://lab.example/admin/oidc/callback")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil {
			t.Fatal("a sign-in began with an issuer that never answered")
		}
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the issuer was asked %d times by 50 sign-ins, want once", n)
	}
	if _, _, err := o.Begin(context.Background(), "http://lab.example/admin/oidc/callback"); err == nil || asked.Load() != 1 {
		t.Fatalf("after a failure: %v, issuer asked %d times; want the cached failure", err, asked.Load())
	}
}
