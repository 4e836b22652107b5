package studies

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
)

// analysisFixture is a crowd study of two batches (four items and two checks
// each) and its settings.
type analysisFixture struct {
	db  *store.DB
	id  int64
	set domain.CrowdSettings
	n   int
}

func newAnalysisFixture(t *testing.T) *analysisFixture {
	t.Helper()
	ctx := context.Background()
	db := mustOpenDB(t)
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
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	stored, err := db.ListItems(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]int64{}
	for _, it := range stored {
		id[it.Key] = it.ID
	}
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
	return &analysisFixture{db: db, id: st.ID, set: set}
}

// complete has one more participant finish a batch, rating trigger screens
// trig, cancel screens canc and the checks lo and hi; it returns the
// participant's row id.
func (f *analysisFixture) complete(t *testing.T, trig, canc, lo, hi int) int64 {
	t.Helper()
	ctx := context.Background()
	f.n++
	p, err := f.db.EnterCrowd(ctx, f.id, store.CrowdArrival{PID: fmt.Sprintf("%024d", f.n), StudyID: "st", SessionID: fmt.Sprint("se", f.n)}, f.set)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = f.db.ConsentCrowd(ctx, f.id, p.Token, f.set); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AnswerCrowdTraining(ctx, f.id, p.Token, 1, 0, 6, 0, f.set); err != nil {
		t.Fatal(err)
	}
	screens, err := f.db.CrowdBatchScreens(ctx, p.BatchID)
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
		if _, err := f.db.SaveCrowdRating(ctx, f.id, p.Token, sc.Position, r, 0, f.set); err != nil {
			t.Fatal(err)
		}
	}
	return p.ID
}

// TestAnalysisComputedOncePerChange: the page, its figures and its
// downloads get the analysis computed once; a new answer, an exclusion
// decision and a settings change each give a new one that shows the change.
func TestAnalysisComputedOncePerChange(t *testing.T) {
	ctx := context.Background()
	f := newAnalysisFixture(t)
	svc := New(f.db, nil)
	analyse := func() *Analysis {
		t.Helper()
		_, a, err := svc.Analysis(ctx, f.id)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := analyse(); a.Empty == "" {
		t.Fatalf("no participant yet, want the empty analysis: %+v", a)
	}
	f.complete(t, 7, 2, 1, 7)
	f.complete(t, 6, 1, 2, 6)
	cheater := f.complete(t, 1, 7, 7, 1) // fails both checks
	before := svc.analyses.computed      // the empty analysis
	first := analyse()
	if first.Problem != nil || !strings.Contains(first.Summary[0], "3 participants in the export, 0 excluded") {
		t.Fatalf("summary %q, problem %v", first.Summary, first.Problem)
	}
	png, found, err := first.Plot("histogram_all", "png")
	if err != nil || !found || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatalf("histogram_all.png: found %v, err %v", found, err)
	}
	for range 6 { // the page's figures and downloads
		if a := analyse(); a != first {
			t.Fatal("an unchanged study's analysis was computed again")
		}
	}
	if again, _, _ := first.Plot("histogram_all", "png"); &again[0] != &png[0] {
		t.Error("a figure was rendered again")
	}
	if got := svc.analyses.computed - before; got != 1 {
		t.Errorf("computed %d analyses of one version, want 1", got)
	}

	// The attention-check threshold drops to 2: the cheater is excluded.
	set := f.set
	set.MaxFailedChecks = 2
	if err := f.db.SaveCrowdSettings(ctx, f.id, set); err != nil {
		t.Fatal(err)
	}
	byThreshold := analyse()
	if byThreshold == first || !strings.Contains(byThreshold.Summary[0], "1 excluded") || !strings.Contains(byThreshold.Command, "--max-failed 2") {
		t.Fatalf("after the settings change: %q %q", byThreshold.Summary[0], byThreshold.Command)
	}
	// The researcher keeps the cheater in.
	if err := f.db.SetCrowdExclusion(ctx, f.id, cheater, domain.OverrideInclude); err != nil {
		t.Fatal(err)
	}
	byDecision := analyse()
	if byDecision == byThreshold || !strings.Contains(byDecision.Summary[0], "0 excluded") {
		t.Fatalf("after the include decision: %q", byDecision.Summary[0])
	}
	// One more participant completes.
	f.complete(t, 7, 1, 1, 7)
	byAnswer := analyse()
	if byAnswer == byDecision || !strings.Contains(byAnswer.Summary[0], "4 participants in the export") {
		t.Fatalf("after a new participant: %q", byAnswer.Summary[0])
	}
	if got := svc.analyses.computed - before; got != 4 {
		t.Errorf("computed %d analyses of four versions, want 4", got)
	}
}

// TestAnalysisCacheBounded: the cache keeps the studies looked at last,
// and not a computation that failed.
func TestAnalysisCacheBounded(t *testing.T) {
	c := newAnalysisCache(3)
	var key analysisKey
	compute := func() (*Analysis, error) { return &Analysis{}, nil }
	for id := range int64(10) {
		c.get(id, key, compute)
	}
	c.get(7, key, compute) // used again: kept over 8
	c.get(10, key, compute)
	if len(c.entries) != 3 || c.entries[7] == nil || c.entries[9] == nil || c.entries[10] == nil {
		t.Errorf("kept %v, want 7, 9 and 10", c.order)
	}
	if c.computed != 11 {
		t.Errorf("computed %d, want 11", c.computed)
	}
	if _, err := c.get(11, key, func() (*Analysis, error) { return nil, errors.New("disk on fire") }); err == nil {
		t.Fatal("the failure was not returned")
	}
	if a, err := c.get(11, key, compute); err != nil || a == nil || c.computed != 13 {
		t.Errorf("after a failure: %v %v, computed %d, want a new computation", a, err, c.computed)
	}
}

// TestStudyDataVersion: the version grows with the writes the analysis
// depends on, of that study only, whichever way they are made.
func TestStudyDataVersion(t *testing.T) {
	ctx := context.Background()
	f := newAnalysisFixture(t)
	other := &domain.Study{Kind: domain.KindCrowd, Name: "Other", Lang: "en"}
	if err := f.db.CreateStudy(ctx, other); err != nil {
		t.Fatal(err)
	}
	version := func(id int64) int64 {
		t.Helper()
		v, err := f.db.StudyDataVersion(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0, o0 := version(f.id), version(other.ID)
	f.complete(t, 7, 2, 1, 7)
	v1 := version(f.id)
	if v1 <= v0 || version(other.ID) != o0 {
		t.Fatalf("after a participant's answers: %d → %d (other study %d → %d)", v0, v1, o0, version(other.ID))
	}
	// A write straight to the file, as another process would make it.
	if _, err := f.db.Writer().ExecContext(ctx, `UPDATE crowd_ratings SET rating = 1 WHERE participant_id IN (SELECT id FROM crowd_participants WHERE study_id = ?)`, f.id); err != nil {
		t.Fatal(err)
	}
	if v2 := version(f.id); v2 <= v1 {
		t.Errorf("after a direct update of the ratings: %d → %d", v1, v2)
	}
}
