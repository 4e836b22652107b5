package recruit

import (
	"context"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
	"pragmalab/studies"
)

// readyStudy is a crowd study whose go-live checklist passes (items,
// checks, two batches with training), opened here and linked to an
// unpublished study on the fake.
func readyStudy(t *testing.T) (*store.DB, *domain.Study, *prolifictest.Server, *Service) {
	t.Helper()
	ctx := context.Background()
	db := mustOpenDB(t)
	cs := &domain.Study{Kind: domain.KindCrowd, Name: "ready", Lang: "en"}
	if err := db.CreateStudy(ctx, cs); err != nil {
		t.Fatal(err)
	}
	items := []domain.Item{
		{Key: "x001", Type: domain.TypeScalar, Utterance: "u1", Implicature: "b1", Cancellation: "c1"},
		{Key: "t001", Type: domain.TypeScalar, Utterance: "u2", Implicature: "b2", Cancellation: "c2"},
		{Key: "chk", Type: domain.TypeSynthetic, Utterance: "u", Implicature: "b", Cancellation: "x", Check: "high"},
	}
	if err := db.ImportItems(ctx, cs.ID, items); err != nil {
		t.Fatal(err)
	}
	stored, _ := db.ListItems(ctx, cs.ID)
	id := map[string]int64{}
	for _, it := range stored {
		id[it.Key] = it.ID
	}
	b := []store.CrowdSlot{{ItemID: id["x001"], Condition: "trigger"}, {ItemID: id["chk"], Condition: "trigger"}}
	if err := db.SaveCrowdBatches(ctx, cs.ID, 1, []store.CrowdSlot{{ItemID: id["t001"], Condition: "trigger"}}, [][]store.CrowdSlot{b, b}); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode, set.Quota = "DONE", 5
	if err := db.SaveCrowdSettings(ctx, cs.ID, set); err != nil {
		t.Fatal(err)
	}
	srv, p := linkedToFake(t, db, cs)
	srv.AddStudy(prolificStud, "ready on Prolific")
	srv.SetStudy(prolificStud, prolific.StudyUnpublished, 10)
	return db, cs, srv, p
}

func TestProlificPublishRefusedUntilReadyThenOnce(t *testing.T) {
	db, cs, srv, p := readyStudy(t)
	ctx := context.Background()
	// Open here is required as well as the checklist.
	if _, err := p.TransitionStudy(ctx, cs.ID, "researcher", "publish"); domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(err.Error(), "open it first") {
		t.Fatalf("publish of a draft study: %v", err)
	}
	if err := studies.OpenStudy(ctx, db, cs.ID, "researcher"); err != nil {
		t.Fatal(err)
	}
	res, err := p.TransitionStudy(ctx, cs.ID, "researcher", "publish")
	if err != nil || res.Status != prolific.StudyActive {
		t.Fatalf("publish: %+v %v", res, err)
	}
	// Again: Prolific's status says it is done, nothing is sent.
	if res, err := p.TransitionStudy(ctx, cs.ID, "researcher", "publish"); err != nil || !res.Already {
		t.Fatalf("second publish: %+v %v", res, err)
	}
	if n := srv.Calls("POST study-transition"); n != 1 {
		t.Fatalf("%d transitions sent, want 1", n)
	}
	for _, step := range []struct{ what, want string }{{"pause", prolific.StudyPaused}, {"resume", prolific.StudyActive}} {
		if res, err := p.TransitionStudy(ctx, cs.ID, "researcher", step.what); err != nil || res.Status != step.want {
			t.Fatalf("%s: %+v %v", step.what, res, err)
		}
	}
	link, _ := db.ProlificLink(ctx, cs.ID)
	if link.ProlificStatus != prolific.StudyActive {
		t.Errorf("the page's status is %q", link.ProlificStatus)
	}
	calls, _ := db.ProlificCalls(ctx, cs.ID)
	if len(calls) != 3 || calls[0].State != domain.CallDone || calls[0].Actor != "researcher" {
		t.Errorf("recorded calls: %+v", calls)
	}
}

