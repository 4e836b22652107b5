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

// crowdUnits simulates a crowd study for the skill scores: items in two
// conditions, each unit's true distribution a discretised normal around
// its own centre (the cancelling condition lower), raters humans per
// unit; and three models of it: a good one (the true distribution), the
// uniform baseline and the random scorer (one point drawn in each of the
// two option orders, averaged, as the runner does).
func crowdUnits(rng interface {
	Float64() float64
	IntN(int) int
}, items, raters int) (good, uniform, random []DistUnit) {
	for i := range items {
		centre := 3.5 + 2.5*rng.Float64()
		for c, cond := range []string{"trigger", "cancel"} {
			mu := centre - 1.5*float64(c)
			w := make([]float64, 7)
			for k := range w {
				x := float64(k+1) - mu
				w[k] = math.Exp(-x * x / (2 * 1.2 * 1.2))
			}
			var tot float64
			for _, x := range w {
				tot += x
			}
			for k := range w {
				w[k] /= tot
			}
			humans := atest.DrawFrom(rng, w, raters)
			id := "item" + analysis.Itoa(i)
			u := make([]float64, 7)
			for k := range u {
				u[k] = 1.0 / 7
			}
			r := make([]float64, 7)
			r[rng.IntN(7)] += 0.5
			r[rng.IntN(7)] += 0.5
			good = append(good, DistUnit{Item: id, Condition: cond, Human: humans, Model: w})
			uniform = append(uniform, DistUnit{Item: id, Condition: cond, Human: humans, Model: u})
			random = append(random, DistUnit{Item: id, Condition: cond, Human: humans, Model: r})
		}
	}
	return good, uniform, random
}

// TestSkillSeparatesChanceFromAModel (docs/statistics.md#chance-baselines-and-skill): at 5 raters a
// unit, as the crowd's batches are, the uniform baseline is within the
// human ceiling on most units by JSD, nearly as often as a model that
// knows each unit's true distribution, so a within-share cannot tell them
// apart. The skill score can: about 0 for the uniform and the random
// scorers (at or below chance), well above 0 for the good model, their
// intervals apart.
func TestSkillSeparatesChanceFromAModel(t *testing.T) {
	for _, raters := range []int{5, 12} {
		good, uniform, random := crowdUnits(analysis.NewRand(11), 150, raters)
		sum := func(units []DistUnit) *DistSummary {
			d, err := CompareDistributions(units, DefaultDistOptions())
			if err != nil {
				t.Fatal(err)
			}
			return d.SummaryOf(MeasureJSD, "all")
		}
		g, u, r := sum(good), sum(uniform), sum(random)
		t.Logf("%d raters: within good %.2f uniform %.2f random %.2f; skill good %.2f %v (vs %s), uniform %.2f %v, random %.2f %v",
			raters, *g.WithinShare, *u.WithinShare, *r.WithinShare, *g.Skill, *g.SkillCI, g.SkillBaseline, *u.Skill, *u.SkillCI, *r.Skill, *r.SkillCI)
		if raters == 5 && *u.WithinShare < 0.5 {
			t.Errorf("5 raters: the uniform is within the ceiling on %.2f of units; the simulation should show the within-share's weakness", *u.WithinShare)
		}
		for name, s := range map[string]*DistSummary{"uniform": u, "random": r} {
			if *s.Skill > 0.05 || s.SkillCI[0] > 0.05 {
				t.Errorf("%d raters: %s's skill %.3f %v, want at or below 0 (chance)", raters, name, *s.Skill, *s.SkillCI)
			}
			if g.SkillCI[0] <= s.SkillCI[1] {
				t.Errorf("%d raters: the good model's skill %v overlaps the %s's %v", raters, *g.SkillCI, name, *s.SkillCI)
			}
		}
		if *g.Skill < 0.5 {
			t.Errorf("%d raters: the good model's skill %.3f, want well above 0", raters, *g.Skill)
		}
		// Against the uniform baseline, the uniform model scores exactly 0.
		if b := u.Baseline(BaselineUniform); b == nil || b.Skill == nil || math.Abs(*b.Skill) > 1e-12 {
			t.Errorf("%d raters: the uniform's skill against itself %+v, want 0", raters, b)
		}
		if !(g.SkillCI[0] <= *g.Skill && *g.Skill <= g.SkillCI[1]) {
			t.Errorf("the interval %v does not hold its estimate %v", *g.SkillCI, *g.Skill)
		}
	}
}

// TestSkillByHand: the skill score from three means, and undefined when
// the baseline leaves no room above the ceiling.
func TestSkillByHand(t *testing.T) {
	if got := Skill(0.2, 0.5, 0.1); math.Abs(got-0.75) > 1e-15 {
		t.Errorf("Skill(0.2, 0.5, 0.1) = %v, want 0.75", got)
	}
	if got := Skill(0.1, 0.5, 0.1); got != 1 {
		t.Errorf("a model at the ceiling: %v, want 1", got)
	}
	if got := Skill(0.6, 0.5, 0.1); got >= 0 {
		t.Errorf("a model worse than chance: %v, want below 0", got)
	}
	if got := Skill(0.2, 0.1, 0.1); !math.IsNaN(got) {
		t.Errorf("no room between chance and the ceiling: %v, want NaN", got)
	}
}
