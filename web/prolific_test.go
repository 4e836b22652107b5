package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"regexp"
	"strings"
	"testing"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
)

const webProlificStudy = "64cccccccccccccccccccccc"

// prolificEnv is a server whose Prolific API is a fake holding the
// fixture's submissions, with the seeded crowd study (not yet linked to
// it). The variables in more are set as well.
func prolificEnv(t *testing.T, more ...string) (*testEnv, *prolifictest.Server, *domain.Study, *client) {
	t.Helper()
	fake := prolifictest.NewServer("web-test-token-0123456789")
	t.Cleanup(fake.Close)
	fake.AddFixtureSubmissions(webProlificStudy)
	env := map[string]string{prolific.TokenEnv: fake.Token, prolific.APIEnv: fake.URL}
	for i := 0; i+1 < len(more); i += 2 {
		env[more[i]] = more[i+1]
	}
	e := newTestEnvWith(t, func(k string) string { return env[k] })
	cs, err := prolifictest.SeedCrowdStudy(context.Background(), e.db, webProlificStudy)
	if err != nil {
		t.Fatal(err)
	}
	return e, fake, cs, e.adminClient()
}

func TestProlificPageLinkCheckSync(t *testing.T) {
	e, fake, cs, c := prolificEnv(t)
	base := fmt.Sprintf("/admin/studies/%d/prolific", cs.ID)
	page := c.get(base).mustStatus(t, http.StatusOK)
	if strings.Contains(page.Body, fake.Token) {
		t.Fatal("the page shows the token")
	}
	page.mustContain(t, "API token: set", fake.URL)
	c.post(base+"/link", url.Values{"prolific_study_id": {"nope"}}).mustStatus(t, http.StatusBadRequest).mustContain(t, "24 hexadecimal")
	c.post(base+"/link", url.Values{"prolific_study_id": {strings.ToUpper(webProlificStudy)}}).mustStatus(t, http.StatusSeeOther)
	c.post(base+"/check", nil).mustStatus(t, http.StatusSeeOther)
	c.get(base).mustContain(t, "Connected: Prolific study “crowd on Prolific”")
	c.post(base+"/sync", nil).mustStatus(t, http.StatusSeeOther)
	page = c.get(base).mustContain(t, "Synced 4 submissions; 1 slots freed",
		`data-testid="never-`+prolifictest.PID(4)+`"`, `data-testid="prow-`+prolifictest.PID(1)+`"`)
	// The study page's participants table shows Prolific's status too.
	c.get(fmt.Sprintf("/admin/studies/%d", cs.ID)).mustContain(t, "AWAITING REVIEW", "RETURNED")
	_ = e
}