func TestProlificPublishRefusedWhileChecklistFails(t *testing.T) {
	_, cs, srv, p := prolificFixture(t) // no training items: the checklist fails
	_, err := p.TransitionStudy(context.Background(), cs.ID, "researcher", "resume")
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(err.Error(), "training items") {
		t.Fatalf("resume with the checklist failing: %v", err)
	}
	if srv.Calls("POST study-transition") != 0 || srv.Calls("GET study") != 0 {
		t.Fatal("something was sent or read")
	}
}

func TestProlificPlacesRaiseQuotaAndAreNotAddedTwice(t *testing.T) {
	db, cs, srv, p := readyStudy(t)
	ctx := context.Background()
	// 10 places, 2 batches × 5: adding 3 makes 13, so the quota becomes 7.
	pl, err := p.PlanPlaces(ctx, cs.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	if pl.From != 10 || pl.To != 13 || pl.QuotaTo != 7 || pl.Capacity != 14 || pl.CostCents != 600 {
		t.Fatalf("plan %+v", pl)
	}
	if srv.Calls("PATCH study-update") != 0 {
		t.Fatal("planning sent something")
	}
	if _, err := p.AddPlaces(ctx, cs.ID, "researcher", 3); err != nil {
		t.Fatal(err)
	}
	if _, places := srv.StudyState(prolificStud); places != 13 {
		t.Fatalf("%d places on Prolific", places)
	}
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	if set.Quota != 7 {
		t.Fatalf("quota %d, want 7", set.Quota)
	}
	// Adding 1 more fits in 2 × 7: the quota stays.
	if pl, err := p.AddPlaces(ctx, cs.ID, "researcher", 1); err != nil || pl.QuotaRaised() {
		t.Fatalf("second increase %+v %v", pl, err)
	}
	if _, err := p.PlanPlaces(ctx, cs.ID, 0); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("adding 0: %v", err)
	}
}

// TestProlificLostPlacesAnswerIsCheckedFirst: an increase whose answer was
// lost is not sent again when Prolific shows it carried out.
func TestProlificLostPlacesAnswerIsCheckedFirst(t *testing.T) {
	db, cs, srv, p := readyStudy(t)
	ctx := context.Background()
	// Recorded and carried out, but the server stopped before the answer.
	c := &domain.ProlificCall{StudyID: cs.ID, Kind: domain.CallPlaces, Key: "places:" + prolificStud + ":10-15", Target: "15", Request: "{}", Actor: "researcher"}
	if err := db.RecordProlificCall(ctx, c); err != nil {
		t.Fatal(err)
	}
	srv.SetStudy(prolificStud, prolific.StudyUnpublished, 15)
	_, err := p.AddPlaces(ctx, cs.ID, "researcher", 5)
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(err.Error(), "was carried out") {
		t.Fatalf("retry after a lost answer: %v", err)
	}
	if srv.Calls("PATCH study-update") != 0 {
		t.Fatal("the lost increase was sent again")
	}
	if got, _ := db.ProlificCallByKey(ctx, c.Key); got.State != domain.CallDone {
		t.Fatalf("the lost call is %s", got.State)
	}
}

func TestProlificCostPreview(t *testing.T) {
	_, cs, _, p := readyStudy(t)
	c, err := p.Cost(context.Background(), cs.ID)
	if err != nil {
		t.Fatal(err)
	}
	// 150 × 10 = 1500, with the fake's fees of a third: 2000.
	if c.RewardTotal != 1500 || c.TotalCents != 2000 || c.FeesCents != 500 || !c.FromProlific || c.PragmalabCap != 10 {
		t.Fatalf("%+v", c)
	}
}

