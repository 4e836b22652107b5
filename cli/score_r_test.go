package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"pragmalab/comparisons"
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
			Distributions modelhuman.Distributions `json:"distributions"`
			Calibration   modelhuman.Calibration   `json:"calibration"`
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
		for _, m := range modelhuman.Measures {
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
	if code != 2 || !strings.Contains(errOut, "neither a likert nor an expert job") {
		t.Errorf("--r of a True/False job: exit %d, %s", code, errOut)
	}
}

// With more humans than the splits can enumerate (14 per unit: C(14, 7) >
// 200), the ceilings come from random splits: R draws its own and they
// agree with pragmalab's within Monte Carlo error, while the distances, the
// means and the ECE still agree to 1e-9; a unit of 3 humans is exact.
func TestScoreRCompanionRandomCeilings(t *testing.T) {
	needR(t, false)
	rng := rand.New(rand.NewPCG(31, 5))
	model := map[modelhuman.UnitKey][]float64{}
	mean := map[modelhuman.UnitKey]float64{}
	above := map[modelhuman.UnitKey]float64{}
	var order []modelhuman.UnitKey
	var rated []modelhuman.CrowdRating
	for i := range 24 {
		for _, cond := range []string{"trigger", "cancel"} {
			k := modelhuman.UnitKey{Item: fmt.Sprintf("it%02d", i), Condition: cond}
			order = append(order, k)
			q := make([]float64, 7)
			var s float64
			for p := range q {
				q[p] = rng.Float64()
				s += q[p]
			}
			for p := range q {
				q[p] /= s
				mean[k] += float64(p+1) * q[p]
				if p+1 > 4 {
					above[k] += q[p]
				}
			}
			model[k] = q
			humans := 14
			if i == 0 {
				humans = 3
			}
			centre := 1 + rng.IntN(7)
			for h := range humans {
				r := max(1, min(7, centre+rng.IntN(3)-1))
				rated = append(rated, modelhuman.CrowdRating{Participant: fmt.Sprintf("P%d", h), Item: k.Item, Condition: cond, Rating: r})
			}
		}
	}
	units, err := modelhuman.DistUnitsFromRatings(rated, model)
	if err != nil {
		t.Fatal(err)
	}
	c := &comparisons.JobHumanComparison{}
	if c.Distributions, err = modelhuman.CompareDistributions(units, modelhuman.DefaultDistOptions()); err != nil {
		t.Fatal(err)
	}
	if c.Calibration, err = modelhuman.CrowdCalibration(rated, 7, above, 10, analysis.Bootstrap{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := &Env{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	if err := scoreCompanion(7, []string{"--job", "7", "--r", dir}, &comparisons.LikertUnits{Points: 7, Rated: rated, Order: order, Model: model, Mean: mean, Above: above}, c).write(dir, env); err != nil {
		t.Fatal(err)
	}
	printed := runR(t, dir)
	if n := strings.Count(printed, " 0 differ by more than 1e-9"); n != 2 {
		t.Errorf("the script disagrees with pragmalab's own files (%d of 2 comparisons agree):\n%s", n, printed)
	}
	if !strings.Contains(printed, "184 of 184 unit x measure ceilings within 4 Monte Carlo standard errors") {
		t.Errorf("the random ceilings disagree:\n%s", printed)
	}
	ch := &checker{t: t, r: readLong(t, filepath.Join(dir, "distributions_r.csv"))}
	for _, s := range c.Distributions.Summary {
		ch.same("summary||"+s.Condition+"|"+s.Measure+"_mean_model", *s.MeanModel)
		ch.same("summary||"+s.Condition+"|"+s.Measure+"_units", float64(s.Units))
	}
	for _, m := range modelhuman.Measures {
		it := c.Distributions.Items[0]
		if !it.Exhaustive {
			t.Fatalf("a unit of 3 humans is not exhaustive")
		}
		ch.same("unit|it00|trigger|"+m+"_ceiling", *it.Measures[m].Ceiling)
	}
	cal := &checker{t: t, r: readLong(t, filepath.Join(dir, "calibration_r.csv"))}
	cal.same("all|ece", *c.Calibration.ECE)
}

// ΔA's companion: three experts judging 40 items' plausibility (some
// items left unjudged by one, some unanswered by the model); R's α of the
// experts, α with the model in each one's place, the changes and ΔA equal
// pragmalab's to 1e-9.
func TestScoreRCompanionExpertReplacement(t *testing.T) {
	needR(t, false)
	rng := rand.New(rand.NewPCG(31, 9))
	experts := []string{"Ada", "Ben", "=Cy"}
	items := make([]string, 40)
	data := make([][]float64, len(experts))
	model := make([]float64, len(items))
	truth := make([]float64, len(items))
	for i := range items {
		items[i] = fmt.Sprintf("item%02d", i)
		truth[i] = float64(rng.IntN(2))
		model[i] = truth[i]
		if rng.IntN(4) == 0 {
			model[i] = 1 - truth[i]
		}
		if i%9 == 0 {
			model[i] = math.NaN()
		}
	}
	for e := range data {
		data[e] = make([]float64, len(items))
		for i := range items {
			data[e][i] = truth[i]
			if rng.IntN(5) == 0 {
				data[e][i] = 1 - truth[i]
			}
			if e == 2 && i%7 == 0 {
				data[e][i] = math.NaN()
			}
		}
	}
	r, err := modelhuman.ComputeExpertReplacement(experts, data, model, analysis.Nominal, analysis.Bootstrap{})
	if err != nil || r.DeltaA == nil {
		t.Fatalf("ΔA: %v %+v", err, r)
	}
	dir := t.TempDir()
	env := &Env{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	if err := expertCompanion(9, []string{"--job", "9", "--r", dir}, experts, items, data, model, r).write(dir, env); err != nil {
		t.Fatal(err)
	}
	printed := runR(t, dir)
	if !strings.Contains(printed, " 0 differ by more than 1e-9") {
		t.Errorf("the script disagrees with pragmalab's own file:\n%s", printed)
	}
	ch := &checker{t: t, r: readLong(t, filepath.Join(dir, "replacement_r.csv"))}
	ch.same("|alpha_experts", *r.Alpha)
	ch.same("|delta_a", *r.DeltaA)
	ch.same("|units", float64(r.Units))
	for _, e := range r.PerExpert {
		ch.same(e.Expert+"|alpha", *e.Alpha)
		ch.same(e.Expert+"|delta_a", *e.DeltaA)
		ch.same(e.Expert+"|units_replaced", float64(e.Replace))
	}
	if ch.n != 3+3*3 {
		t.Errorf("compared %d values", ch.n)
	}
}
