package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"strings"
	"testing"
)

// TestStudyStateCrowd walks a crowd study through its states: a new study
// is a draft nobody can enter; Open refuses with the checklist; paused lets
// those who consented finish (by the setting) and keeps newcomers out;
// closed keeps everybody out.
func TestStudyStateCrowd(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	ctx := context.Background()
	a := e.admin()

	// A study created through the admin page is a draft, shown as such on
	// the dashboard and its own page, and refuses participants.
	a.post("/admin/studies", url.Values{"name": {"Fresh"}, "kind": {"crowd"}, "lang": {"it"}})
	a.must("state-panel")
	if !strings.Contains(a.body, `data-testid="study-state">Draft<`) {
		t.Fatalf("new study not a draft:\n%s", a.body)
	}
	sts, _ := e.db.Studies(ctx)
	fresh := sts[0]
	if fresh.State != domain.StateDraft {
		t.Fatalf("new study state %q", fresh.State)
	}
	p := e.browser().get(fmt.Sprintf("/s/%d?PROLIFIC_PID=%s", fresh.ID, pidN(1)))
	if p.resp.StatusCode != http.StatusForbidden || !p.has("study-draft") || !strings.Contains(p.body, "non è ancora iniziato") {
		t.Fatalf("draft study entry: %d\n%s", p.resp.StatusCode, p.body)
	}
	// Open runs the checklist and refuses with what is missing.
	a.post(fmt.Sprintf("/admin/studies/%d/state", fresh.ID), url.Values{"state": {"open"}})
	if a.resp.StatusCode != http.StatusConflict && a.resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("open of an empty study: %d\n%s", a.resp.StatusCode, a.body)
	}
	for _, want := range []string{"items imported", "attention checks imported", "batches built", "a completion code set"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("refusal does not list %q:\n%s", want, a.body)
		}
	}
	if st, _ := e.db.Study(ctx, fresh.ID); st.State != domain.StateDraft {
		t.Fatalf("refused open changed the state to %q", st.State)
	}
	a.get("/admin")
	if !a.has(fmt.Sprintf("state-%d", fresh.ID)) || !strings.Contains(a.body, ">Draft</span>") || !strings.Contains(a.body, ">State</th>") {
		t.Fatalf("dashboard without the state:\n%s", a.body)
	}

	// The test study: back to draft, then opened by the researcher.
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.post(study+"/state", url.Values{"state": {"draft"}})
	e.browser().get(e.entry(pidN(2), "s2")).must("study-draft")
	a.post(study+"/state", url.Values{"state": {"open"}})
	a.must("flash")
	if !strings.Contains(a.body, `data-testid="study-state">Open<`) {
		t.Fatalf("not open after Open:\n%s", a.body)
	}

	// One participant consents and answers one screen; then the study is paused.
	under := e.browser()
	under.get(e.entry(pidN(3), "s3"))
	under.post(e.base()+"/consent", nil)
	under.training()
	under.post(e.base()+"/answer", url.Values{"position": {"1"}, "rating": {"4"}})
	if under.position() != 2 {
		t.Fatalf("at screen %d, want 2", under.position())
	}
	a.post(study+"/state", url.Values{"state": {"paused"}})
	a.must("state-changes")
	if !strings.Contains(a.body, "Paused by root") {
		t.Fatalf("state change not shown with its author:\n%s", a.body)
	}
	newcomer := e.browser().get(e.entry(pidN(4), "s4"))
	if newcomer.resp.StatusCode != http.StatusServiceUnavailable || !newcomer.has("study-paused") {
		t.Fatalf("newcomer in a paused study: %d\n%s", newcomer.resp.StatusCode, newcomer.body)
	}
	// One instruction: come back later — not also "return the study".
	if !strings.Contains(newcomer.body, "come back later") || strings.Contains(strings.ToLower(newcomer.body), "return") {
		t.Fatalf("the paused page does not give one instruction:\n%s", newcomer.body)
	}
	// By default those under way finish.
	under.post(e.base()+"/answer", url.Values{"position": {"2"}, "rating": {"5"}})
	if under.position() != 3 {
		t.Fatalf("paused, finishing allowed: at %d, want 3\n%s", under.position(), under.body)
	}
	// Without the setting they see the paused page, and nothing is stored.
	set := e.set
	set.FinishWhenPaused = false
	if err := e.db.SaveCrowdSettings(ctx, e.study, set); err != nil {
		t.Fatal(err)
	}
	under.post(e.base()+"/answer", url.Values{"position": {"3"}, "rating": {"5"}})
	if !under.has("study-paused") {
		t.Fatalf("paused without finishing: \n%s", under.body)
	}
	under.get(e.base() + "/screen").must("study-paused")
	reps, _ := e.db.CrowdParticipants(ctx, e.study, set)
	if len(reps) != 1 || reps[0].Answered != 2 {
		t.Fatalf("participants %+v", reps)
	}
	// Closed: nobody goes on.
	a.post(study+"/state", url.Values{"state": {"closed"}})
	under.get(e.base() + "/screen")
	if under.resp.StatusCode != http.StatusForbidden || !under.has("study-closed") || !strings.Contains(under.body, "Please return it on Prolific") || strings.Contains(under.body, "later") {
		t.Fatalf("closed: %d\n%s", under.resp.StatusCode, under.body)
	}
	e.browser().get(e.entry(pidN(5), "s5")).must("study-closed")
	changes, _ := e.db.StudyStateChanges(ctx, e.study)
	var got []string
	for _, c := range changes {
		got = append(got, c.State)
	}
	// Newest first; the first "open" is the test set-up's.
	if strings.Join(got, ",") != "closed,paused,open,draft,open" {
		t.Fatalf("state changes %v", got)
	}
}
