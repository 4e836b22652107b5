package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"pragmalab/domain"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/analysis/toplines"
	"pragmalab/store"
	"pragmalab/studies"
)

// TestCrowdQualityFlags: a straight-lining speeder is flagged on the
// participants table and in its export, excluded by the study's optional
// rules with the reasons, reported by the analysis, and the researcher's
// decision overrides the rules as it does the checks'.
func TestCrowdQualityFlags(t *testing.T) {
	e, clock := newClockedCrowdEnv(t, func(s *domain.CrowdSettings) {
		s.ExcludeRun, s.ExcludeFastPercent = 5, 50
	})
	ctx := context.Background()
	// rt is what the page's script reports, each screen answered pace
	// after the server sent it.
	walk := func(pid string, rating func(pos int) string, rt string, pace time.Duration) {
		b := e.browser()
		b.get(e.entry(pid, "s"+pid[20:]))
		b.post(e.base()+"/consent", nil)
		b.training()
		me, _ := e.db.CrowdParticipants(ctx, e.study, e.set)
		var batch int64
		for _, p := range me {
			if p.PID == pid {
				batch = p.BatchID
			}
		}
		for !b.has("done") {
			pos := b.position()
			sc, _ := e.db.CrowdScreen(ctx, batch, pos)
			r := rating(pos)
			switch sc.Item.Check { // both pass the checks
			case "high":
				r = "7"
			case "low":
				r = "1"
			}
			clock.step(pace)
			b.post(e.base()+"/answer", b.scripted(url.Values{"position": {strconv.Itoa(pos)}, "rating": {r}, "rt_ms": {rt}}))
		}
	}
	walk(pidN(1), func(int) string { return "4" }, "300", 400*time.Millisecond)
	walk(pidN(2), func(pos int) string { return strconv.Itoa(pos%7 + 1) }, "2500", 2600*time.Millisecond)

	reps, _ := e.db.CrowdParticipants(ctx, e.study, e.set)
	byPID := map[string]store.CrowdParticipantReport{}
	for _, r := range reps {
		byPID[r.PID] = r
	}
	speeder, careful := byPID[pidN(1)], byPID[pidN(2)]
	if speeder.MedianRT != 300 || speeder.FastShare != 1 || speeder.LongestRun < 5 || !speeder.Excluded || len(speeder.Reasons) != 2 {
		t.Fatalf("speeder %+v", speeder)
	}
	if careful.MedianRT != 2500 || careful.FastShare != 0 || careful.LongestRun > 2 || careful.Excluded || careful.TotalSeconds < 0 {
		t.Fatalf("careful %+v", careful)
	}
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.get(study)
	if !strings.Contains(a.body, "100% of answers faster than 2000 ms (rule: 50%)") || !strings.Contains(a.body, "identical ratings in a row (rule: 5)") ||
		!strings.Contains(a.body, `data-testid="median-rt">300 ms<`) {
		t.Fatalf("participants table without the flags:\n%s", a.body)
	}
	a.get(study + "/export/participants.csv")
	recs, _ := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	head := strings.Join(recs[0], ",")
	if !strings.Contains(head, ",excluded,total_seconds,median_rt_ms,fast_share,longest_identical_run,exclusion_reasons") {
		t.Fatalf("participants header %s", head)
	}
	for _, r := range recs[1:] {
		if r[0] == pidN(1) && (r[17] != "300" || r[18] != "1.000" || !strings.Contains(r[20], "identical ratings")) {
			t.Fatalf("speeder row %q", r)
		}
	}
	toplines := func() *toplines.Toplines {
		t.Helper()
		opt, err := studies.CrowdOptions(ctx, e.db, e.study)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := studies.CrowdRatings(ctx, e.db, e.study)
		if err != nil {
			t.Fatal(err)
		}
		return toplines.ComputeToplines(rs, opt)
	}
	tl := toplines()
	if got := tl.Participants.Reasons[pidN(1)]; len(got) != 2 || !strings.Contains(strings.Join(got, ";"), "faster than 2000 ms") {
		t.Fatalf("analysis reasons %v (excluded %v)", got, tl.Participants.Excluded)
	}
	if tl.Participants.Analysed != 1 {
		t.Fatalf("analysed %d, want the careful one", tl.Participants.Analysed)
	}
	// The researcher keeps the speeder: the rules no longer exclude them.
	a.post(fmt.Sprintf("%s/crowd/participants/%d/exclusion", study, speeder.ID), url.Values{"override": {"include"}})
	// (All their ratings equal, they then have no z-scores.)
	if tl := toplines(); len(tl.Participants.Excluded) != 0 || len(tl.Participants.ZeroVariance) != 1 {
		t.Fatalf("after include: %+v", tl.Participants)
	}
}
