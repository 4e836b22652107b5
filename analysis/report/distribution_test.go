package report

import (
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"strings"
	"testing"
)

func TestDistancesByHand(t *testing.T) {
	// M = (0.75, 0.25): KL(P‖M) = ½log₂(⅔) + ½log₂2, KL(Q‖M) = log₂(4/3).
	jsdHalf := 0.5 * (0.5*math.Log2(0.5/0.75) + 0.5*math.Log2(0.5/0.25) + math.Log2(1/0.75))
	cases := []struct {
		name, measure string
		p, q          []float64
		want          float64
	}{
		{"JSD disjoint is one bit", modelhuman.MeasureJSD, []float64{1, 0}, []float64{0, 1}, 1},
		{"JSD equal", modelhuman.MeasureJSD, []float64{0.2, 0.8}, []float64{0.2, 0.8}, 0},
		{"JSD half vs point", modelhuman.MeasureJSD, []float64{0.5, 0.5}, []float64{1, 0}, jsdHalf},
		{"Wasserstein ends of a 7-point scale", modelhuman.MeasureWasserstein, []float64{1, 0, 0, 0, 0, 0, 0}, []float64{0, 0, 0, 0, 0, 0, 1}, 1},
		// All mass at 3 against half at 2, half at 5: ½·1 + ½·2 = 1.5 points, /6.
		{"Wasserstein split mass", modelhuman.MeasureWasserstein, []float64{0, 0, 1, 0, 0, 0, 0}, []float64{0, 0.5, 0, 0, 0.5, 0, 0}, 0.25},
		{"TV", modelhuman.MeasureTV, []float64{0.5, 0.5, 0}, []float64{0, 0.5, 0.5}, 0.5},
		// KL((½,½) ‖ (1,0) smoothed by 0.01): q′ = (1.01/1.02, 0.01/1.02).
		{"KL smoothed", modelhuman.MeasureKL, []float64{0.5, 0.5}, []float64{1, 0}, 0.5*math.Log2(0.5/(1.01/1.02)) + 0.5*math.Log2(0.5/(0.01/1.02))},
	}
	for _, c := range cases {
		if got := modelhuman.Distance(c.measure, c.p, c.q, modelhuman.DefaultKLSmoothing); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCeilingByHand: small units have few splits, all of them averaged.
func TestCeilingByHand(t *testing.T) {
	opt := modelhuman.DefaultDistOptions()
	rng := analysis.NewRand(1)
	// {1, 7}: the only split is {1} | {7}: JSD 1, Wasserstein 1, TV 1.
	c, exh := modelhuman.SplitHalfCeiling([]int{1, 7}, opt, rng)
	if !exh || c[modelhuman.MeasureJSD] != 1 || c[modelhuman.MeasureWasserstein] != 1 || c[modelhuman.MeasureTV] != 1 {
		t.Errorf("{1,7}: %v exhaustive %v, want 1s", c, exh)
	}
	// {1, 1, 7, 7}: of the 6 ways to pick 2, two give {1,1} | {7,7} (TV 1),
	// four give {1,7} | {1,7} (TV 0): the ceiling is 1/3 exactly.
	c, exh = modelhuman.SplitHalfCeiling([]int{1, 1, 7, 7}, opt, rng)
	if !exh || math.Abs(c[modelhuman.MeasureTV]-1.0/3) > 1e-12 || math.Abs(c[modelhuman.MeasureJSD]-1.0/3) > 1e-12 {
		t.Errorf("{1,1,7,7}: %v, want TV and JSD 1/3", c)
	}
	// {2, 2, 2, 2}: every half is all 2s.
	c, _ = modelhuman.SplitHalfCeiling([]int{2, 2, 2, 2}, opt, rng)
	if c[modelhuman.MeasureTV] != 0 || c[modelhuman.MeasureWasserstein] != 0 {
		t.Errorf("unanimous: %v, want 0", c)
	}
	// 20 humans: C(20,10) splits are too many; random ones are drawn. Half
	// rate 1 and half 7: a random half holds h ones, TV = |h − (10 − h)|/10;
	// its mean over the hypergeometric h is E|2h − 10|/10 ≈ 0.1762.
	var r []int
	for i := range 20 {
		r = append(r, 1+6*(i%2))
	}
	c, exh = modelhuman.SplitHalfCeiling(r, opt, rng)
	want := 0.0
	for h := 0; h <= 10; h++ {
		want += binom(10, h) * binom(10, 10-h) / binom(20, 10) * math.Abs(float64(2*h-10)) / 10
	}
	if exh || math.Abs(c[modelhuman.MeasureTV]-want) > 0.03 {
		t.Errorf("20 humans: TV ceiling %v (exhaustive %v), want about %v from random splits", c[modelhuman.MeasureTV], exh, want)
	}
}

func binom(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// TestDistributionsSimulation: a model that answers by sampling from the
// humans' own ratings lands within the ceiling on most items; a model that
// always says 4 on almost none.
func TestDistributionsSimulation(t *testing.T) {
	rng := analysis.NewRand(7)
	var sampler, four []modelhuman.DistUnit
	for i := range 300 {
		// Each item's true distribution leans to one end of the scale.
		w := make([]float64, 7)
		lean := rng.IntN(2)
		for k := range w {
			x := float64(k)
			if lean == 1 {
				x = 6 - x
			}
			w[k] = math.Exp(-x*0.8) * (0.5 + rng.Float64())
		}
		humans := drawFrom(rng, w, 10)
		// The sampler: 10 answers drawn from the humans' own ratings.
		var s []int
		for range 10 {
			s = append(s, humans[rng.IntN(len(humans))])
		}
		item := "item" + analysis.Itoa(i)
		sampler = append(sampler, modelhuman.DistUnit{Item: item, Condition: "trigger", Human: humans, Model: modelhuman.Histogram(s, 7)})
		four = append(four, modelhuman.DistUnit{Item: item, Condition: "trigger", Human: humans, Model: []float64{0, 0, 0, 1, 0, 0, 0}})
	}
	ds, err := modelhuman.CompareDistributions(sampler, modelhuman.DefaultDistOptions())
	if err != nil {
		t.Fatal(err)
	}
	df, err := modelhuman.CompareDistributions(four, modelhuman.DefaultDistOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modelhuman.Measures {
		s, f := *ds.SummaryOf(m, "trigger").WithinShare, *df.SummaryOf(m, "trigger").WithinShare
		t.Logf("%s: sampler within the ceiling on %.2f of items, always-4 on %.2f", m, s, f)
		if s < 0.75 || f > 0.05 {
			t.Errorf("%s: sampler within on %.2f of items (want ≥ 0.75), always-4 on %.2f (want ≤ 0.05)", m, s, f)
		}
	}
}

func drawFrom(rng interface{ Float64() float64 }, w []float64, n int) []int {
	var total float64
	for _, x := range w {
		total += x
	}
	var out []int
	for range n {
		u := rng.Float64() * total
		k := 0
		for k < len(w)-1 && u >= w[k] {
			u -= w[k]
			k++
		}
		out = append(out, k+1)
	}
	return out
}

func TestDistributionsBadInput(t *testing.T) {
	opt := modelhuman.DefaultDistOptions()
	cases := []struct {
		u    modelhuman.DistUnit
		want string
	}{
		{modelhuman.DistUnit{Item: "a", Condition: "trigger", Model: []float64{1, 0, 0, 0, 0, 0, 0}}, `item "a", condition "trigger" has no human rating`},
		{modelhuman.DistUnit{Item: "a", Condition: "cancel", Human: []int{8}, Model: []float64{1, 0, 0, 0, 0, 0, 0}}, "rating 8 is off the 1–7 scale"},
		{modelhuman.DistUnit{Item: "a", Condition: "cancel", Human: []int{3}, Model: []float64{0.5, 0, 0, 0, 0, 0, 0}}, "sum to 0.5"},
		{modelhuman.DistUnit{Item: "a", Condition: "cancel", Human: []int{3}, Model: []float64{1}}, "has 1 points, the scale 7"},
	}
	for _, c := range cases {
		if _, err := modelhuman.CompareDistributions([]modelhuman.DistUnit{c.u}, opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.u, err, c.want)
		}
	}
	opt.Splits = 100
	if _, err := modelhuman.CompareDistributions([]modelhuman.DistUnit{{Human: []int{1}, Model: []float64{1, 0, 0, 0, 0, 0, 0}}}, opt); err == nil {
		t.Error("100 splits accepted, want at least 200")
	}
}

// TestDistributionFigures renders the figures of a small comparison: the
// panel holds the 12 most different items, the largest JSD first.
func TestDistributionFigures(t *testing.T) {
	rng := analysis.NewRand(3)
	var units []modelhuman.DistUnit
	for i := range 20 {
		w := []float64{1, 2, 3, 2, 1, 1, float64(i)}
		units = append(units, modelhuman.DistUnit{Item: "it" + analysis.Itoa(i), Condition: "cancel", Human: drawFrom(rng, w, 6), Model: []float64{0, 0, 0, 1, 0, 0, 0}})
	}
	d, err := modelhuman.CompareDistributions(units, modelhuman.DefaultDistOptions())
	if err != nil {
		t.Fatal(err)
	}
	top := d.MostDifferent(12)
	if len(top) != 12 || top[0].Measures[modelhuman.MeasureJSD].Model < top[11].Measures[modelhuman.MeasureJSD].Model {
		t.Fatalf("most different: %d items, not sorted by JSD", len(top))
	}
	figs, err := DistributionFigures(d)
	if err != nil || len(figs) != 3 {
		t.Fatalf("%d figures, %v", len(figs), err)
	}
	for _, f := range figs {
		b, err := PlotBytes(f.Plot, "svg")
		if err != nil || len(b) < 1000 {
			t.Errorf("%s: %d bytes, %v", f.Name, len(b), err)
		}
	}
	svg, _ := PlotBytes(figs[2].Plot, "svg")
	if !strings.Contains(string(svg), top[0].Item+" · cancel") {
		t.Errorf("the panel does not name the most different item %s", top[0].Item)
	}
}
