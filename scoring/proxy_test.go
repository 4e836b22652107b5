package scoring

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxyRecorder is a forward proxy that answers as the model itself and
// records the hosts it was asked for.
type proxyRecorder struct {
	mu    sync.Mutex
	hosts []string
	model *fakeModel
}

func (p *proxyRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if r.URL.IsAbs() {
		p.hosts = append(p.hosts, r.URL.Host)
	}
	p.mu.Unlock()
	p.model.serve(w, r)
}

func (p *proxyRecorder) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hosts...)
}

func proxyEnv(proxy string) func(string) string {
	return func(k string) string {
		if k == "HTTP_PROXY" {
			return proxy
		}
		return ""
	}
}

// TestClientUsesProxyFromEnvironment: with HTTP_PROXY set, prompts and the
// probe go through the proxy (the endpoint, a documentation address, is
// reachable only through it), even with --public-endpoints-only and a
// proxy on loopback; the endpoint's own address is still checked.
func TestClientUsesProxyFromEnvironment(t *testing.T) {
	pr := &proxyRecorder{model: constP(0.75)}
	proxy := httptest.NewServer(pr)
	defer proxy.Close()
	const base = "http://203.0.113.7:8000"
	c, err := NewClient(Config{BaseURLs: []string{base}, Model: "m", MaxRetries: 0}, proxyEnv(proxy.URL), WithPublicOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	if st := c.Probe(context.Background(), 5*time.Second); st[0].Error != "" {
		t.Fatalf("probe through the proxy: %s", st[0].Error)
	}
	a, err := c.Score(context.Background(), onePrompt)
	if err != nil {
		t.Fatalf("score through the proxy: %v", err)
	}
	if a.PTrue < 0.7 || a.PTrue > 0.8 {
		t.Errorf("p(true) %v through the proxy, want 0.75", a.PTrue)
	}
	if got := pr.asked(); len(got) == 0 || got[0] != "203.0.113.7:8000" {
		t.Fatalf("the proxy was asked for %v, want the endpoint 203.0.113.7:8000", got)
	}

	// The SSRF guard still holds for proxied requests: with public-only a
	// private address is refused before the proxy sees it (metadata
	// addresses are refused by the configuration already).
	for _, bad := range []string{"http://10.1.2.3:8000"} {
		c, err := NewClient(Config{BaseURLs: []string{bad}, Model: "m", MaxRetries: 0}, proxyEnv(proxy.URL), WithPublicOnly(true), WithBackoff(time.Millisecond, time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		before := len(pr.asked())
		if st := c.Probe(context.Background(), 5*time.Second); st[0].Error == "" {
			t.Errorf("probe of %s through the proxy was not refused", bad)
		}
		if _, err := c.Score(context.Background(), onePrompt); err == nil || !strings.Contains(err.Error(), "address") {
			t.Errorf("score of %s through the proxy: %v; want the address refused", bad, err)
		}
		if n := len(pr.asked()); n != before {
			t.Errorf("the proxy was asked for %s", bad)
		}
	}
}
