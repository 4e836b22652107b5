package studies

import (
	"context"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store/storetest"
)

// analysisFixture is storetest's crowd study of two batches.
type analysisFixture = storetest.CrowdFixture

func newAnalysisFixture(t *testing.T) *analysisFixture { return storetest.NewCrowdFixture(t) }

// TestAnalysisComputedOncePerChange: the page, its figures and its
// downloads get the analysis computed once; a new answer, an exclusion
// decision and a settings change each give a new one that shows the change.
func TestAnalysisComputedOncePerChange(t *testing.T) {
	ctx := context.Background()
	f := newAnalysisFixture(t)
	svc := New(f.DB, nil)
	analyse := func() *Analysis {
		t.Helper()
		_, a, err := svc.Analysis(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := analyse(); a.Empty == "" {
		t.Fatalf("no participant yet, want the empty analysis: %+v", a)
	}
	f.Complete(t, 7, 2, 1, 7)
	f.Complete(t, 6, 1, 2, 6)
	cheater := f.Complete(t, 1, 7, 7, 1) // fails both checks
	before := svc.analyses.Computed()    // the empty analysis
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
	if got := svc.analyses.Computed() - before; got != 1 {
		t.Errorf("computed %d analyses of one version, want 1", got)
	}

	// The attention-check threshold drops to 2: the cheater is excluded.
	set := f.Set
	set.MaxFailedChecks = 2
	if err := f.DB.SaveCrowdSettings(ctx, f.ID, set); err != nil {
		t.Fatal(err)
	}
	byThreshold := analyse()
	if byThreshold == first || !strings.Contains(byThreshold.Summary[0], "1 excluded") || !strings.Contains(byThreshold.Command, "--max-failed 2") {
		t.Fatalf("after the settings change: %q %q", byThreshold.Summary[0], byThreshold.Command)
	}
	// The researcher keeps the cheater in.
	if err := f.DB.SetCrowdExclusion(ctx, f.ID, cheater, domain.OverrideInclude); err != nil {
		t.Fatal(err)
	}
	byDecision := analyse()
	if byDecision == byThreshold || !strings.Contains(byDecision.Summary[0], "0 excluded") {
		t.Fatalf("after the include decision: %q", byDecision.Summary[0])
	}
	// One more participant completes.
	f.Complete(t, 7, 1, 1, 7)
	byAnswer := analyse()
	if byAnswer == byDecision || !strings.Contains(byAnswer.Summary[0], "4 participants in the export") {
		t.Fatalf("after a new participant: %q", byAnswer.Summary[0])
	}
	if got := svc.analyses.Computed() - before; got != 4 {
		t.Errorf("computed %d analyses of four versions, want 4", got)
	}
}

// TestStudyDataVersion: the version grows with the writes the analysis
// depends on, of that study only, whichever way they are made.
func TestStudyDataVersion(t *testing.T) {
	ctx := context.Background()
	f := newAnalysisFixture(t)
	other := &domain.Study{Kind: domain.KindCrowd, Name: "Other", Lang: "en"}
	if err := f.DB.CreateStudy(ctx, other); err != nil {
		t.Fatal(err)
	}
	version := func(id int64) int64 {
		t.Helper()
		v, err := f.DB.StudyDataVersion(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0, o0 := version(f.ID), version(other.ID)
	f.Complete(t, 7, 2, 1, 7)
	v1 := version(f.ID)
	if v1 <= v0 || version(other.ID) != o0 {
		t.Fatalf("after a participant's answers: %d → %d (other study %d → %d)", v0, v1, o0, version(other.ID))
	}
	// A write straight to the file, as another process would make it.
	if _, err := f.DB.Writer().ExecContext(ctx, `UPDATE crowd_ratings SET rating = 1 WHERE participant_id IN (SELECT id FROM crowd_participants WHERE study_id = ?)`, f.ID); err != nil {
		t.Fatal(err)
	}
	if v2 := version(f.ID); v2 <= v1 {
		t.Errorf("after a direct update of the ratings: %d → %d", v1, v2)
	}
}
