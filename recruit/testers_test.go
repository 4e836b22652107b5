package recruit

import (
	"context"
	"testing"

	"pragmalab/store"
)

// A Prolific test participant created from pragmalab is kept apart as a
// pilot session is: no place taken, left out of the live exports and
// analyses, counted with the pilot data and wiped with it.
func TestTestParticipantKeptApartAsPilot(t *testing.T) {
	db, cs, _, p := prolificFixture(t)
	ctx := context.Background()
	id, err := p.CreateTestParticipant(ctx, cs.ID, "alice", "alice@lab.example")
	if err != nil || id == "" {
		t.Fatalf("test participant %q: %v", id, err)
	}
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	before, _ := db.CrowdParticipants(ctx, cs.ID, set)
	ratingsBefore, _ := db.RatingRows(ctx, cs.ID, false)
	e, err := db.EnterCrowd(ctx, cs.ID, store.CrowdArrival{PID: id, StudyID: prolificStud, SessionID: "test-session"}, set)
	if err != nil {
		t.Fatal(err)
	}
	part, err := db.ConsentCrowd(ctx, cs.ID, e.Token, set)
	if err != nil {
		t.Fatal(err)
	}
	if !part.Pilot {
		t.Fatalf("the test participant's session is not a pilot session: %+v", part)
	}
	screens, err := db.CrowdBatchScreens(ctx, part.BatchID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range screens {
		if _, err := db.SaveCrowdRating(ctx, cs.ID, part.Token, sc.Position, 5, 0, set); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := db.CrowdParticipants(ctx, cs.ID, set)
	ratingsAfter, _ := db.RatingRows(ctx, cs.ID, false)
	if len(after) != len(before) || len(ratingsAfter) != len(ratingsBefore) {
		t.Errorf("the test participant is in the live data: %d→%d participants, %d→%d ratings", len(before), len(after), len(ratingsBefore), len(ratingsAfter))
	}
	withPilot, _ := db.RatingRows(store.IncludePilot(ctx), cs.ID, false)
	if len(withPilot) != len(ratingsBefore)+len(screens) {
		t.Errorf("with the pilot data: %d ratings, want %d", len(withPilot), len(ratingsBefore)+len(screens))
	}
	if s, _ := db.PilotSummary(ctx, cs.ID); s.Sessions != 1 {
		t.Errorf("pilot summary %+v", s)
	}
	// Someone else arriving is a live participant as before.
	other, err := db.EnterCrowd(ctx, cs.ID, store.CrowdArrival{PID: "60bbbbbbbbbbbbbbbbbbbbbb", StudyID: prolificStud, SessionID: "s9"}, set)
	if err != nil {
		t.Fatal(err)
	}
	if op, err := db.ConsentCrowd(ctx, cs.ID, other.Token, set); err != nil || op.Pilot {
		t.Errorf("a live participant: %+v (%v)", op, err)
	}
	if n, err := db.WipePilot(ctx, cs.ID); err != nil || n != len(screens) {
		t.Errorf("wipe: %d (%v)", n, err)
	}
}
