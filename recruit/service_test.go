package recruit

import (
	"context"
	"errors"
	"net/http"
	"pragmalab/domain"
	"strings"
	"testing"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
)

const (
	// Random, as Prolific's tokens are: every 8-character run of the token
	// is blanked in what Prolific sends back (docs/deploy.md#security), so a
	// token of plain words would blank them in the answers too.
	testToken    = "pl7Hq2Vx9RkT4mWz3NcBd8"
	prolificStud = "64aaaaaaaaaaaaaaaaaaaaaa"
)

func pid(i int) string { return prolifictest.PID(i) }

// prolificFixture is prolifictest's crowd study, linked to a fake Prolific
// that holds its submissions.
func prolificFixture(t *testing.T) (*store.DB, *domain.Study, *prolifictest.Server, *Service) {
	t.Helper()
	ctx := context.Background()
	db := mustOpenDB(t)
	cs, err := prolifictest.SeedCrowdStudy(ctx, db, prolificStud)
	if err != nil {
		t.Fatal(err)
	}
	srv, p := linkedToFake(t, db, cs)
	srv.AddFixtureSubmissions(prolificStud)
	return db, cs, srv, p
}

// linkedToFake starts the fake Prolific, links study cs to its study
// prolificStud (which the caller adds), and returns the fake and a
// Service that talks to it.
func linkedToFake(t *testing.T, db *store.DB, cs *domain.Study) (*prolifictest.Server, *Service) {
	t.Helper()
	srv := prolifictest.NewServer(testToken)
	t.Cleanup(srv.Close)
	if err := db.LinkProlific(context.Background(), cs.ID, prolificStud); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{prolific.TokenEnv: testToken, prolific.APIEnv: srv.URL}
	return srv, New(db, func(k string) string { return env[k] })
}

