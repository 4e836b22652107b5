package prolifictest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"pragmalab/domain"
	"pragmalab/store"
)

// planItems is the plan study's items: enough that the items' own share of
// an interval leaves room for more participants to narrow it.
const planItems = 384

// SeedPlanStudy creates a crowd study of 384 scalar items in 4 batches of
// 24 (plus a high and a low check) that 16 participants completed: each
// item has its own true rating and participants rate it with much noise,
// so more participants narrow the intervals — a study to plan from
// (docs/prolific.md#plan). Its places quota is 10 per batch.
func SeedPlanStudy(ctx context.Context, db *store.DB) (*domain.Study, error) {
	st := &domain.Study{Kind: domain.KindCrowd, Name: "Plan test", Lang: "en"}
	if err := db.CreateStudy(ctx, st); err != nil {
		return nil, err
	}
	var items []domain.Item
	for i := range planItems {
		items = append(items, domain.Item{Key: fmt.Sprintf("it%03d", i), Type: domain.TypeScalar, Utterance: fmt.Sprintf("u%d", i),
			Implicature: fmt.Sprintf("b%d", i), Cancellation: fmt.Sprintf("c%d", i)})
	}
	items = append(items, domain.Item{Key: "chk-high", Type: domain.TypeSynthetic, Utterance: "u", Implicature: "b", Cancellation: "x", Check: "high"},
		domain.Item{Key: "chk-low", Type: domain.TypeSynthetic, Utterance: "u", Implicature: "b", Cancellation: "x", Check: "low"})
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		return nil, err
	}
	stored, err := db.ListItems(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	id := map[string]int64{}
	for _, it := range stored {
		id[it.Key] = it.ID
	}
	batches := planBatches(id)
	if err := db.SaveCrowdBatches(ctx, st.ID, 1, nil, batches); err != nil {
		return nil, err
	}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode, set.Quota, set.PlacesPerAddress = "DONE", 10, 0
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(3, 4))
	// Each item has its own true rating; participants rate it with much
	// noise, so that more participants narrow the intervals.
	truth := map[string]float64{}
	for i := range planItems {
		truth[fmt.Sprintf("it%03d", i)] = 2 + 4*rng.Float64()
	}
	for p := range 16 {
		if err := planParticipant(ctx, db, st.ID, p, set, truth, rng); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// planBatches puts the 384 items in 4 batches of 96, conditions
// alternating, each with the two checks.
func planBatches(id map[string]int64) [][]store.CrowdSlot {
	var batches [][]store.CrowdSlot
	for b := range 4 {
		var slots []store.CrowdSlot
		for i := range planItems {
			cond := "trigger"
			if (i+b)%2 == 1 {
				cond = "cancel"
			}
			if i%4 == b {
				slots = append(slots, store.CrowdSlot{ItemID: id[fmt.Sprintf("it%03d", i)], Condition: cond})
			}
		}
		slots = append(slots, store.CrowdSlot{ItemID: id["chk-high"], Condition: "trigger"}, store.CrowdSlot{ItemID: id["chk-low"], Condition: "trigger"})
		batches = append(batches, slots)
	}
	return batches
}

// planParticipant is participant p completing their batch.
func planParticipant(ctx context.Context, db *store.DB, studyID int64, p int, set domain.CrowdSettings, truth map[string]float64, rng *rand.Rand) error {
	part, err := db.EnterCrowd(ctx, studyID, store.CrowdArrival{PID: PID(100 + p), StudyID: "x", SessionID: fmt.Sprint("s", p)}, set)
	if err != nil {
		return err
	}
	if part, err = db.ConsentCrowd(ctx, studyID, part.Token, set); err != nil {
		return err
	}
	screens, err := db.CrowdBatchScreens(ctx, part.BatchID)
	if err != nil {
		return err
	}
	for _, sc := range screens {
		mean := truth[sc.Item.Key]
		if sc.Condition == "cancel" {
			mean -= 1.5
		}
		r := min(7, max(1, int(math.Round(mean+2*rng.NormFloat64()))))
		switch sc.Item.Key {
		case "chk-high":
			r = 7
		case "chk-low":
			r = 1
		}
		if _, err := db.SaveCrowdRating(ctx, studyID, part.Token, sc.Position, r, 0, set); err != nil {
			return err
		}
	}
	return nil
}
