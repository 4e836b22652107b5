package seed

import (
	"context"
	"fmt"
	"pragmalab/domain"
	"pragmalab/store"
	"testing"
)

// TestCrowdAnswerRows: the load benchmark's read-back lists a participant
// who has answered nothing yet, not completed, with no rating.
func TestCrowdAnswerRows(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	svc := New(db)
	st := &domain.Study{Kind: domain.KindCrowd, Name: "crowd", Lang: "en", Seed: 1}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode, set.BatchSize = "CODE", 8
	var items []domain.Item
	for i := range 8 + 6 {
		items = append(items, domain.Item{Key: fmt.Sprintf("i%02d", i), Type: domain.ItemTypes[i%4], Context: "S1: Hi.",
			Utterance: fmt.Sprintf("S2: Task %d is waiting.", i), Implicature: fmt.Sprintf("Do task %d.", i), Cancellation: "S2: It is done though."})
	}
	for i := range 4 {
		items = append(items, domain.Item{Key: fmt.Sprintf("check%d", i), Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x",
			Check: map[bool]string{true: "high", false: "low"}[i%2 == 0]})
	}
	if _, err := svc.SeedCrowdStudy(ctx, st, items, set); err != nil {
		t.Fatal(err)
	}
	training, err := svc.CrowdTrainingConditions(ctx, st.ID)
	if err != nil || len(training) != 6 {
		t.Fatalf("training %v, %v; want the 6 screens", training, err)
	}
	for _, c := range training {
		if c != domain.ConditionTrigger && c != domain.ConditionCancel {
			t.Fatalf("training conditions %v: want trigger or cancel", training)
		}
	}
	p, err := db.EnterCrowd(ctx, st.ID, store.CrowdArrival{PID: "5f0c1a2b3c4d5e6f7a8b9c0d", StudyID: "s", SessionID: "x"}, set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ConsentCrowd(ctx, st.ID, p.Token, set); err != nil {
		t.Fatal(err)
	}
	rows, err := svc.CrowdAnswerRows(ctx, st.ID)
	if err != nil || len(rows) != 1 || rows[0].PID != "5f0c1a2b3c4d5e6f7a8b9c0d" || rows[0].Completed || rows[0].Position != nil {
		t.Fatalf("rows %+v, %v; want the one participant, no rating", rows, err)
	}
}
