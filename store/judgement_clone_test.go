package store

import (
	"context"
	"reflect"
	"testing"

	"pragmalab/domain"
)

// TestCloneJudgementStudy: a clone of a judgement study keeps its kind,
// its settings, its items' texts by condition and their check and
// practice marks (docs/studies.md#managing-studies): a clone that lost the
// variants would have items with no sentence to show.
func TestCloneJudgementStudy(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	st := &domain.Study{Kind: domain.KindJudgement, Name: "Akzeptabilität", Lang: "de", Seed: 3}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultJudgementSettings()
	set.Conditions = []string{"kontrolle", "zielsatz"}
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 5, 4, 2
	set.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	items := []domain.Item{
		{Key: "1", Type: domain.TypeJudgement, Variants: map[string]domain.Variant{
			"kontrolle": {Context: "In der Küche:", Sentence: "Der Koch hat die Suppe versalzen."},
			"zielsatz":  {Sentence: "Der Koch hat die Suppe versalzt."}}},
		{Key: "chk", Type: domain.TypeJudgement, Check: "low", Variants: map[string]domain.Variant{"zielsatz": {Sentence: "Tag am der."}}},
		{Key: "p1", Type: domain.TypeJudgement, Training: "4-5", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Das Kind spielt."}}},
	}
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	clone, err := db.CloneStudy(ctx, st.ID, "Akzeptabilität, zweiter Lauf")
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.Study(ctx, clone.ID)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := db.Study(ctx, st.ID)
	if again.Kind != domain.KindJudgement || string(again.Settings) != string(orig.Settings) {
		t.Errorf("clone: kind %q, settings %s; want judgement, %s", again.Kind, again.Settings, orig.Settings)
	}
	got, err := db.ListItems(ctx, clone.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(items) {
		t.Fatalf("clone has %d items, want %d", len(got), len(items))
	}
	for i, it := range got {
		want := items[i]
		if it.Key != want.Key || it.Type != want.Type || it.Check != want.Check || it.Training != want.Training || !reflect.DeepEqual(it.Variants, want.Variants) {
			t.Errorf("cloned item %d: %+v, want %+v", i, it, want)
		}
	}
}
