package cli

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pragmalab/analysis"
)

// A likert job beside its crowd: `score --job ID --r DIR` writes the data
// and a base-R script that recomputes every unit's JSD, KL, Wasserstein and
// total variation, the ceilings (every split averaged where there are at
// most the splits asked, else within Monte Carlo error), the means and the
// ECE, equal to pragmalab's --json to 1e-9
// (docs/statistics.md#reproducing-in-r); a True/False job has none.
func TestScoreRCompanionLikert(t *testing.T) {
	needR(t, false)
	path, study := crowdScoreDB(t)
	sid := strconv.FormatInt(study, 10)
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", sid, "--task", "likert", "--scorer", "random", "--quiet", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var res struct {
		Job    int64 `json:"job"`
		Humans struct {
			Distributions analysis.Distributions `json:"distributions"`
			Calibration   analysis.Calibration   `json:"calibration"`
		} `json:"humans"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d := res.Humans.Distributions
	if len(d.Items) == 0 || res.Humans.Calibration.ECE == nil {
		t.Fatalf("the JSON lacks the distributions or the calibration:\n%s", out)
	}
	dir := filepath.Join(t.TempDir(), "score r")
	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--job", strconv.FormatInt(res.Job, 10), "--quiet", "--r", dir)
	if code != 0 {
		t.Fatalf("--r: exit %d\n%s", code, errOut)
	}
	printed := runR(t, dir)
	if n := strings.Count(printed, " 0 differ by more than 1e-9"); n != 2 {
		t.Errorf("the script disagrees with pragmalab's own files (%d of 2 comparisons agree):\n%s", n, printed)
	}
	if strings.Contains(printed, "NOT within") || strings.Contains(printed, "not within.\n") && !strings.Contains(printed, " 0 not within.") {
		t.Errorf("a random ceiling is off:\n%s", printed)
	}
	ch := &checker{t: t, r: readLong(t, filepath.Join(dir, "distributions_r.csv"))}
	exhaustive := 0
	for _, it := range d.Items {
		u := "unit|" + it.Item + "|" + it.Condition + "|"
		ch.same(u+"humans", float64(it.Humans))
		for _, m := range analysis.Measures {
			ch.same(u+m+"_model", it.Measures[m].Model)
			if it.Exhaustive && it.Measures[m].Ceiling != nil {
				ch.same(u+m+"_ceiling", *it.Measures[m].Ceiling)
			}
		}
		if it.Exhaustive {
			exhaustive++
		}
	}
	for _, s := range d.Summary {
		ch.same("summary||"+s.Condition+"|"+s.Measure+"_mean_model", *s.MeanModel)
	}
	cal := &checker{t: t, r: readLong(t, filepath.Join(dir, "calibration_r.csv"))}
	cal.same("all|ece", *res.Humans.Calibration.ECE)
	cal.same("all|items", float64(res.Humans.Calibration.Items))
	t.Logf("%d units, %d with every split averaged; %d values checked", len(d.Items), exhaustive, ch.n+cal.n)

	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--study", sid, "--scorer", "random", "--quiet", "--r", filepath.Join(t.TempDir(), "tf"))
	if code != 2 || !strings.Contains(errOut, "not a likert job") {
		t.Errorf("--r of a True/False job: exit %d, %s", code, errOut)
	}
}
