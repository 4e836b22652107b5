package studies

import (
	"context"
	"errors"
	"testing"

	"pragmalab/domain"
)

func TestExplainSession(t *testing.T) {
	db, s := explainFixture(t)
	ctx := context.Background()
	outs := []domain.Output{{ItemKey: "22185", Strategy: "zero-shot", Model: "m", Output: "x"}, {ItemKey: "37246", Strategy: "zero-shot", Model: "m", Output: "y"}}
	if err := db.ImportOutputs(ctx, s.ID, outs); err != nil {
		t.Fatal(err)
	}
	svc := New(db, nil)
	a, n, err := svc.InviteExplainExpert(ctx, s, "Giulia")
	if err != nil || n != 2 {
		t.Fatalf("invited with %d screens, %v; want 2", n, err)
	}
	open := func() *ExplainSession {
		t.Helper()
		in, err := svc.Invitation(ctx, a.Token)
		if err != nil {
			t.Fatal(err)
		}
		x, err := in.ExplainSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x := open()
	if x.Len() != 2 || x.Next() != 1 || x.Rated() != 0 {
		t.Fatalf("new session: %d screens, next %d, %d rated", x.Len(), x.Next(), x.Rated())
	}
	for _, j := range []int{0, len(domain.Judgments) + 1} {
		if _, err := x.Answer(ctx, 1, j, 0, domain.Integrity{}); !errors.Is(err, ErrNoJudgment) {
			t.Fatalf("judgment %d: %v; want ErrNoJudgment", j, err)
		}
	}
	// Skipping screen 1: after the last, back to the one left unrated.
	if next, err := x.Answer(ctx, 2, 4, 0, domain.Integrity{}); err != nil || next != 1 {
		t.Fatalf("rate 2: next %d, %v; want 1", next, err)
	}
	if next, err := x.Answer(ctx, 1, 1, 0, domain.Integrity{}); err != nil || next != 2 {
		t.Fatalf("rate 1: next %d, %v; want 2", next, err)
	}
	// Rating again replaces the judgment.
	if _, err := x.Answer(ctx, 1, 3, 0, domain.Integrity{}); err != nil {
		t.Fatal(err)
	}
	x = open()
	if x.Rated() != 2 || x.Next() != 0 || x.Screen(1).Judgment != domain.Judgments[2] || x.Screen(2).Judgment != domain.Judgments[3] {
		t.Fatalf("reopened: %d rated, next %d, judgments %q, %q", x.Rated(), x.Next(), x.Screen(1).Judgment, x.Screen(2).Judgment)
	}
	// An explanation link opens no context survey.
	in, _ := svc.Invitation(ctx, a.Token)
	if _, err := in.ContextAssignments(ctx); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("context surveys from an explanation link: %v", err)
	}
}
