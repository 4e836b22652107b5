package storetest

import (
	"context"
	"fmt"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
)

// CrowdFixture is a crowd study of two batches (four items and two checks
// each) and its settings, for the tests of the services that analyse one
// (studies, comparisons).
type CrowdFixture struct {
	DB  *store.DB
	ID  int64
	Set domain.CrowdSettings
	n   int
}

// NewCrowdFixture opens a database with the fixture's study.
func NewCrowdFixture(t testing.TB) *CrowdFixture {
	t.Helper()
	ctx := context.Background()
	db := Open(t)
	st := &domain.Study{Kind: domain.KindCrowd, Name: "Crowd", Lang: "en"}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	var items []domain.Item
	for i, typ := range domain.ItemTypes {
		items = append(items, domain.Item{Key: fmt.Sprintf("%c1", 'A'+i), Type: typ, Utterance: "u", Implicature: "b", Cancellation: "x"})
	}
	items = append(items,
		domain.Item{Key: "T1", Type: "scalar", Utterance: "u", Implicature: "b", Cancellation: "x"},
		domain.Item{Key: "chk-high", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "high"},
		domain.Item{Key: "chk-low", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "low"})
	id := importItems(t, db, st.ID, items)
	var batches [][]store.CrowdSlot
	for b := range 2 {
		var slots []store.CrowdSlot
		for i := range domain.ItemTypes {
			slots = append(slots, store.CrowdSlot{ItemID: id[fmt.Sprintf("%c1", 'A'+i)], Condition: []string{"trigger", "cancel"}[(i+b)%2]})
		}
		slots = append(slots, store.CrowdSlot{ItemID: id["chk-low"], Condition: "trigger"}, store.CrowdSlot{ItemID: id["chk-high"], Condition: "trigger"})
		batches = append(batches, slots)
	}
	if err := db.SaveCrowdBatches(ctx, st.ID, 1, []store.CrowdSlot{{ItemID: id["T1"], Condition: "trigger"}}, batches); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode = "DONE1"
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	return &CrowdFixture{DB: db, ID: st.ID, Set: set}
}

// Complete has one more participant finish a batch, rating trigger screens
// trig, cancel screens canc and the checks lo and hi; it returns the
// participant's row id.
func (f *CrowdFixture) Complete(t testing.TB, trig, canc, lo, hi int) int64 {
	t.Helper()
	ctx := context.Background()
	f.n++
	p, err := f.DB.EnterCrowd(ctx, f.ID, store.CrowdArrival{PID: fmt.Sprintf("%024d", f.n), StudyID: "st", SessionID: fmt.Sprint("se", f.n)}, f.Set)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = f.DB.ConsentCrowd(ctx, f.ID, p.Token, f.Set); err != nil {
		t.Fatal(err)
	}
	if _, err := f.DB.AnswerCrowdTraining(ctx, f.ID, p.Token, 1, 0, 6, 0, f.Set); err != nil {
		t.Fatal(err)
	}
	screens, err := f.DB.CrowdBatchScreens(ctx, p.BatchID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range screens {
		r := trig
		switch {
		case sc.Item.Check == "low":
			r = lo
		case sc.Item.Check == "high":
			r = hi
		case sc.Condition == "cancel":
			r = canc
		}
		if _, err := f.DB.SaveCrowdRating(ctx, f.ID, p.Token, sc.Position, r, 0, f.Set); err != nil {
			t.Fatal(err)
		}
	}
	return p.ID
}

// importItems imports items into study studyID and returns each one's row
// id by its key, for the fixtures' batches.
func importItems(t testing.TB, db *store.DB, studyID int64, items []domain.Item) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	if err := db.ImportItems(ctx, studyID, items); err != nil {
		t.Fatal(err)
	}
	stored, err := db.ListItems(ctx, studyID)
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]int64{}
	for _, it := range stored {
		id[it.Key] = it.ID
	}
	return id
}