// TestProlificConsentRefusalScreenedOutNeverRejected: a person who
// declines consent is moved to SCREENED OUT at the next review, once, when
// the study pays screen-outs; rejecting them is refused.
func TestProlificConsentRefusalScreenedOutNeverRejected(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	svc := studies.New(db, nil)
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	set.ScreenOutCode = "NOCONSENT1"
	if err := db.SaveCrowdSettings(ctx, cs.ID, set); err != nil {
		t.Fatal(err)
	}
	entry, err := db.EnterCrowd(ctx, cs.ID, store.CrowdArrival{PID: pid(5), StudyID: prolificStud, SessionID: "sub5"}, set)
	if err != nil {
		t.Fatal(err)
	}
	code, err := svc.RecordConsentRefusal(ctx, cs.ID, entry.Token)
	if err != nil || code != "NOCONSENT1" {
		t.Fatalf("refusal: %q %v", code, err)
	}
	if _, err := svc.RecordConsentRefusal(ctx, cs.ID, entry.Token); err != nil {
		t.Fatalf("a second refusal: %v", err)
	}
	srv.AddSubmission(prolificStud, "sub5", pid(5), "AWAITING REVIEW")

	// The study on Prolific does not pay screen-outs yet: nothing is sent.
	res, err := p.ScreenOut(ctx, cs.ID, "researcher")
	if err != nil || res.Due != 1 || !res.NotPaid {
		t.Fatalf("unpaid study: %+v %v", res, err)
	}
	if err := p.Reject(ctx, cs.ID, "researcher", pid(5), "OTHER", strings.Repeat("x", 120)); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("rejecting a screen-out: %v", err)
	}
	srv.SetScreenOutCode(prolificStud, "NOCONSENT1")
	ar, err := p.Approve(ctx, cs.ID, "researcher", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ar.ScreenedOut.Moved) != 1 || srv.Status("sub5") != prolific.StatusScreenedOut {
		t.Fatalf("the review screened out %+v; sub5 is %s", ar.ScreenedOut, srv.Status("sub5"))
	}
	if _, err := p.ScreenOut(ctx, cs.ID, "researcher"); err != nil {
		t.Fatal(err)
	}
	n := srv.Calls("POST transition")
	rev, _ := p.Review(ctx, cs.ID)
	so := rev.ScreenedOut()
	if len(so) != 1 || so[0].ScreenOut != studies.ReasonConsent || so[0].ProlificStatus != prolific.StatusScreenedOut {
		t.Fatalf("review's screened out: %+v", so)
	}
	for _, r := range rev.NeverReached {
		if r.PID == pid(5) {
			t.Error("a refusal is listed as never reached")
		}
	}
	if _, err := p.ScreenOut(ctx, cs.ID, "researcher"); err != nil || srv.Calls("POST transition") != n {
		t.Fatalf("a second review sent again: %v", err)
	}
}

