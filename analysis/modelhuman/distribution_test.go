package modelhuman

import (
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
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
		{"JSD disjoint is one bit", MeasureJSD, []float64{1, 0}, []float64{0, 1}, 1},
		{"JSD equal", MeasureJSD, []float64{0.2, 0.8}, []float64{0.2, 0.8}, 0},
		{"JSD half vs point", MeasureJSD, []float64{0.5, 0.5}, []float64{1, 0}, jsdHalf},
		{"Wasserstein ends of a 7-point scale", MeasureWasserstein, []float64{1, 0, 0, 0, 0, 0, 0}, []float64{0, 0, 0, 0, 0, 0, 1}, 1},
		// All mass at 3 against half at 2, half at 5: ½·1 + ½·2 = 1.5 points, /6.
		{"Wasserstein split mass", MeasureWasserstein, []float64{0, 0, 1, 0, 0, 0, 0}, []float64{0, 0.5, 0, 0, 0.5, 0, 0}, 0.25},
		{"TV", MeasureTV, []float64{0.5, 0.5, 0}, []float64{0, 0.5, 0.5}, 0.5},
		// KL((½,½) ‖ (1,0) smoothed by 0.01): q′ = (1.01/1.02, 0.01/1.02).
		{"KL smoothed", MeasureKL, []float64{0.5, 0.5}, []float64{1, 0}, 0.5*math.Log2(0.5/(1.01/1.02)) + 0.5*math.Log2(0.5/(0.01/1.02))},
	}
	for _, c := range cases {
		if got := Distance(c.measure, c.p, c.q, DefaultKLSmoothing); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCeilingByHand: small units have few splits, all of them averaged.
func TestCeilingByHand(t *testing.T) {
	opt := DefaultDistOptions()
	rng := analysis.NewRand(1)
	// {1, 7}: the only split is {1} | {7}: JSD 1, Wasserstein 1, TV 1.
	c, exh := SplitHalfCeiling([]int{1, 7}, opt, rng)
	if !exh || c[MeasureJSD] != 1 || c[MeasureWasserstein] != 1 || c[MeasureTV] != 1 {
		t.Errorf("{1,7}: %v exhaustive %v, want 1s", c, exh)
	}
	// {1, 1, 7, 7}: of the 6 ways to pick 2, two give {1,1} | {7,7} (TV 1),
	// four give {1,7} | {1,7} (TV 0): the ceiling is 1/3 exactly.
	c, exh = SplitHalfCeiling([]int{1, 1, 7, 7}, opt, rng)
	if !exh || math.Abs(c[MeasureTV]-1.0/3) > 1e-12 || math.Abs(c[MeasureJSD]-1.0/3) > 1e-12 {
		t.Errorf("{1,1,7,7}: %v, want TV and JSD 1/3", c)
	}
	// {2, 2, 2, 2}: every half is all 2s.
	c, _ = SplitHalfCeiling([]int{2, 2, 2, 2}, opt, rng)
	if c[MeasureTV] != 0 || c[MeasureWasserstein] != 0 {
		t.Errorf("unanimous: %v, want 0", c)
	}
	// 20 humans: C(20,10) splits are too many; random ones are drawn. Half
	// rate 1 and half 7: a random half holds h ones, TV = |h − (10 − h)|/10;
	// its mean over the hypergeometric h is E|2h − 10|/10 ≈ 0.1762.
	var r []int
	for i := range 20 {
		r = append(r, 1+6*(i%2))
	}
	c, exh = SplitHalfCeiling(r, opt, rng)
	want := 0.0
	for h := 0; h <= 10; h++ {
		want += binom(10, h) * binom(10, 10-h) / binom(20, 10) * math.Abs(float64(2*h-10)) / 10
	}
	if exh || math.Abs(c[MeasureTV]-want) > 0.03 {
		t.Errorf("20 humans: TV ceiling %v (exhaustive %v), want about %v from random splits", c[MeasureTV], exh, want)
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
	var sampler, four []DistUnit
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
		humans := atest.DrawFrom(rng, w, 10)
		// The sampler: 10 answers drawn from the humans' own ratings.
		var s []int
		for range 10 {
			s = append(s, humans[rng.IntN(len(humans))])
		}
		item := "item" + analysis.Itoa(i)
		sampler = append(sampler, DistUnit{Item: item, Condition: "trigger", Human: humans, Model: Histogram(s, 7)})
		four = append(four, DistUnit{Item: item, Condition: "trigger", Human: humans, Model: []float64{0, 0, 0, 1, 0, 0, 0}})
	}
	ds, err := CompareDistributions(sampler, DefaultDistOptions())
	if err != nil {
		t.Fatal(err)
	}
	df, err := CompareDistributions(four, DefaultDistOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Measures {
		s, f := *ds.SummaryOf(m, "trigger").WithinShare, *df.SummaryOf(m, "trigger").WithinShare
		t.Logf("%s: sampler within the ceiling on %.2f of items, always-4 on %.2f", m, s, f)
		if s < 0.75 || f > 0.05 {
			t.Errorf("%s: sampler within on %.2f of items (want ≥ 0.75), always-4 on %.2f (want ≤ 0.05)", m, s, f)
		}
	}
}

func TestDistributionsBadInput(t *testing.T) {
	opt := DefaultDistOptions()
	cases := []struct {
		u    DistUnit
		want string
	}{
		{DistUnit{Item: "a", Condition: "trigger", Model: []float64{1, 0, 0, 0, 0, 0, 0}}, `item "a", condition "trigger" has no human rating`},
		{DistUnit{Item: "a", Condition: "cancel", Human: []int{8}, Model: []float64{1, 0, 0, 0, 0, 0, 0}}, "rating 8 is off the 1–7 scale"},
		{DistUnit{Item: "a", Condition: "cancel", Human: []int{3}, Model: []float64{0.5, 0, 0, 0, 0, 0, 0}}, "sum to 0.5"},
		{DistUnit{Item: "a", Condition: "cancel", Human: []int{3}, Model: []float64{1}}, "has 1 points, the scale 7"},
	}
	for _, c := range cases {
		if _, err := CompareDistributions([]DistUnit{c.u}, opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.u, err, c.want)
		}
	}
	opt.Splits = 100
	if _, err := CompareDistributions([]DistUnit{{Human: []int{1}, Model: []float64{1, 0, 0, 0, 0, 0, 0}}}, opt); err == nil {
		t.Error("100 splits accepted, want at least 200")
	}
}