func TestProlificApproveRejectAndPayOnce(t *testing.T) {
	e, fake, cs, c := prolificEnv(t)
	base := fmt.Sprintf("/admin/studies/%d/prolific", cs.ID)
	c.post(base+"/link", url.Values{"prolific_study_id": {webProlificStudy}}).mustStatus(t, http.StatusSeeOther)
	c.post(base+"/sync", nil).mustStatus(t, http.StatusSeeOther)

	// Approve: the page lists whom it pays; without the tick nothing is sent.
	c.get(base+"/approve").mustStatus(t, http.StatusOK).mustContain(t, `data-testid="approve-count"`, "to the 1 listed here", "sub1")
	c.post(base+"/approve", url.Values{"submission": {"sub1"}}).mustStatus(t, http.StatusBadRequest).mustContain(t, "tick the confirmation")
	if fake.Calls("POST bulk-approve") != 0 {
		t.Fatal("sent without confirmation")
	}
	c.post(base+"/approve", url.Values{"submission": {"sub1"}, "confirm": {"yes"}}).mustStatus(t, http.StatusSeeOther)
	if fake.Status("sub1") != prolific.StatusApproved || fake.Status("sub2") != prolific.StatusAwaitingReview {
		t.Fatal("approved the wrong submissions")
	}

	// Reject the participant who failed both checks, with the template.
	p2 := prolifictest.PID(2)
	rej := c.get(base+"/reject?pid="+p2).mustStatus(t, http.StatusOK).mustContain(t, "failed 2 of the 2 attention checks")
	msg := regexp.MustCompile(`(?s)<textarea name="message"[^>]*>(.*?)</textarea>`).FindStringSubmatch(rej.Body)
	if msg == nil {
		t.Fatal("no message field")
	}
	text := strings.NewReplacer("&#39;", "'", "&amp;", "&").Replace(msg[1])
	c.post(base+"/reject", url.Values{"pid": {p2}, "category": {"FAILED_CHECK"}, "message": {"short"}, "confirm": {"yes"}}).
		mustStatus(t, http.StatusBadRequest).mustContain(t, "at least 100")
	c.post(base+"/reject", url.Values{"pid": {p2}, "category": {"FAILED_CHECK"}, "message": {text}, "confirm": {"yes"}}).mustStatus(t, http.StatusSeeOther)
	if fake.Status("sub2") != prolific.StatusRejected {
		t.Fatal("not rejected")
	}

	// Bonuses: plan → set up (first confirmation) → pay (second) → never again.
	plan := c.post(base+"/bonus/plan", url.Values{"source": {"csv"}, "csv": {prolifictest.PID(1) + ",0.50\n" + p2 + ",0.25\n"}}).
		mustStatus(t, http.StatusOK).mustContain(t, "Bonuses: 2, 0.75 in all")
	planID := regexp.MustCompile(`name="plan" value="([0-9a-f]+)"`).FindStringSubmatch(plan.Body)
	csv := regexp.MustCompile(`name="csv" value="([^"]*)"`).FindStringSubmatch(plan.Body)
	if planID == nil || csv == nil {
		t.Fatal("the plan page carries no plan")
	}
	lines := strings.ReplaceAll(csv[1], "&#10;", "\n")
	form := url.Values{"plan": {planID[1]}, "csv": {lines}, "confirm": {"yes"}}
	setup := c.post(base+"/bonus/setup", form).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="setup-total"`, "= <strong>1.00</strong>")
	c.post(base+"/bonus/setup", form).mustStatus(t, http.StatusOK) // a second click
	if fake.Calls("POST bonus-payments") != 1 || fake.Pays() != 0 {
		t.Fatalf("%d setups, %d payments", fake.Calls("POST bonus-payments"), fake.Pays())
	}
	setupID := regexp.MustCompile(`name="setup" value="([0-9a-f]+)"`).FindStringSubmatch(setup.Body)[1]
	c.post(base+"/bonus/pay", url.Values{"setup": {setupID}}).mustStatus(t, http.StatusBadRequest)
	c.post(base+"/bonus/pay", url.Values{"setup": {setupID}, "confirm": {"yes"}}).mustStatus(t, http.StatusSeeOther)
	c.post(base+"/bonus/pay", url.Values{"setup": {setupID}, "confirm": {"yes"}}).mustStatus(t, http.StatusConflict).mustContain(t, "already paid")
	if fake.Pays() != 1 {
		t.Fatalf("%d payments", fake.Pays())
	}
	// Every call is on record with who made it.
	page := c.get(base).mustContain(t, `data-testid="calls"`, "researcher", "bonus_pay", "reject", "approve")
	if strings.Contains(page.Body, "pending") {
		t.Error("a call is left pending")
	}
	// … and in the study's record of researcher actions.
	log, err := e.db.AuditLog(context.Background(), cs.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range log {
		actions = append(actions, a.Actor+": "+a.Action+": "+a.Detail)
	}
	all := strings.Join(actions, "\n")
	for _, want := range []string{"researcher: pay Prolific bonus: Paid the bonuses of " + setupID, "researcher: approve Prolific submissions: Approved 1", "researcher: reject Prolific submissions: Rejected " + p2} {
		if !strings.Contains(all, want) {
			t.Errorf("the audit log lacks %q:\n%s", want, all)
		}
	}
}

func TestProlificWithoutTokenSaysSo(t *testing.T) {
	e := newTestEnv(t)
	cs, err := prolifictest.SeedCrowdStudy(context.Background(), e.db, webProlificStudy)
	if err != nil {
		t.Fatal(err)
	}
	c := e.adminClient()
	base := fmt.Sprintf("/admin/studies/%d/prolific", cs.ID)
	c.get(base).mustContain(t, `data-testid="no-token"`, prolific.TokenEnv)
	c.post(base+"/link", url.Values{"prolific_study_id": {webProlificStudy}}).mustStatus(t, http.StatusSeeOther)
	c.post(base+"/check", nil).mustStatus(t, http.StatusBadRequest).mustContain(t, "no Prolific API token")
}

// TestProlificReviewNoRejectionOnFlags: a participant who passed the
// checks, carries integrity flags and is excluded on them gets no
// rejection link on the review page, and the rejection page refuses to
// propose one (docs/studies.md#integrity-flags).
func TestProlificReviewNoRejectionOnFlags(t *testing.T) {
	e, _, cs, c := prolificEnv(t)
	ctx := context.Background()
	base := fmt.Sprintf("/admin/studies/%d/prolific", cs.ID)
	c.post(base+"/link", url.Values{"prolific_study_id": {webProlificStudy}}).mustStatus(t, http.StatusSeeOther)
	c.post(base+"/sync", nil).mustStatus(t, http.StatusSeeOther)
	_, set, _ := e.db.CrowdStudy(ctx, cs.ID)
	parts, _ := e.db.CrowdParticipants(ctx, cs.ID, set)
	p1 := prolifictest.PID(1)
	c.get(base).mustContain(t, `data-testid="reject-`+p1+`"`) // before: an ordinary participant awaiting review
	if _, err := e.db.Writer().ExecContext(ctx, `UPDATE crowd_ratings SET untrusted_events = 3 WHERE participant_id = ?`, parts[0].ID); err != nil {
		t.Fatal(err)
	}
	c.post(fmt.Sprintf("/admin/studies/%d/crowd/participants/%d/exclusion", cs.ID, parts[0].ID),
		url.Values{"override": {"exclude"}, "reason": {"synthetic input"}}).mustStatus(t, http.StatusSeeOther)
	page := c.get(base).mustContain(t, `data-testid="no-reject-flags-`+p1+`"`, "synthetic_input")
	if strings.Contains(page.Body, `data-testid="reject-`+p1+`"`) {
		t.Fatal("the review proposes rejecting on integrity flags alone")
	}
	c.get(base+"/reject?pid="+p1).mustStatus(t, http.StatusConflict).mustContain(t, "no reason to reject")
	c.get(base+"/reject?pid="+prolifictest.PID(2)).mustStatus(t, http.StatusOK) // failed checks: still proposed
}
