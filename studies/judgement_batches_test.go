package studies

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
)

// judgementStudySettings is the German 5-point design of
// docs/studies.md#judgement-study: two conditions of the researcher's own
// naming, both ends labelled.
func judgementStudySettings() domain.CrowdSettings {
	s := domain.DefaultJudgementSettings()
	s.Conditions = []string{"kontrolle", "zielsatz"}
	s.ScalePoints = 5
	s.CheckHighMin, s.CheckLowMax = 4, 2
	s.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	s.BatchSize = 12
	return s
}

// judgementItems are 24 minimal pairs, a check in each condition and two
// practice items, one with a range and one without.
func judgementItems() []domain.Item {
	var items []domain.Item
	for i := 1; i <= 24; i++ {
		items = append(items, domain.Item{Key: fmt.Sprintf("p%02d", i), Type: domain.TypeJudgement, Variants: map[string]domain.Variant{
			"kontrolle": {Sentence: fmt.Sprintf("Der Hund %d bellt.", i)},
			"zielsatz":  {Context: "Im Garten:", Sentence: fmt.Sprintf("Den Hund %d bellt.", i)},
		}})
	}
	items = append(items,
		domain.Item{Key: "chk-hoch", Type: domain.TypeJudgement, Check: "high", Variants: map[string]domain.Variant{"zielsatz": {Sentence: "Bitte wählen Sie 5."}}},
		domain.Item{Key: "chk-tief", Type: domain.TypeJudgement, Check: "low", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Bitte wählen Sie 1."}}},
		domain.Item{Key: "ueb-1", Type: domain.TypeJudgement, Training: "4-5", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Die Sonne scheint."}}},
		domain.Item{Key: "ueb-2", Type: domain.TypeJudgement, Training: "any", Variants: map[string]domain.Variant{"zielsatz": {Sentence: "Der Mond scheint hell."}}},
	)
	return items
}

// newJudgementStudy stores a draft judgement study with items.
func newJudgementStudy(t *testing.T, db *store.DB, s domain.CrowdSettings, items []domain.Item) *domain.Study {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	st := &domain.Study{Kind: domain.KindJudgement, Name: "Akzeptabilität", Lang: "de", Settings: raw, Seed: 11}
	ctx := context.Background()
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestJudgementBatches: the Latin square over 24 minimal pairs × the
// study's two own conditions (docs/studies.md#judgement-batches): every
// batch has each condition equally often and no item twice, every item is
// seen in both conditions across the set, each check stays in its one
// condition, and the practice items are exactly the marked ones, never
// drawn from the pairs.
func TestJudgementBatches(t *testing.T) {
	db := mustOpenDB(t)
	set := judgementStudySettings()
	st := newJudgementStudy(t, db, set, judgementItems())
	p, err := planCrowd(context.Background(), db, st.ID, set, 11)
	if err != nil {
		t.Fatal(err)
	}
	items, err := db.ListItems(context.Background(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	key := map[int64]domain.Item{}
	for _, it := range items {
		key[it.ID] = it
	}
	if p.build.Batches != 4 || p.build.Items != 24 || p.build.Checks != 2 || len(p.build.Repeated) != 0 {
		t.Fatalf("build = %+v, want 4 batches of the 24 pairs with 2 checks and nothing repeated", p.build)
	}
	seen := map[string]map[string]int{}
	for b, slots := range p.batches {
		perCond := map[string]int{}
		inBatch := map[string]bool{}
		for _, sl := range slots {
			it := key[sl.ItemID]
			if inBatch[it.Key] {
				t.Errorf("batch %d shows %s twice", b+1, it.Key)
			}
			inBatch[it.Key] = true
			switch {
			case it.Check == "high" && sl.Condition != "zielsatz", it.Check == "low" && sl.Condition != "kontrolle":
				t.Errorf("batch %d shows the check %s in %q, not its own condition", b+1, it.Key, sl.Condition)
			case it.Check != "":
				continue
			case it.Training != "":
				t.Errorf("batch %d shows the practice item %s", b+1, it.Key)
			}
			perCond[sl.Condition]++
			if seen[it.Key] == nil {
				seen[it.Key] = map[string]int{}
			}
			seen[it.Key][sl.Condition]++
		}
		if len(perCond) != 2 || perCond["kontrolle"] != perCond["zielsatz"] {
			t.Errorf("batch %d has conditions %v, want kontrolle and zielsatz equally often", b+1, perCond)
		}
		if !inBatch["chk-hoch"] || !inBatch["chk-tief"] {
			t.Errorf("batch %d lacks a check", b+1)
		}
	}
	if len(seen) != 24 {
		t.Errorf("%d pairs in the batches, want 24", len(seen))
	}
	for k, c := range seen {
		if c["kontrolle"] != 1 || c["zielsatz"] != 1 {
			t.Errorf("item %s seen %v across the set, want once in each condition", k, c)
		}
	}
	var practice []string
	for _, sl := range p.training {
		it := key[sl.ItemID]
		practice = append(practice, it.Key+"/"+sl.Condition)
	}
	if got := strings.Join(practice, " "); got != "ueb-1/kontrolle ueb-2/zielsatz" {
		t.Errorf("practice = %q, want the two marked items in their own conditions", got)
	}

	// No practice item marked: no practice, nothing drawn from the pairs.
	db2 := mustOpenDB(t)
	st2 := newJudgementStudy(t, db2, set, judgementItems()[:26])
	p2, err := planCrowd(context.Background(), db2, st2.ID, set, 11)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.training) != 0 || p2.build.Items != 24 || p2.build.TrainingFrom != TrainingNone {
		t.Errorf("without marked practice items: %d practice, %d batch items, from %q; want none drawn, all 24 batched", len(p2.training), p2.build.Items, p2.build.TrainingFrom)
	}
	if note := p2.build.TrainingNote(); !strings.Contains(note, "no practice items") {
		t.Errorf("training note %q does not say there is no practice", note)
	}
}

// TestJudgementBatchesRefuseUnfitItems: conditions renamed in the settings
// after the import leave the items without a sentence in the new one:
// planning refuses, naming the item and the condition, rather than build
// screens with nothing to rate (docs/studies.md#judgement-batches).
func TestJudgementBatchesRefuseUnfitItems(t *testing.T) {
	db := mustOpenDB(t)
	set := judgementStudySettings()
	st := newJudgementStudy(t, db, set, judgementItems())
	set.Conditions = []string{"kontrolle", "ziel"}
	_, err := planCrowd(context.Background(), db, st.ID, set, 11)
	if err == nil || !strings.Contains(err.Error(), `"zielsatz", which the study does not declare`) {
		t.Fatalf("planning with a renamed condition: %v", err)
	}
}

// TestJudgementChecklist: a judgement study opens only with what its
// participants need, each missing piece named (docs/studies.md#study-states):
// here the completion code, and the screen-out code its practice
// screen-out gives, and a practice range the 5-point scale cannot hold.
func TestJudgementChecklist(t *testing.T) {
	db := mustOpenDB(t)
	set := judgementStudySettings()
	set.PracticeScreenOut = 2
	items := judgementItems()
	items[len(items)-2].Training = "4-5"
	st := newJudgementStudy(t, db, set, items)
	if _, err := BuildCrowdBatches(context.Background(), db, st.ID, set, 11); err != nil {
		t.Fatal(err)
	}
	// The scale shrinks to 3 points after the import: 4–5 no longer fits.
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 3, 3, 1
	set.ScaleLabels = map[string]string{"1": "schlecht", "3": "gut"}
	if err := db.SaveCrowdSettings(context.Background(), st.ID, set); err != nil {
		t.Fatal(err)
	}
	st, _ = db.Study(context.Background(), st.ID)
	missing, err := Checklist(context.Background(), db, st)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(missing, "\n")
	for _, want := range []string{"a completion code", "a screen-out code set in the settings, for those the practice screen-out ends (after 2 answers", `practice item "ueb-1" with a range on the scale: practice range 4–5 lies outside the 3-point scale`} {
		if !strings.Contains(got, want) {
			t.Errorf("the checklist does not name %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "conditions") || strings.Contains(got, "label") {
		t.Errorf("the checklist names what the study has:\n%s", got)
	}
}
