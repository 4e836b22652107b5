package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"pragmalab/prolific"
)

// The Prolific page offers to send the flags only when someone with a
// submission is flagged; the send needs the ticked box, uploads once and
// changes no submission.
func TestProlificPageSendsFlagsAsEvidence(t *testing.T) {
	e, fake := prolificPageEnv(t)
	a := e.admin()
	page := fmt.Sprintf("/admin/studies/%d/prolific", e.study)
	a.post(page+"/sync", nil)
	a.get(page)
	a.must("prolific-signals")
	if a.has("signals-confirm") || !strings.Contains(a.body, "nothing to send") {
		t.Fatalf("no flags, yet a send form:\n%s", a.body)
	}
	ctx := context.Background()
	_, set, _ := e.db.CrowdStudy(ctx, e.study)
	parts, _ := e.db.CrowdParticipants(ctx, e.study, set)
	if _, err := e.db.Writer().ExecContext(ctx, `UPDATE crowd_ratings SET honeypot = 'x' WHERE participant_id = ?`, parts[0].ID); err != nil {
		t.Fatal(err)
	}
	a.get(page)
	a.must("signals-confirm")
	// Without the ticked box nothing is sent.
	a.post(page+"/flags", nil)
	if a.resp.StatusCode != http.StatusBadRequest || len(fake.SignalUploads()) != 0 {
		t.Fatalf("unconfirmed: %d, %d uploads", a.resp.StatusCode, len(fake.SignalUploads()))
	}
	a.post(page+"/flags", url.Values{"confirm": {"yes"}})
	a.must("flash")
	if !strings.Contains(a.body, "no submission was rejected") || len(fake.SignalUploads()) != 1 {
		t.Fatalf("send: %d uploads\n%s", len(fake.SignalUploads()), a.body)
	}
	a.post(page+"/flags", url.Values{"confirm": {"yes"}})
	if a.resp.StatusCode != http.StatusConflict || !strings.Contains(a.body, "already sent") || len(fake.SignalUploads()) != 1 {
		t.Fatalf("again: %d, %d uploads", a.resp.StatusCode, len(fake.SignalUploads()))
	}
	if fake.Status("sub1") != prolific.StatusAwaitingReview {
		t.Errorf("sub1 is %s", fake.Status("sub1"))
	}
}
