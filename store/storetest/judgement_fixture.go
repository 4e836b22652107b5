package storetest

import (
	"context"
	"fmt"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
)

// JudgementFixture is a judgement study (docs/studies.md#judgement-study)
// of two conditions of its own naming, kontrolle and zielsatz, on a
// 5-point scale: Items minimal pairs in a Latin square of two batches
// (each item once per batch, each condition equally often) and one high and
// one low attention check per batch, for the tests of the services that
// analyse or score one (studies, handlers, comparisons).
type JudgementFixture struct {
	DB    *store.DB
	ID    int64
	Set   domain.CrowdSettings
	Items int
	n     int
}

// JudgementQuestion is the fixture's question above the scale.
const JudgementQuestion = "Wie natürlich klingt dieser Satz?"

// JudgementConditions are the fixture's conditions, in their declared order.
var JudgementConditions = []string{"kontrolle", "zielsatz"}

// NewJudgementFixture opens a database with the fixture's study of items
// minimal pairs (at least 2).
func NewJudgementFixture(t testing.TB, items int) *JudgementFixture {
	t.Helper()
	return JudgementFixtureOn(t, Open(t), items)
}

// JudgementFixtureOn creates the fixture's study in db (a server's own
// database, say).
func JudgementFixtureOn(t testing.TB, db *store.DB, items int) *JudgementFixture {
	t.Helper()
	ctx := context.Background()
	st := &domain.Study{Kind: domain.KindJudgement, Name: "Akzeptabilität", Lang: "de"}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	var its []domain.Item
	for i := range items {
		its = append(its, domain.Item{Key: fmt.Sprintf("s%02d", i+1), Type: domain.TypeJudgement, Variants: map[string]domain.Variant{
			"kontrolle": {Sentence: fmt.Sprintf("Der Satz %d ist ganz normal.", i+1)},
			"zielsatz":  {Context: "Im Garten.", Sentence: fmt.Sprintf("Den Satz %d hat der Gärtner gesehen.", i+1)},
		}})
	}
	its = append(its,
		domain.Item{Key: "chk-high", Type: domain.TypeJudgement, Check: "high", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Die Sonne scheint."}}},
		domain.Item{Key: "chk-low", Type: domain.TypeJudgement, Check: "low", Variants: map[string]domain.Variant{"zielsatz": {Sentence: "Sonne die scheint der."}}})
	id := importItems(t, db, st.ID, its)
	var batches [][]store.CrowdSlot
	for b := range 2 {
		var slots []store.CrowdSlot
		for i := range items {
			slots = append(slots, store.CrowdSlot{ItemID: id[fmt.Sprintf("s%02d", i+1)], Condition: JudgementConditions[(i+b)%2]})
		}
		slots = append(slots, store.CrowdSlot{ItemID: id["chk-low"], Condition: "zielsatz"}, store.CrowdSlot{ItemID: id["chk-high"], Condition: "kontrolle"})
		batches = append(batches, slots)
	}
	if err := db.SaveCrowdBatches(ctx, st.ID, 1, nil, batches); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultJudgementSettings()
	set.Conditions = append([]string(nil), JudgementConditions...)
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax, set.MaxFailedChecks, set.Quota = 5, 4, 2, 2, 20
	set.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	set.Question = JudgementQuestion
	set.CompletionCode = "FERTIG1"
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	_, set, err := db.CrowdStudy(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	return &JudgementFixture{DB: db, ID: st.ID, Set: set, Items: items}
}

// Complete has one more participant finish a batch, rating each screen
// with rate(item key, condition) (the checks too: their keys are chk-high
// and chk-low); it returns the participant's Prolific id.
func (f *JudgementFixture) Complete(t testing.TB, rate func(item, condition string) int) string {
	t.Helper()
	ctx := context.Background()
	f.n++
	pid := fmt.Sprintf("%024d", f.n)
	p, err := f.DB.EnterCrowd(ctx, f.ID, store.CrowdArrival{PID: pid, StudyID: "st", SessionID: fmt.Sprint("se", f.n)}, f.Set)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = f.DB.ConsentCrowd(ctx, f.ID, p.Token, f.Set); err != nil {
		t.Fatal(err)
	}
	screens, err := f.DB.CrowdBatchScreens(ctx, p.BatchID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range screens {
		if _, err := f.DB.SaveCrowdRating(ctx, f.ID, p.Token, sc.Position, rate(sc.Item.Key, sc.Condition), 0, f.Set); err != nil {
			t.Fatal(err)
		}
	}
	return pid
}

// CompleteAttentive has one more participant finish a batch who passes
// both attention checks (5 on chk-high, 1 on chk-low) and rates the data
// screens with rate(the item's number, its condition); it returns the
// participant's Prolific id.
func (f *JudgementFixture) CompleteAttentive(t testing.TB, rate func(item int, condition string) int) string {
	t.Helper()
	return f.Complete(t, func(item, cond string) int {
		switch item {
		case "chk-high":
			return 5
		case "chk-low":
			return 1
		}
		var n int
		if _, err := fmt.Sscanf(item, "s%d", &n); err != nil {
			t.Fatalf("fixture item %q: %v", item, err)
		}
		return rate(n, cond)
	})
}
