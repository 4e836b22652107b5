package studies

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
	"pragmalab/store/storetest"
)

// openedJudgement is the storetest judgement fixture opened, its design
// kept as version 1, and its service.
func openedJudgement(t *testing.T) (*storetest.JudgementFixture, *Service, []byte) {
	t.Helper()
	ctx := context.Background()
	f := storetest.NewJudgementFixture(t, 4)
	svc := New(f.DB, f.DB.Now)
	d, err := svc.StudyDesign(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := WriteDesign(&file, d); err != nil {
		t.Fatal(err)
	}
	if err := f.DB.OpenStudyWithDesign(ctx, f.ID, "t", file.Bytes()); err != nil {
		t.Fatal(err)
	}
	return f, svc, file.Bytes()
}

// sevenPoints is the fixture's settings on a 7-point scale: a change of
// frozen settings.
func sevenPoints(set domain.CrowdSettings) domain.CrowdSettings {
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 7, 6, 2
	set.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "7": "völlig natürlich"}
	return set
}

// TestDesignVersionRatingsCarryTheirVersion: a rating given under version
// 1 and one under version 2 export with their versions and their own
// scale_points; a newcomer after the new version gets one of its
// batches; nothing given before is lost (docs/studies.md#design-versions,
// docs/formats.md#ratings-export).
func TestDesignVersionRatingsCarryTheirVersion(t *testing.T) {
	ctx := context.Background()
	f, svc, opened := openedJudgement(t)
	first := f.CompleteAttentive(t, func(int, string) int { return 4 })
	var before bytes.Buffer
	if err := f.DB.ExportCrowdRatings(ctx, f.ID, &before, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.SplitN(before.String(), "\n", 2)[0], "design_version") {
		t.Fatalf("a study of one design version exports no design_version column: %q", strings.SplitN(before.String(), "\n", 2)[0])
	}
	set := sevenPoints(f.Set)
	k, b, err := svc.StartDesignVersion(ctx, f.ID, "", set)
	if err != nil {
		t.Fatal(err)
	}
	if k != 2 || b.Batches == 0 {
		t.Fatalf("version %d with %d batches, want version 2 with batches", k, b.Batches)
	}
	f.Set = set
	second := f.Complete(t, func(item, _ string) int { // attentive on 7 points
		if item == "chk-low" {
			return 1
		}
		return 7
	})

	// The newcomer's batch is one of version 2's.
	ps, err := f.DB.CrowdParticipants(ctx, f.ID, set)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, p := range ps {
		got[p.PID] = p.DesignVersion
		// Each participant's checks are judged by their version's
		// thresholds: a 5 passes the high check on 5 points, not on 7.
		if p.ChecksFailed != 0 || p.ChecksAnswered == 0 {
			t.Errorf("participant %s of version %d: %d of %d checks failed, want none", p.PID, p.DesignVersion, p.ChecksFailed, p.ChecksAnswered)
		}
	}
	if got[first] != 1 || got[second] != 2 {
		t.Fatalf("participants' design versions %v, want %s → 1, %s → 2", got, first, second)
	}

	var out bytes.Buffer
	if err := f.DB.ExportCrowdRatings(ctx, f.ID, &out, false); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	if head[len(head)-1] != "design_version" {
		t.Fatalf("ratings header %v: want design_version last", head)
	}
	pc, sc, vc := slices.Index(head, "participant_id"), slices.Index(head, "scale_points"), len(head)-1
	counts := map[string]int{}
	for _, r := range recs[1:] {
		want := map[string]string{first: "5 1", second: "7 2"}[r[pc]]
		if r[sc]+" "+r[vc] != want {
			t.Fatalf("rating of %s: scale_points %s, design_version %s; want %q", r[pc], r[sc], r[vc], want)
		}
		counts[r[pc]]++
	}
	beforeRows := strings.Count(before.String(), "\n") - 1
	if counts[first] != beforeRows || counts[second] == 0 {
		t.Fatalf("ratings per participant %v, want %d of %s kept and %s's", counts, beforeRows, first, second)
	}

	var parts bytes.Buffer
	if err := f.DB.ExportCrowdParticipants(ctx, f.ID, &parts); err != nil {
		t.Fatal(err)
	}
	precs, err := csv.NewReader(&parts).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if ph := precs[0]; ph[len(ph)-1] != "design_version" || precs[1][len(ph)-1] != "1" || precs[2][len(ph)-1] != "2" {
		t.Fatalf("participants export: header %v, rows %v", ph, precs[1:])
	}

	// The Analysis page reads version 2's ratings, on its 7 points, and
	// says so; its command picks version 2 from the export.
	_, a, err := svc.Analysis(ctx, f.ID)
	if err != nil || a.Problem != nil {
		t.Fatalf("analysis: %v %v", err, a.Problem)
	}
	if !strings.Contains(a.Summary[0], "Design version 2, the current one") || !strings.Contains(a.Summary[1], "1 participants in the export") ||
		!strings.Contains(a.Summary[1], "7-point scale") || !strings.HasSuffix(a.Command, "--design-version 2") {
		t.Fatalf("analysis of version 2: summary %q, command %q", a.Summary, a.Command)
	}

	// A clone takes the current version's batches only, as version 1 of
	// a new draft.
	c, err := svc.CopyStudy(ctx, "t", f.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	cc, err := f.DB.StudyCounts(ctx, c.ID)
	if err != nil || cc.Batches != b.Batches {
		t.Fatalf("the clone has %d batches (%v), want version 2's %d", cc.Batches, err, b.Batches)
	}

	// Each version's design file, as kept.
	v1, err := f.DB.DesignVersionFile(ctx, f.ID, 1)
	if err != nil || !bytes.Equal(v1, opened) {
		t.Fatalf("version 1's file is not the design the study opened with (%v)", err)
	}
	v2, err := f.DB.DesignVersionFile(ctx, f.ID, 2)
	if err != nil || !strings.Contains(string(v2), `"scale_points": 7`) {
		t.Fatalf("version 2's file: %v\n%s", err, v2)
	}
	if _, err := f.DB.DesignVersionFile(ctx, f.ID, 3); err == nil || !strings.Contains(err.Error(), "versions are 1 to 2") {
		t.Fatalf("version 3: %v", err)
	}

	// The frozen check compares against the current version: version 2's
	// settings save with a quota changed, version 1's scale is refused.
	set.Quota = 30
	if err := f.DB.SaveCrowdSettings(ctx, f.ID, set); err != nil {
		t.Fatalf("a quota on version 2's settings: %v", err)
	}
	back := set
	back.ScalePoints, back.CheckHighMin, back.ScaleLabels = 5, 4, map[string]string{"1": "a", "5": "b"}
	if err := f.DB.SaveCrowdSettings(ctx, f.ID, back); err == nil || !strings.Contains(err.Error(), "scale_points") {
		t.Fatalf("saving the 5-point scale over version 2: %v", err)
	}
}

// TestDesignVersionRefusals: participants rating now, settings that do
// not validate, a judgement study's conditions its items do not fit, and
// no frozen change are each refused, naming why, and change nothing
// (docs/studies.md#design-versions).
func TestDesignVersionRefusals(t *testing.T) {
	ctx := context.Background()
	f, svc, _ := openedJudgement(t)
	p, err := f.DB.EnterCrowd(ctx, f.ID, store.CrowdArrival{PID: fmt.Sprintf("%024d", 99), StudyID: "st", SessionID: "se99"}, f.Set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.DB.ConsentCrowd(ctx, f.ID, p.Token, f.Set); err != nil {
		t.Fatal(err)
	}
	bad := sevenPoints(f.Set)
	bad.CheckLowMax = 9
	renamed := sevenPoints(f.Set)
	renamed.Conditions = []string{"kontrolle", "ziel"}
	for _, c := range []struct {
		name string
		set  domain.CrowdSettings
		want string
	}{
		{"in progress", sevenPoints(f.Set), "1 participant(s) of study"},
		{"invalid", bad, "nothing was changed"},
		{"unfit items", renamed, `"zielsatz", which the study does not declare`},
		{"no frozen change", f.Set, "change no frozen setting"},
	} {
		_, _, err := svc.StartDesignVersion(ctx, f.ID, "", c.set)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v, want %q", c.name, err, c.want)
		}
		if c.name == "in progress" && !strings.Contains(err.Error(), "Pause the study") {
			t.Fatalf("the in-progress refusal says what to do: %v", err)
		}
		vs, err := f.DB.DesignVersions(ctx, f.ID)
		if err != nil || len(vs) != 1 {
			t.Fatalf("%s: versions %d (%v), want version 1 only", c.name, len(vs), err)
		}
		_, now, err := f.DB.CrowdStudy(ctx, f.ID)
		if err != nil || now.ScalePoints != 5 {
			t.Fatalf("%s: the settings changed: %d points (%v)", c.name, now.ScalePoints, err)
		}
	}
}

// TestDesignVersionEndsThePilotsOfTheOldBatches: a pilot session opened
// under version 1 would go on rating its retired batch on version 2's
// scale, which a rating's version (its batch's) would then misstate; it
// ends with the version as the real sessions left in the retired batches
// do, and the pilot link opens a new session on version 2's batches
// (docs/studies.md#design-versions).
func TestDesignVersionEndsThePilotsOfTheOldBatches(t *testing.T) {
	ctx := context.Background()
	f, svc, _ := openedJudgement(t)
	old, err := f.DB.EnterCrowdPilot(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.StartDesignVersion(ctx, f.ID, "", sevenPoints(f.Set)); err != nil {
		t.Fatal(err)
	}
	p, err := f.DB.CrowdParticipantByToken(ctx, f.ID, old.Token)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != store.CrowdMovedOn {
		t.Errorf("the version 1 pilot session is %q after version 2 started, want %q", p.Status, store.CrowdMovedOn)
	}
	fresh, err := f.DB.EnterCrowdPilot(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.BatchID == old.BatchID {
		t.Errorf("a new pilot session went to the retired batch %d", old.BatchID)
	}
}
