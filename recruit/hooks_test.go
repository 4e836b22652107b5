package recruit

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
)

// TestHookReplayAfterRestart (docs/prolific.md#webhooks):
// the deliveries seen are kept in the database for as long as their
// signature is accepted, so a captured delivery replayed under a new
// X-Event-ID after a restart — a new service over the same database file
// — is not processed again: no read of the API, no second audit entry. A
// delivery refused (Prolific unreachable) is not remembered, so its
// redelivery is processed; rows past their window are pruned.
func TestHookReplayAfterRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hooks.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := prolifictest.SeedCrowdStudy(ctx, db, prolificStud)
	if err != nil {
		t.Fatal(err)
	}
	srv := prolifictest.NewServer(testToken)
	defer srv.Close()
	srv.AddFixtureSubmissions(prolificStud)
	srv.SetSubmissionStatus("sub3", "RETURNED")
	if err := db.LinkProlific(ctx, cs.ID, prolificStud); err != nil {
		t.Fatal(err)
	}
	const secret = "workspace-hook-secret"
	env := map[string]string{prolific.TokenEnv: testToken, prolific.APIEnv: srv.URL, prolific.WebhookSecretEnv: secret}
	getenv := func(k string) string { return env[k] }
	now := time.Now()
	body := []byte(`{"resource_id":"sub3","event_type":"submission.status.change","participant_id":"` + prolifictest.PID(3) + `","status":"RETURNED"}`)
	ts := fmt.Sprint(now.Unix())
	delivery := func(id string) HookDelivery {
		return HookDelivery{EventID: id, Timestamp: ts, Signature: prolific.SignWebhook(secret, ts, body), Body: body}
	}
	audits := func(db *store.DB) int {
		log, err := db.AuditLog(ctx, cs.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, a := range log {
			if a.Actor == HookActor {
				n++
			}
		}
		return n
	}

	p := New(db, getenv)
	p.SetClock(func() time.Time { return now })
	if res, err := p.ReceiveHook(ctx, delivery("evt-1")); err != nil || res.Duplicate || !res.Freed {
		t.Fatalf("the first delivery: %+v %v", res, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// The restart: a new database handle and a new service, a minute on.
	db2, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	p2 := New(db2, getenv)
	p2.SetClock(func() time.Time { return now.Add(time.Minute) })
	res, err := p2.ReceiveHook(ctx, delivery("evt-replayed"))
	if err != nil || !res.Duplicate {
		t.Fatalf("the delivery replayed under a new id after a restart: %+v %v, want a duplicate", res, err)
	}
	if n := srv.Calls("GET submission"); n != 1 {
		t.Errorf("the replayed delivery was read back: %d reads, want 1", n)
	}
	if n := audits(db2); n != 1 {
		t.Errorf("%d audit entries by the webhook, want 1", n)
	}

	// A delivery refused because Prolific could not be read is not
	// remembered: delivered again, it is processed.
	other := []byte(`{"resource_id":"sub1","event_type":"submission.status.change","participant_id":"` + prolifictest.PID(1) + `","status":"APPROVED"}`)
	env[prolific.APIEnv] = "http://127.0.0.1:1"
	d := HookDelivery{EventID: "evt-2", Timestamp: ts, Signature: prolific.SignWebhook(secret, ts, other), Body: other}
	if _, err := p2.ReceiveHook(ctx, d); err == nil {
		t.Fatal("a delivery Prolific could not confirm was accepted")
	}
	env[prolific.APIEnv] = srv.URL
	p3 := New(db2, getenv)
	p3.SetClock(func() time.Time { return now.Add(time.Minute) })
	if res, err := p3.ReceiveHook(ctx, d); err != nil || res.Duplicate {
		t.Fatalf("the redelivery of a refused delivery: %+v %v", res, err)
	}

	// Past the window the rows are pruned: a delivery recorded after it
	// leaves only itself.
	later := now.Add(prolific.WebhookWindow + 2*time.Minute)
	p3.SetClock(func() time.Time { return later })
	lts := fmt.Sprint(later.Unix())
	d = HookDelivery{EventID: "evt-3", Timestamp: lts, Signature: prolific.SignWebhook(secret, lts, other), Body: other}
	if _, err := p3.ReceiveHook(ctx, d); err != nil {
		t.Fatal(err)
	}
	if n, err := db2.HookDeliveriesKept(ctx); err != nil || n != 1 {
		t.Errorf("deliveries kept past their window: %d %v, want 1", n, err)
	}
}
