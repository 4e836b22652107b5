package studies

import (
	"context"
	"testing"

	"pragmalab/domain"
)

func TestContextSession(t *testing.T) {
	// 22185 has five sentences (four before the target); 14739 six.
	db, _, a, asg := contextFixture(t, "22185", "14739")
	ctx := context.Background()
	svc := New(db, nil)
	open := func() *ContextSession {
		t.Helper()
		in, err := svc.Invitation(ctx, a.Token)
		if err != nil {
			t.Fatal(err)
		}
		c, err := in.ContextSession(ctx, asg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := open()
	if c.Len() != 2 || c.Next() != 1 || c.Answered() != 0 {
		t.Fatalf("new survey: %d questions, next %d, %d answered", c.Len(), c.Next(), c.Answered())
	}
	// The study's limit (5) is cut to the sentences the passage has.
	if c.MaxShown(1) != 4 || c.MaxShown(2) != 5 {
		t.Errorf("max shown %d, %d; want 4, 5", c.MaxShown(1), c.MaxShown(2))
	}
	if _, err := c.Act(ctx, 1, -1, domain.ContextMore, 0, domain.Integrity{}); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("a form without what it showed: %v", err)
	}
	// "More" keeps the question open, one sentence further.
	if next, err := c.Act(ctx, 1, 0, domain.ContextMore, 0, domain.Integrity{}); err != nil || next != 1 || c.Question(1).Shown != 1 {
		t.Fatalf("more: next %d, shown %d, %v; want 1, 1", next, c.Question(1).Shown, err)
	}
	// The second click of a double click changes nothing.
	if next, err := c.Act(ctx, 1, 0, domain.ContextMore, 0, domain.Integrity{}); err != nil || next != 1 || c.Question(1).Shown != 1 {
		t.Fatalf("outdated more: next %d, shown %d, %v; want 1, 1", next, c.Question(1).Shown, err)
	}
	// Skipping question 1: after the last, back to the one still open.
	if next, err := c.Act(ctx, 2, 0, domain.ContextSufficient, 0, domain.Integrity{}); err != nil || next != 1 {
		t.Fatalf("sufficient on the last: next %d, %v; want 1", next, err)
	}
	if next, err := c.Act(ctx, 1, 1, domain.ContextSufficient, 0, domain.Integrity{}); err != nil || next != 2 {
		t.Fatalf("sufficient on 1: next %d, %v; want 2", next, err)
	}
	c = open()
	if c.Answered() != 2 || c.Next() != 0 || c.Question(1).Sufficient != "yes" || c.Question(1).Shown != 1 {
		t.Fatalf("reopened: %d answered, next %d, question 1 %+v", c.Answered(), c.Next(), c.Question(1))
	}
	// A context link opens no rating screens.
	in, _ := svc.Invitation(ctx, a.Token)
	if _, err := in.ExplainSession(ctx); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("rating screens from a context link: %v", err)
	}
}