func TestProlificMessagesPreviewAndSendOnce(t *testing.T) {
	_, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if _, err := p.Sync(ctx, cs.ID); err != nil {
		t.Fatal(err)
	}
	body, _ := MessageTemplateBody("thanks")
	plan, err := p.PlanMessage(ctx, cs.ID, ToCompleted, "", body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(plan.Recipients, ",") != pid(1)+","+pid(2) || len(srv.Messages()) != 0 {
		t.Fatalf("recipients %v; %d sent while planning", plan.Recipients, len(srv.Messages()))
	}
	if ex, err := p.PlanMessage(ctx, cs.ID, ToExcluded, "", "x"); err != nil || len(ex.Recipients) != 1 || ex.Recipients[0] != pid(2) {
		t.Fatalf("excluded: %+v %v", ex, err)
	}
	if un, err := p.PlanMessage(ctx, cs.ID, ToUnfinished, "", "x"); err != nil || len(un.Recipients) != 1 || un.Recipients[0] != pid(3) {
		t.Fatalf("unfinished: %+v %v", un, err)
	}
	for _, bad := range []struct{ to, pid, body, want string }{
		{ToOne, pid(9), "hello", "no submission"},
		{ToCompleted, "", "  ", "empty"},
		{"everyone", "", "hello", "unknown selection"},
	} {
		if _, err := p.PlanMessage(ctx, cs.ID, bad.to, bad.pid, bad.body); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if err := p.SendMessage(ctx, cs.ID, "researcher", plan); err != nil {
		t.Fatal(err)
	}
	if err := p.SendMessage(ctx, cs.ID, "researcher", plan); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("the same plan again: %v", err)
	}
	one, _ := p.PlanMessage(ctx, cs.ID, ToOne, strings.ToUpper(pid(1)), "A question")
	if err := p.SendMessage(ctx, cs.ID, "researcher", one); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages()
	if len(msgs) != 2 || len(msgs[0].Recipients) != 2 || msgs[0].Body != body || msgs[1].Recipients[0] != pid(1) {
		t.Fatalf("messages %+v", msgs)
	}
	if srv.Calls("POST bulk-message") != 1 || srv.Calls("POST message") != 1 {
		t.Fatal("wrong endpoints")
	}
}

func TestProlificHooksSubscribeOnceAndRemove(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if _, err := p.Subscribe(ctx, cs.ID, "researcher", "http://example.org"); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("http target: %v", err)
	}
	made, err := p.Subscribe(ctx, cs.ID, "researcher", "https://lab.example.org/")
	if err != nil || len(made) != 2 {
		t.Fatalf("subscribe: %+v %v", made, err)
	}
	again, err := p.Subscribe(ctx, cs.ID, "researcher", "https://lab.example.org")
	if err != nil || len(again) != 0 {
		t.Fatalf("subscribing again created %d", len(again))
	}
	subs := srv.Subscriptions()
	for _, s := range subs {
		if s["target_url"] != "https://lab.example.org/webhooks/prolific" || s["is_enabled"] != true || s["workspace_id"] != prolifictest.WorkspaceID {
			t.Fatalf("subscription %+v", s)
		}
	}
	list, err := p.ListHooks(ctx, cs.ID)
	if err != nil || len(list.Subscriptions) != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
	if err := p.Unsubscribe(ctx, cs.ID, "researcher", made[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := p.Unsubscribe(ctx, cs.ID, "researcher", made[0].ID); err != nil {
		t.Fatalf("removing it again: %v", err)
	}
	kept, _ := db.HookSubscriptions(ctx, cs.ID)
	if len(srv.Subscriptions()) != 1 || len(kept) != 1 || kept[0].ID != made[1].ID {
		t.Fatalf("after removal: %d on Prolific, %+v here", len(srv.Subscriptions()), kept)
	}
}

// TestProlificPollingOnlyWhileNoDelivery: the sync loop's fallback rule.
func TestProlificPollingOnlyWhileNoDelivery(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at    time.Time
		fresh bool
	}{{time.Time{}, false}, {now.Add(-9 * time.Minute), true}, {now.Add(-11 * time.Minute), false}} {
		if got := HookFresh(domain.ProlificLink{HookAt: c.at}, now); got != c.fresh {
			t.Errorf("delivery at %v: fresh %v, want %v", c.at, got, c.fresh)
		}
	}
}

// TestProlificTrainingScreenOutMovedAtReview: a participant screened out
// by the training is listed with why and moved to SCREENED OUT.
func TestProlificTrainingScreenOutMovedAtReview(t *testing.T) {
	db, cs, srv, p := readyStudy(t)
	ctx := context.Background()
	if err := studies.OpenStudy(ctx, db, cs.ID, "researcher"); err != nil {
		t.Fatal(err)
	}
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	set.ScreenOutCode = "TRAINFAIL"
	if err := db.SaveCrowdSettings(ctx, cs.ID, set); err != nil {
		t.Fatal(err)
	}
	part, err := db.EnterCrowd(ctx, cs.ID, store.CrowdArrival{PID: pid(7), StudyID: prolificStud, SessionID: "sub7"}, set)
	if err != nil {
		t.Fatal(err)
	}
	if part, err = db.ConsentCrowd(ctx, cs.ID, part.Token, set); err != nil {
		t.Fatal(err)
	}
	for attempt := range 2 {
		if _, err := db.AnswerCrowdTraining(ctx, cs.ID, part.Token, 1, attempt, 1, 0, set); err != nil {
			t.Fatal(err)
		}
	}
	srv.AddSubmission(prolificStud, "sub7", pid(7), "AWAITING REVIEW")
	srv.SetScreenOutCode(prolificStud, "TRAINFAIL")
	res, err := p.ScreenOut(ctx, cs.ID, "researcher")
	if err != nil || len(res.Moved) != 1 || srv.Status("sub7") != prolific.StatusScreenedOut {
		t.Fatalf("screen-out %+v %v; sub7 is %s", res, err, srv.Status("sub7"))
	}
	rev, _ := p.Review(ctx, cs.ID)
	if so := rev.ScreenedOut(); len(so) != 1 || so[0].ScreenOut != studies.ReasonTraining {
		t.Fatalf("screened out: %+v", so)
	}
	calls, _ := db.ProlificCalls(ctx, cs.ID)
	if len(calls) != 1 || calls[0].Kind != domain.CallScreenOut || calls[0].State != domain.CallDone || !strings.Contains(calls[0].Request, "TRAINFAIL") {
		t.Fatalf("recorded: %+v", calls)
	}
}
