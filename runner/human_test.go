package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"pragmalab/domain"
	"strings"
	"testing"

	"pragmalab/analysis/toplines"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store"
	"pragmalab/studies"
)

// TestHumanToplinesFromCrowdStudy runs a small crowd study through the
// store (entry, consent, training, ratings) and reads its toplines for the
// items of a scoring job, as the results page does.
// crowdFixture is a crowd study of four participants who rated x001–x004
// (each in one condition per batch) and two attention checks.
func crowdFixture(t *testing.T) (*store.DB, int64) {
	t.Helper()
	ctx := context.Background()
	db := runner.OpenDB(t)
	cs := &domain.Study{Kind: domain.KindCrowd, Name: "crowd", Lang: "en"}
	if err := db.CreateStudy(ctx, cs); err != nil {
		t.Fatal(err)
	}
	items := append(runner.SyntheticItems(4),
		domain.Item{Key: "chk-high", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "high"},
		domain.Item{Key: "chk-low", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "low"})
	if err := db.ImportItems(ctx, cs.ID, items); err != nil {
		t.Fatal(err)
	}
	stored, _ := db.ListItems(ctx, cs.ID)
	id := map[string]int64{}
	for _, it := range stored {
		id[it.Key] = it.ID
	}
	slot := func(k, c string) store.CrowdSlot { return store.CrowdSlot{ItemID: id[k], Condition: c} }
	b1 := []store.CrowdSlot{slot("x001", "trigger"), slot("x002", "cancel"), slot("x003", "trigger"), slot("x004", "cancel"), slot("chk-low", "trigger"), slot("chk-high", "trigger")}
	b2 := []store.CrowdSlot{slot("x001", "cancel"), slot("x002", "trigger"), slot("x003", "cancel"), slot("x004", "trigger"), slot("chk-low", "trigger"), slot("chk-high", "trigger")}
	if err := db.SaveCrowdBatches(ctx, cs.ID, 1, []store.CrowdSlot{slot("x001", "trigger"), slot("x002", "cancel")}, [][]store.CrowdSlot{b1, b2}); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode = "DONE"
	if err := db.SaveCrowdSettings(ctx, cs.ID, set); err != nil {
		t.Fatal(err)
	}
	// Everyone rates x001–x003 high without the cancellation and low with
	// it; x004 the other way round. Participant 4 varies a little so the
	// z-scores differ between people.
	rating := func(p int, key, cond string) int {
		switch {
		case key == "chk-high":
			return 7
		case key == "chk-low":
			return 1
		case (key == "x004") == (cond == "trigger"):
			return 2
		}
		return 6 + p%2
	}
	for p := range 4 {
		part, err := db.EnterCrowd(ctx, cs.ID, store.CrowdArrival{PID: fmt.Sprintf("%024x", p+1), StudyID: "s", SessionID: fmt.Sprintf("sess%d", p)}, set)
		if err != nil {
			t.Fatal(err)
		}
		// The batch is assigned at consent.
		if part, err = db.ConsentCrowd(ctx, cs.ID, part.Token, set); err != nil {
			t.Fatal(err)
		}
		for pos, r := range []int{6, 2} {
			if res, err := db.AnswerCrowdTraining(ctx, cs.ID, part.Token, pos+1, 0, r, 0, set); err != nil || !res.Passed {
				t.Fatalf("training: %+v %v", res, err)
			}
		}
		screens, err := db.CrowdBatchScreens(ctx, part.BatchID)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range screens {
			if _, err := db.SaveCrowdRating(ctx, cs.ID, part.Token, sc.Position, rating(p, sc.Item.Key, sc.Condition), 0, set); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db, cs.ID
}

func TestHumanToplinesFromCrowdStudy(t *testing.T) {
	ctx := context.Background()
	db, csID := crowdFixture(t)
	cs := &domain.Study{ID: csID}
	// Read from the store's rows, the toplines are those of the exported
	// file: the analysis skips CSV, but the figures cannot differ.
	var export bytes.Buffer
	if err := db.ExportRatings(ctx, cs.ID, &export); err != nil {
		t.Fatal(err)
	}
	fromFile, err := toplines.ReadRatings(&export)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := studies.HumanToplines(ctx, db, cs.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(toplines.ComputeToplines(fromFile, toplines.DefaultOptions()))
	b, _ := json.Marshal(whole)
	if !bytes.Equal(a, b) {
		t.Errorf("toplines from the rows differ from those of the export:\nrows %s\nfile %s", b, a)
	}
	// The job covers x001–x003 only.
	ht, err := studies.HumanToplines(ctx, db, cs.ID, func(k string) bool { return k == "x001" || k == "x002" || k == "x003" })
	if err != nil || ht == nil {
		t.Fatalf("toplines %v, err %v", ht, err)
	}
	all := ht.ByType["all"]
	if all.Items != 3 || all.ImplicatureRecognition == nil || *all.ImplicatureRecognition != 1 || *all.CancellationRecognition != 1 {
		t.Fatalf("human toplines over the job's items: %+v", all)
	}
	if ht.Participants.Total != 4 || len(ht.Participants.Excluded) != 0 {
		t.Errorf("participants %+v", ht.Participants)
	}
	// Beside a model, in the comparison the page draws.
	res := &runner.Results{Job: &domain.Job{ID: 1}, Scorer: "m", TF: []scoring.TFItemResult{{Key: "x001", Type: "scalar", P: map[scoring.Condition]float64{scoring.Trigger: 0.4}}}}
	res.TFMetrics = scoring.ComputeTF(res.TF)
	c := runner.Compare(ht, res)
	if v := c.Human["implicature_recognition"]["scalar"]; v == nil || *v != 1 {
		t.Errorf("human scalar implicature recognition %v, want 1", v)
	}
	if v := c.Models[0].Values["implicature_recognition"]["scalar"]; v == nil || *v != 0 {
		t.Errorf("model scalar implicature recognition %v, want 0", v)
	}
}

// TestHumanZAgreesWithTheAnalysisPage: the item means --compare and the job
// page use are those of the crowd study's Analysis page (z-scores over all
// of a participant's non-check ratings), not z-scores recomputed over the
// job's items, which move the means.
func TestHumanZAgreesWithTheAnalysisPage(t *testing.T) {
	ctx := context.Background()
	db, cs := crowdFixture(t)
	_, set, err := db.CrowdStudy(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	opt := toplines.Options{HighPass: set.CheckHighMin, LowPass: set.CheckLowMax, MaxFailed: set.MaxFailedChecks}
	var buf bytes.Buffer
	if err := db.ExportRatings(ctx, cs, &buf); err != nil {
		t.Fatal(err)
	}
	export := buf.String()
	rs, err := toplines.ReadRatings(strings.NewReader(export))
	if err != nil {
		t.Fatal(err)
	}
	page := map[string]toplines.ItemMeans{}
	for _, m := range toplines.ComputeToplines(rs, opt).Items { // what the Analysis page lists
		page[m.ID] = m
	}
	job := map[string]bool{"x001": true, "x002": true}
	ht, err := studies.HumanToplines(ctx, db, cs, func(k string) bool { return job[k] })
	if err != nil || ht == nil {
		t.Fatal(ht, err)
	}
	if len(ht.Items) != 2 {
		t.Fatalf("%d items, want the job's 2", len(ht.Items))
	}
	moved := 0.0
	// Re-z-scoring over the job's items only (the old --compare).
	var only strings.Builder
	for i, ln := range strings.Split(strings.TrimSpace(export), "\n") {
		if f := strings.Split(ln, ","); i == 0 || job[f[2]] || f[6] != "" {
			only.WriteString(ln + "\n")
		}
	}
	ors, err := toplines.ReadRatings(strings.NewReader(only.String()))
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]toplines.ItemMeans{}
	for _, m := range toplines.ComputeToplines(ors, opt).Items {
		old[m.ID] = m
	}
	for _, m := range ht.Items {
		for c := range toplines.ConditionNames {
			want, got := page[m.ID].MeanZ[c], m.MeanZ[c]
			if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Abs(want-got) > 1e-12 {
				t.Errorf("%s %s: mean z %v here, %v on the Analysis page", m.ID, toplines.ConditionNames[c], got, want)
			}
			if !math.IsNaN(want) {
				moved = max(moved, math.Abs(old[m.ID].MeanZ[c]-want))
			}
		}
	}
	if moved < 0.05 {
		t.Errorf("the fixture should show re-z-scoring moving the means (moved at most %.3f)", moved)
	}
}
