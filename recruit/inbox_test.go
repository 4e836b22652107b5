package recruit

import (
	"context"
	"net/http"
	"testing"
	"time"

	"pragmalab/domain"
)

func TestInboxUnreadFirstAndOnlyTheStudys(t *testing.T) {
	_, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	p.SetClock(func() time.Time { return time.Now() })
	if _, err := p.Sync(ctx, cs.ID); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	srv.AddInbound(pid(1), prolificStud, "read, older", now.Add(-3*time.Hour), false)
	srv.AddInbound(pid(2), "", "unread, about the study by its sender", now.Add(-2*time.Hour), true)
	srv.AddInbound(pid(1), prolificStud, "read, newer", now.Add(-time.Hour), false)
	srv.AddInbound("65ffffffffffffffffffffff", "66ffffffffffffffffffffff", "another study", now, true)
	srv.AddInbound(pid(1), prolificStud, "too old", now.AddDate(0, 0, -40), false)
	got, err := p.Inbox(ctx, cs.ID)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, m := range got {
		bodies = append(bodies, m.Body)
	}
	want := []string{"unread, about the study by its sender", "read, newer", "read, older"}
	if len(bodies) != len(want) || bodies[0] != want[0] || bodies[1] != want[1] || bodies[2] != want[2] || !got[0].Unread || got[1].Unread {
		t.Errorf("inbox %q, want %q", bodies, want)
	}
}

func TestTestParticipantCreatedOnce(t *testing.T) {
	_, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if _, err := p.CreateTestParticipant(ctx, cs.ID, "alice", "not an email"); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("bad email: %v", err)
	}
	id, err := p.CreateTestParticipant(ctx, cs.ID, "alice", "alice@lab.example")
	if err != nil || id == "" {
		t.Fatalf("created %q (%v)", id, err)
	}
	again, err := p.CreateTestParticipant(ctx, cs.ID, "alice", "alice@lab.example")
	if err != nil || again != id || len(srv.TestParticipants()) != 1 {
		t.Errorf("again: %q (%v), %d created", again, err, len(srv.TestParticipants()))
	}
	srv.Fail("POST test-participant", http.StatusInternalServerError, "boom")
	if _, err := p.CreateTestParticipant(ctx, cs.ID, "alice", "bob@lab.example"); err == nil {
		t.Fatal("a 5xx created a participant")
	}
	srv.Fail("POST test-participant", 0, "")
	if _, err := p.CreateTestParticipant(ctx, cs.ID, "alice", "bob@lab.example"); domain.ErrorCode(err) != domain.ECONFLICT || srv.Calls("POST test-participant") != 2 {
		t.Errorf("after a lost answer: %v, %d calls", err, srv.Calls("POST test-participant"))
	}
}
