package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
)

const hookSecret = "workspace-hook-secret-for-tests"

// hookEnv is prolificEnv with the webhook secret set and the study linked.
func hookEnv(t *testing.T) (*testEnv, *prolifictest.Server, *domain.Study, *client) {
	t.Helper()
	e, fake, cs, c := prolificEnv(t, prolific.WebhookSecretEnv, hookSecret)
	fake.SetSubmissionStatus("sub3", "ACTIVE")
	c.post(fmt.Sprintf("/admin/studies/%d/prolific/link", cs.ID), url.Values{"prolific_study_id": {webProlificStudy}}).mustStatus(t, http.StatusSeeOther)
	return e, fake, cs, c
}

// status3 is participant 3's status here.
func status3(t *testing.T, e *testEnv, studyID int64) string {
	t.Helper()
	ctx := context.Background()
	_, set, err := e.db.CrowdStudy(ctx, studyID)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := e.db.CrowdParticipants(ctx, studyID, set)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if strings.EqualFold(p.PID, prolifictest.PID(3)) {
			return p.Status
		}
	}
	t.Fatal("participant 3 is missing")
	return ""
}

func hookAudits(t *testing.T, e *testEnv, studyID int64) []string {
	t.Helper()
	log, err := e.db.AuditLog(context.Background(), studyID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range log {
		if strings.Contains(a.Actor, "webhook") {
			out = append(out, a.Detail)
		}
	}
	return out
}

// TestProlificWebhookFreesPlaceOnce: a signed delivery through the real
// HTTP stack frees a returned participant's place with no sync; the same
// event delivered again is processed once; a tampered, stale, unsigned or
// oversized one is refused and changes nothing.
func TestProlificWebhookFreesPlaceOnce(t *testing.T) {
	e, fake, cs, c := hookEnv(t)
	target := e.srv.URL + "/webhooks/prolific"
	if got := status3(t, e, cs.ID); got != store.CrowdActive {
		t.Fatalf("participant 3 starts %s", got)
	}
	fake.SetSubmissionStatus("sub3", "RETURNED")
	body := []byte(`{"resource_id":"sub3","event_type":"submission.status.change","participant_id":"` + prolifictest.PID(3) + `","status":"RETURNED"}`)

	// Refused deliveries change nothing and read nothing back.
	tampered := []byte(strings.Replace(string(body), "sub3", "sub1", 1))
	ts := fmt.Sprint(time.Now().Unix())
	for name, send := range map[string]func() (int, error){
		"tampered": func() (int, error) {
			return prolifictest.DeliverSigned(target, "evt-1", ts, prolific.SignWebhook(hookSecret, ts, body), tampered)
		},
		"wrong secret": func() (int, error) { return prolifictest.Deliver(target, "not-the-secret", "evt-1", time.Now(), body) },
		"unsigned":     func() (int, error) { return prolifictest.DeliverSigned(target, "evt-1", ts, "", body) },
		"stale": func() (int, error) {
			return prolifictest.Deliver(target, hookSecret, "evt-1", time.Now().Add(-6*time.Minute), body)
		},
		"future": func() (int, error) {
			return prolifictest.Deliver(target, hookSecret, "evt-1", time.Now().Add(6*time.Minute), body)
		},
	} {
		if code, err := send(); err != nil || code != http.StatusUnauthorized {
			t.Errorf("%s delivery: %d %v, want 401", name, code, err)
		}
	}
	big := []byte(`{"event_type":"submission.status.change","resource_id":"sub3","pad":"` + strings.Repeat("x", prolific.MaxWebhookBody) + `"}`)
	if code, err := prolifictest.Deliver(target, hookSecret, "evt-1", time.Now(), big); err != nil || code != http.StatusBadRequest {
		t.Errorf("oversized delivery: %d %v, want 400", code, err)
	}
	if fake.Calls("GET submission") != 0 || status3(t, e, cs.ID) != store.CrowdActive || len(hookAudits(t, e, cs.ID)) != 0 {
		t.Fatal("a refused delivery changed something or was read back")
	}

	// The signed delivery frees the place at once, with no sync.
	if code, err := prolifictest.Deliver(target, hookSecret, "evt-1", time.Now(), body); err != nil || code != http.StatusOK {
		t.Fatalf("signed delivery: %d %v", code, err)
	}
	if got := status3(t, e, cs.ID); got != store.CrowdMovedOn {
		t.Fatalf("participant 3 is %s after the delivery, want moved on", got)
	}
	if fake.Calls("GET submissions") != 0 || fake.Calls("GET submission") != 1 {
		t.Fatalf("the delivery was not read back alone: %d syncs, %d reads", fake.Calls("GET submissions"), fake.Calls("GET submission"))
	}
	// Delivered again (Prolific delivers at least once): processed once.
	for range 3 {
		if code, err := prolifictest.Deliver(target, hookSecret, "evt-1", time.Now(), body); err != nil || code != http.StatusOK {
			t.Fatalf("replayed delivery: %d %v", code, err)
		}
	}
	if n := fake.Calls("GET submission"); n != 1 {
		t.Errorf("a replayed delivery was read back again (%d reads)", n)
	}
	if a := hookAudits(t, e, cs.ID); len(a) != 1 || !strings.Contains(a[0], "place freed") {
		t.Errorf("audit entries of deliveries: %q", a)
	}

	// A delivery is a hint: what Prolific says when read back is applied,
	// not what the delivery claims.
	lie := []byte(`{"resource_id":"sub1","event_type":"submission.status.change","participant_id":"` + prolifictest.PID(1) + `","status":"RETURNED"}`)
	if code, _ := prolifictest.Deliver(target, hookSecret, "evt-2", time.Now(), lie); code != http.StatusOK {
		t.Fatalf("delivery evt-2: %d", code)
	}
	base := fmt.Sprintf("/admin/studies/%d/prolific", cs.ID)
	c.get(base).mustContain(t, `data-testid="prow-`+prolifictest.PID(1)+`"`, "AWAITING REVIEW")

	// study.status.change updates the study's status on the page.
	fake.SetStudy(webProlificStudy, "PAUSED", 10)
	st := []byte(`{"resource_id":"` + webProlificStudy + `","event_type":"study.status.change","status":"PAUSED","metadata":{}}`)
	if code, _ := prolifictest.Deliver(target, hookSecret, "evt-3", time.Now(), st); code != http.StatusOK {
		t.Fatalf("delivery evt-3: %d", code)
	}
	page := c.get(base).mustContain(t, `data-testid="prolific-status">PAUSED`, `data-testid="hook-last"`, "study.status.change", `data-testid="polling-off"`)
	if strings.Contains(page.Body, hookSecret) {
		t.Fatal("the page shows the webhook secret")
	}
}

// TestProlificWebhookWithoutSecretRefuses: with no secret configured every
// delivery is refused.
func TestProlificWebhookWithoutSecretRefuses(t *testing.T) {
	e := newTestEnv(t)
	code, err := prolifictest.Deliver(e.srv.URL+"/webhooks/prolific", "", "evt", time.Now(), []byte(`{"event_type":"study.status.change"}`))
	if err != nil || code != http.StatusUnauthorized {
		t.Fatalf("%d %v", code, err)
	}
}

// TestProlificPageLife: the page's places preview, transition, cost and
// message forms: each previews first, sends only with the box ticked, and
// once.
func TestProlificPageLife(t *testing.T) {
	e, fake, cs, c := hookEnv(t)
	base := fmt.Sprintf("/admin/studies/%d/prolific", cs.ID)
	c.get(base).mustContain(t, `data-testid="prolific-life"`, `data-testid="life-checklist"`, "training items", `data-testid="polling-on"`)

	c.get(base+"/places?add=3").mustStatus(t, http.StatusOK).mustContain(t, `data-testid="places-to">13`, `data-testid="quota-raise"`, "from 5 to")
	c.post(base+"/places", url.Values{"add": {"3"}}).mustStatus(t, http.StatusBadRequest).mustContain(t, "tick the confirmation")
	if _, places := fake.StudyState(webProlificStudy); places != 10 {
		t.Fatal("places added without confirmation")
	}
	c.post(base+"/places", url.Values{"add": {"3"}, "confirm": {"yes"}}).mustStatus(t, http.StatusSeeOther)
	c.get(base).mustContain(t, "Places on Prolific raised from 10 to 13")
	c.get(base+"/cost").mustStatus(t, http.StatusOK).mustContain(t, `data-testid="reward-total">19.50`, `data-testid="cost-total">26.00`)

	c.post(base+"/transition", url.Values{"action": {"publish"}, "confirm": {"yes"}}).mustStatus(t, http.StatusConflict).mustContain(t, "go-live checklist")
	c.post(base+"/transition", url.Values{"action": {"pause"}, "confirm": {"yes"}}).mustStatus(t, http.StatusSeeOther)
	c.get(base).mustContain(t, `data-testid="prolific-status">PAUSED`)

	prev := c.post(base+"/message/preview", url.Values{"to": {"completed"}, "template": {"thanks"}}).mustStatus(t, http.StatusOK).
		mustContain(t, `data-testid="message-recipients"`, prolifictest.PID(1), prolifictest.PID(2), "Thank you for taking part")
	plan := regexp.MustCompile(`name="plan" value="([0-9a-f]+)"`).FindStringSubmatch(prev.Body)
	if plan == nil || len(fake.Messages()) != 0 {
		t.Fatal("the preview carries no plan, or sent something")
	}
	form := url.Values{"plan": {plan[1]}, "to": {"completed"}, "template": {"thanks"}, "confirm": {"yes"}}
	c.post(base+"/message", form).mustStatus(t, http.StatusSeeOther)
	c.post(base+"/message", form).mustStatus(t, http.StatusConflict).mustContain(t, "already sent")
	if len(fake.Messages()) != 1 {
		t.Fatalf("%d messages sent", len(fake.Messages()))
	}
	log, _ := e.db.AuditLog(context.Background(), cs.ID, 0)
	var all []string
	for _, a := range log {
		all = append(all, a.Action+": "+a.Detail)
	}
	for _, want := range []string{"add Prolific places: Places on Prolific raised", "Prolific study transition: Prolific: pause sent", "message on Prolific: Message sent"} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("the audit log lacks %q", want)
		}
	}
}

// TestProlificWebhookConcurrentReplays: the same event delivered several
// times at once is applied once.
func TestProlificWebhookConcurrentReplays(t *testing.T) {
	e, fake, cs, _ := hookEnv(t)
	fake.SetSubmissionStatus("sub3", "TIMED-OUT")
	body := []byte(`{"resource_id":"sub3","event_type":"submission.status.change","status":"TIMED-OUT"}`)
	codes := make(chan int, 6)
	for range 6 {
		go func() {
			code, err := prolifictest.Deliver(e.srv.URL+"/webhooks/prolific", hookSecret, "evt-same", time.Now(), body)
			if err != nil {
				code = 0
			}
			codes <- code
		}()
	}
	for range 6 {
		if c := <-codes; c != http.StatusOK {
			t.Errorf("a delivery got %d", c)
		}
	}
	if a := hookAudits(t, e, cs.ID); len(a) != 1 {
		t.Fatalf("%d audit entries for one event: %q", len(a), a)
	}
	if got := status3(t, e, cs.ID); got != store.CrowdMovedOn {
		t.Fatalf("participant 3 is %s", got)
	}
}
