package studies

import (
	"context"
	"fmt"
	"testing"

	"pragmalab/domain"
)

// expertSessionFixture makes an expert study of three items (two scalar,
// then one natural) in one batch given to two experts, and returns the
// service and the experts' tokens.
func expertSessionFixture(t *testing.T) (*Service, *domain.Study, []string) {
	t.Helper()
	db := mustOpenDB(t)
	ctx := context.Background()
	st := &domain.Study{Kind: domain.KindExpert, Name: "experts", Lang: "en"}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	var items []domain.Item
	for i, typ := range []string{domain.TypeScalar, domain.TypeScalar, domain.TypeNatural} {
		items = append(items, domain.Item{Key: fmt.Sprintf("it%d", i), Type: typ, Utterance: "u", Implicature: "b", Cancellation: "x"})
	}
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	stored, err := db.ListItems(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SaveBatches(ctx, st.ID, [][]int64{{stored[0].ID, stored[1].ID, stored[2].ID}}); err != nil {
		t.Fatal(err)
	}
	bs, err := db.Batches(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var tokens []string
	for _, name := range []string{"Ada", "Bea"} {
		a, err := db.CreateAnnotator(ctx, st.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		ids, tokens = append(ids, a.ID), append(tokens, a.Token)
	}
	if err := db.AssignRound1(ctx, st.ID, bs[0].ID, ids); err != nil {
		t.Fatal(err)
	}
	return New(db, nil), st, tokens
}

func openExpertSession(t *testing.T, svc *Service, token string) (*Invitation, *ExpertSession) {
	t.Helper()
	ctx := context.Background()
	in, err := svc.Invitation(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	as, err := in.ExpertAssignments(ctx)
	if err != nil || len(as) != 1 {
		t.Fatalf("assignments %+v, %v; want one", as, err)
	}
	e, err := in.ExpertSession(ctx, as[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return in, e
}

func TestExpertSession(t *testing.T) {
	svc, _, tokens := expertSessionFixture(t)
	ctx := context.Background()
	_, e := openExpertSession(t, svc, tokens[0])
	if e.Len() != 3 || e.Next() != 1 || e.Answered() != 0 {
		t.Fatalf("new session: %d screens, next %d, %d answered", e.Len(), e.Next(), e.Answered())
	}
	// Each type's instructions come before its first screen in a row.
	if !e.NeedsIntro(1) || e.NeedsIntro(2) || !e.NeedsIntro(3) {
		t.Errorf("intros at 1, 2, 3: %v %v %v; want true false true", e.NeedsIntro(1), e.NeedsIntro(2), e.NeedsIntro(3))
	}
	if _, err := e.Answer(ctx, 1, domain.Judgement{Plausible: "maybe"}); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("invalid judgement: %v", err)
	}
	if e.Answered() != 0 {
		t.Fatal("an invalid judgement counted as an answer")
	}
	yes := domain.Judgement{Plausible: "yes", CancellationCorrect: "yes"}
	if next, err := e.Answer(ctx, 1, yes); err != nil || next != 2 {
		t.Fatalf("answer 1: next %d, %v; want 2", next, err)
	}
	// Skipping screen 2: after the last, back to the one left open.
	if next, err := e.Answer(ctx, 3, domain.Judgement{Plausible: "no"}); err != nil || next != 2 {
		t.Fatalf("answer 3: next %d, %v; want 2 (skipped)", next, err)
	}
	if next, err := e.Answer(ctx, 2, yes); err != nil || next != 3 {
		t.Fatalf("answer 2: next %d, %v; want 3", next, err)
	}
	// Opened again, the answers were committed: nothing is next.
	_, e = openExpertSession(t, svc, tokens[0])
	if e.Answered() != 3 || e.Next() != 0 || e.NeedsIntro(1) {
		t.Fatalf("reopened: %d answered, next %d, intro %v; want 3, 0, no intro", e.Answered(), e.Next(), e.NeedsIntro(1))
	}
	if a := e.Screen(3).Answer; a == nil || a.Plausible != "no" {
		t.Fatalf("screen 3's answer: %+v", a)
	}
	// The other expert's session is untouched.
	_, other := openExpertSession(t, svc, tokens[1])
	if other.Answered() != 0 {
		t.Fatalf("the other expert has %d answers", other.Answered())
	}
}

func TestInvitationRefusals(t *testing.T) {
	svc, st, tokens := expertSessionFixture(t)
	ctx := context.Background()
	if _, err := svc.Invitation(ctx, "forged"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("unknown token: %v", err)
	}
	in, _ := openExpertSession(t, svc, tokens[0])
	_, mine := openExpertSession(t, svc, tokens[1])
	// Editing the URL cannot open another expert's batch.
	if _, err := in.ExpertSession(ctx, mine.Assignment.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("another expert's batch: %v", err)
	}
	// An expert study's link opens no survey nor rating screens.
	if _, err := in.ContextSession(ctx, mine.Assignment.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a context survey from an expert link: %v", err)
	}
	if _, err := in.ExplainSession(ctx); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("rating screens from an expert link: %v", err)
	}
	// A study not yet open takes answers only from its pilot testers.
	if in.Closed() || !in.Unavailable() {
		t.Fatalf("draft study: closed %v, unavailable %v; want false, true", in.Closed(), in.Unavailable())
	}
	p, err := svc.db.PilotAnnotator(ctx, st, 0)
	if err != nil {
		t.Fatal(err)
	}
	pin, err := svc.Invitation(ctx, p.Token)
	if err != nil {
		t.Fatal(err)
	}
	if pin.Unavailable() {
		t.Fatal("the pilot tester cannot enter the draft study")
	}
}
