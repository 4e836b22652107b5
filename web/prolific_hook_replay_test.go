package web

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/recruit"
)

// TestProlificWebhookReplayUnderNewEventIDs (docs/prolific.md#webhooks): a
// captured delivery replayed within its five minutes under new X-Event-IDs
// — which the signature does not cover — is processed once: one read of
// the API, one audit entry. Distinct signed deliveries about one resource
// are bounded per minute, answered 429 beyond.
func TestProlificWebhookReplayUnderNewEventIDs(t *testing.T) {
	e, fake, cs, _ := hookEnv(t)
	target := e.srv.URL + "/webhooks/prolific"
	fake.SetSubmissionStatus("sub3", "RETURNED")
	body := []byte(`{"resource_id":"sub3","event_type":"submission.status.change","participant_id":"` + prolifictest.PID(3) + `","status":"RETURNED"}`)
	ts := fmt.Sprint(time.Now().Unix())
	sig := prolific.SignWebhook(hookSecret, ts, body)
	for i := range 5 {
		if code, err := prolifictest.DeliverSigned(target, fmt.Sprint("evt-replay-", i), ts, sig, body); err != nil || code != http.StatusOK {
			t.Fatalf("delivery %d: %d %v", i, code, err)
		}
	}
	if n := fake.Calls("GET submission"); n != 1 {
		t.Errorf("a delivery replayed under new event ids was read back %d times, want 1", n)
	}
	if a := hookAudits(t, e, cs.ID); len(a) != 1 {
		t.Errorf("audit entries of one delivery replayed: %q", a)
	}
	// Distinct deliveries about one submission (signed at other seconds of
	// the window): the work per minute is bounded.
	refused := 0
	for i := range hookBurst + 10 {
		at := time.Now().Add(-time.Duration(i+1) * time.Second)
		code, err := prolifictest.Deliver(target, hookSecret, fmt.Sprint("evt-burst-", i), at, body)
		if err != nil {
			t.Fatal(err)
		}
		if code == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 || fake.Calls("GET submission") > hookBurst+1 {
		t.Errorf("%d deliveries about one submission in a minute: %d refused, %d reads", hookBurst+10, refused, fake.Calls("GET submission"))
	}
}

const hookBurst = recruit.HookPerMinute