func TestProlificSyncFreesReturnedSlotsAndLists(t *testing.T) {
	db, cs, _, p := prolificFixture(t)
	ctx := context.Background()
	res, err := p.Sync(ctx, cs.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Submissions != 4 || len(res.Freed) != 1 || res.Freed[0] != pid(3) {
		t.Fatalf("sync %+v", res)
	}
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	parts, _ := db.CrowdParticipants(ctx, cs.ID, set)
	if parts[2].Status != store.CrowdMovedOn {
		t.Errorf("returned participant is %s, want the slot freed (moved_on)", parts[2].Status)
	}
	rev, err := p.Review(ctx, cs.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rev.NeverReached) != 1 || rev.NeverReached[0].PID != pid(4) {
		t.Errorf("never reached %+v", rev.NeverReached)
	}
	if r := rev.Row(pid(2)); r == nil || !r.Excluded || r.ChecksFailed != 2 || strings.Join(r.FailedChecks, ",") != "chk-low,chk-high" && strings.Join(r.FailedChecks, ",") != "chk-high,chk-low" {
		t.Errorf("p2 %+v", r)
	}
	if a := rev.Approvable(); len(a) != 1 || a[0].PID != pid(1) {
		t.Errorf("approvable %+v: only the completed, included participant", a)
	}
}

func TestProlificApproveOnceOnly(t *testing.T) {
	_, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	res, err := p.Approve(ctx, cs.ID, "alice", nil)
	if err != nil || len(res.Approved) != 1 || res.Approved[0] != "sub1" {
		t.Fatalf("approve %+v, %v", res, err)
	}
	if srv.Status("sub1") != prolific.StatusApproved || srv.Status("sub2") != prolific.StatusAwaitingReview {
		t.Fatalf("statuses sub1 %s sub2 %s", srv.Status("sub1"), srv.Status("sub2"))
	}
	res, err = p.Approve(ctx, cs.ID, "alice", nil)
	if err != nil || len(res.Approved) != 0 || srv.Calls("POST bulk-approve") != 1 {
		t.Fatalf("second approve %+v, %v, %d bulk calls", res, err, srv.Calls("POST bulk-approve"))
	}
	// The excluded participant cannot be approved by naming them.
	if _, err := p.Approve(ctx, cs.ID, "alice", []string{"sub2"}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("approving the excluded participant: %v", err)
	}
}

func TestProlificRejectWithTemplate(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	p.Sync(ctx, cs.ID)
	rev, _ := p.Review(ctx, cs.ID)
	msg := RejectionMessage(DefaultRejectionTemplate, *rev.Row(pid(2)))
	if !strings.Contains(msg, "failed 2 of the 2 attention checks") || !strings.Contains(msg, "chk-") {
		t.Fatalf("message %q", msg)
	}
	if err := p.Reject(ctx, cs.ID, "alice", pid(2), "FAILED_CHECK", "too short"); err == nil || srv.Calls("POST transition") != 0 {
		t.Fatalf("a short message was accepted or sent: %v", err)
	}
	if err := p.Reject(ctx, cs.ID, "alice", strings.ToUpper(pid(2)), "FAILED_CHECK", msg); err != nil {
		t.Fatal(err)
	}
	if srv.Status("sub2") != prolific.StatusRejected {
		t.Fatal("not rejected on Prolific")
	}
	if err := p.Reject(ctx, cs.ID, "alice", pid(2), "FAILED_CHECK", msg); domain.ErrorCode(err) != domain.ECONFLICT || srv.Calls("POST transition") != 1 {
		t.Fatalf("second rejection: %v, %d transition calls", err, srv.Calls("POST transition"))
	}
	calls, _ := db.ProlificCalls(ctx, cs.ID)
	if len(calls) != 1 || calls[0].Kind != domain.CallReject || calls[0].State != domain.CallDone || calls[0].Actor != "alice" {
		t.Fatalf("calls %+v", calls)
	}
}

func TestProlificBonusesPaidOnce(t *testing.T) {
	_, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	p.Sync(ctx, cs.ID)
	lines, err := ParseBonusCSV(strings.NewReader("participant_id,amount\n" + pid(1) + ",0.50\n" + pid(2) + ",1.25\n"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.PlanBonuses(ctx, cs.ID, lines)
	if err != nil || plan.TotalCents != 175 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	setup, err := p.SetUpBonuses(ctx, cs.ID, "alice", plan)
	if err != nil {
		t.Fatal(err)
	}
	// Confirming the same plan again (a double click) sets it up once.
	again, err := p.SetUpBonuses(ctx, cs.ID, "alice", plan)
	if err != nil || again.ID != setup.ID || srv.Calls("POST bonus-payments") != 1 {
		t.Fatalf("second setup %+v, %v, %d setups", again, err, srv.Calls("POST bonus-payments"))
	}
	if srv.Pays() != 0 {
		t.Fatal("setting up paid")
	}
	if err := p.PayBonuses(ctx, cs.ID, "alice", setup.ID); err != nil {
		t.Fatal(err)
	}
	if err := p.PayBonuses(ctx, cs.ID, "bob", setup.ID); domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(err.Error(), "already paid") {
		t.Fatalf("second pay: %v", err)
	}
	if srv.Pays() != 1 {
		t.Fatalf("%d payments", srv.Pays())
	}
	// A second batch shows who was bonused before.
	plan2, _ := p.PlanBonuses(ctx, cs.ID, lines[:1])
	if plan2.Repeats != 1 || plan2.Lines[0].Before != 50 {
		t.Errorf("second plan %+v", plan2)
	}
	// Bad lines name the line.
	for in, want := range map[string]string{
		pid(1) + ",300\n":                 "at most 100.00",
		pid(1) + ",0.505\n":               "two decimals",
		"nobody,0.50\n":                   "line 1",
		pid(1) + ",1\n" + pid(1) + ",2\n": "already on line 1",
	} {
		if _, err := ParseBonusCSV(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if _, err := p.PlanBonuses(ctx, cs.ID, []BonusLine{{PID: pid(9), AmountCents: 10, Line: 3}}); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("unknown participant: %v", err)
	}
}

func TestProlificLostPaymentAnswerIsNeverPaidAgain(t *testing.T) {
	_, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	p.Sync(ctx, cs.ID)
	plan, _ := p.PlanBonuses(ctx, cs.ID, []BonusLine{{PID: pid(1), AmountCents: 50}})
	setup, err := p.SetUpBonuses(ctx, cs.ID, "alice", plan)
	if err != nil {
		t.Fatal(err)
	}
	// Prolific pays, then the answer is lost on the way back.
	srv.SetAfterPay(func(string) { panic(http.ErrAbortHandler) })
	if err := p.PayBonuses(ctx, cs.ID, "alice", setup.ID); err == nil {
		t.Fatal("a lost answer looked like success")
	}
	srv.SetAfterPay(nil)
	err = p.PayBonuses(ctx, cs.ID, "alice", setup.ID)
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(err.Error(), "never recorded") || srv.Pays() != 1 {
		t.Fatalf("retry: %v, %d payments", err, srv.Pays())
	}
	// After checking on Prolific the researcher may say it was not paid.
	if err := p.MarkPaymentNotSent(ctx, cs.ID, "alice", setup.ID); err != nil {
		t.Fatal(err)
	}
	if err := p.PayBonuses(ctx, cs.ID, "alice", setup.ID); err != nil || srv.Pays() != 2 {
		t.Fatalf("pay after marking: %v, %d", err, srv.Pays())
	}
}

func TestProlificCheckSaysWhatIsWrong(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if st, err := p.Check(ctx, cs.ID); err != nil || st.Name != "crowd on Prolific" {
		t.Fatalf("check %+v %v", st, err)
	}
	noToken := New(db, func(string) string { return "" })
	if _, err := noToken.Check(ctx, cs.ID); err == nil || !strings.Contains(err.Error(), prolific.TokenEnv) {
		t.Errorf("no token: %v", err)
	}
	bad := New(db, func(k string) string {
		return map[string]string{prolific.TokenEnv: "nope", prolific.APIEnv: srv.URL}[k]
	})
	if _, err := bad.Check(ctx, cs.ID); err == nil || !strings.Contains(err.Error(), "refused the token") || strings.Contains(err.Error(), "nope") {
		t.Errorf("bad token: %v", err)
	}
	db.LinkProlific(ctx, cs.ID, "64bbbbbbbbbbbbbbbbbbbbbb")
	if _, err := p.Check(ctx, cs.ID); err == nil || !strings.Contains(err.Error(), "no study") {
		t.Errorf("unknown study: %v", err)
	}
	if err := db.LinkProlific(ctx, cs.ID, "not-an-id"); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("malformed id: %v", err)
	}
	_ = errors.New
}

func TestProlificCreateDraftAndGroup(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	st, err := p.CreateDraft(ctx, cs.ID, "alice", DraftInput{Description: "Rate sentences.", StudyURL: "https://lab.example/s/1", RewardCents: 150, Minutes: 12})
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Created()[0]
	if body["total_available_places"].(float64) != 2*float64(domain.DefaultCrowdSettings().Quota) ||
		!strings.Contains(body["external_study_url"].(string), "PROLIFIC_PID={{%PROLIFIC_PID%}}") || body["reward"].(float64) != 150 {
		t.Errorf("created %+v", body)
	}
	if l, _ := db.ProlificLink(ctx, cs.ID); l.ProlificStudyID != st.ID {
		t.Errorf("link %+v, want the new study %s", l, st.ID)
	}
	if _, err := p.AddToGroup(ctx, cs.ID, "alice", "not-a-group"); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("bad group id: %v", err)
	}
	api, err := p.api()
	if err != nil {
		t.Fatal(err)
	}
	g, err := api.CreateParticipantGroup(ctx, "ws1", "did the crowd study")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := p.AddToGroup(ctx, cs.ID, "alice", g.ID); err != nil || n != 3 || len(srv.Group(g.ID)) != 3 {
		t.Fatalf("added %d (%v); the group holds %v", n, err, srv.Group(g.ID))
	}
}

// TestProlificReviewNeverProposesRejectingOnFlags: a participant who passes
// the attention checks, whose answers carry integrity flags, and whom the
// researcher excludes on them is not proposed for rejection
// (docs/studies.md#integrity-flags: exclude, do not reject); one excluded
// by failed checks still is.
func TestProlificReviewNeverProposesRejectingOnFlags(t *testing.T) {
	db, cs, _, p := prolificFixture(t)
	ctx := context.Background()
	p.Sync(ctx, cs.ID)
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	parts, _ := db.CrowdParticipants(ctx, cs.ID, set)
	if _, err := db.Writer().ExecContext(ctx, `UPDATE crowd_ratings SET honeypot = 'http://bot.example', webdriver = 1 WHERE participant_id = ?`, parts[0].ID); err != nil {
		t.Fatal(err)
	}
	rev, _ := p.Review(ctx, cs.ID)
	if r := rev.Row(pid(1)); r == nil || r.Excluded || r.FlagsOnly || strings.Join(r.Flags, ";") != "honeypot;webdriver" {
		t.Fatalf("flagged, not excluded: %+v", r)
	}
	if err := db.SetCrowdExclusion(ctx, cs.ID, parts[0].ID, domain.OverrideExclude); err != nil {
		t.Fatal(err)
	}
	rev, _ = p.Review(ctx, cs.ID)
	if r := rev.Row(pid(1)); r == nil || !r.Excluded || !r.FlagsOnly {
		t.Fatalf("excluded on its flags: %+v, want no rejection proposed", r)
	}
	if r := rev.Row(pid(2)); r == nil || r.FlagsOnly || r.ChecksFailed < set.MaxFailedChecks {
		t.Fatalf("excluded by failed checks: %+v, want a rejection still possible", r)
	}
}
