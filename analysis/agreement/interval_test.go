package agreement

import (
	"fmt"
	"math"
	"os"
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
	"slices"
	"strings"
	"testing"
)

// drawsText renders b replicates of drawStrata over strata as the text
// analysis/agreement/testdata/*_draws and analysis/toplines/testdata/*_draws.txt hold: one line per replicate, each member's
// name and multiplicity ("i1:2 i3:1 …", members drawn zero times omitted).
func drawsText(seed uint64, b int, strata [][]int, names []string) string {
	rng := analysis.NewRand(seed)
	w := make([]int32, len(names))
	var sb strings.Builder
	for range b {
		analysis.DrawStrata(rng, strata, w)
		sep := ""
		for i, n := range w {
			if n > 0 {
				fmt.Fprintf(&sb, "%s%s:%d", sep, names[i], n)
				sep = " "
			}
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

func TestWilson(t *testing.T) {
	// References: analysis/testdata/interval_ref.py (Python 3.11, the Wilson
	// formula written as the quadratic's two roots); 0/10 and 10/10 also
	// match Wilson (1927)'s closed forms [0, z²/(n+z²)] and [n/(n+z²), 1].
	for _, tc := range []struct {
		hits, n int
		lo, hi  float64
	}{
		{7, 10, 0.396778147461145, 0.892208732593699},
		{0, 10, 0, 0.277532799862889},
		{10, 10, 0.722467200137111, 1},
		{43, 54, 0.670976933116646, 0.882259459125786},
	} {
		got := analysis.Wilson(tc.hits, tc.n)
		if got == nil || math.Abs(got[0]-tc.lo) > 1e-12 || math.Abs(got[1]-tc.hi) > 1e-12 {
			t.Errorf("Wilson(%d, %d) = %v, want [%v, %v]", tc.hits, tc.n, got, tc.lo, tc.hi)
		}
	}
	if analysis.Wilson(0, 0) != nil {
		t.Error("Wilson(0, 0) should be undefined")
	}
}

func TestPercentileCI(t *testing.T) {
	// numpy.percentile's default (linear) = statistics.quantiles(method="inclusive").
	vals := []float64{5, 1, 4, 2, 3, math.NaN()}
	one := 1.0
	// 5 of 6 defined < 90 %: no interval.
	if ci := analysis.PercentileCI(&one, vals); ci != nil {
		t.Errorf("interval %v from 5 of 6 replicates", ci)
	}
	vals = []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	if ci := analysis.PercentileCI(&one, vals); !atest.NearCI(ci, 1.225, 9.775) {
		t.Errorf("interval %v, want [1.225, 9.775]", ci)
	}
	if analysis.PercentileCI(nil, vals) != nil {
		t.Error("interval for an undefined estimate")
	}
}

// TestAgreementBootstrapReference checks the agreement intervals against
// analysis/agreement/testdata/agreement_ref.py, which rebuilds every replicate of
// agreement_boot_draws.txt as a literal data set (items copied) and
// computes the statistics from scratch (Python 3.11 stdlib).
func TestAgreementBootstrapReference(t *testing.T) {
	f, err := os.Open("testdata/agreement_boot.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	js, err := ReadJudgements(f)
	if err != nil {
		t.Fatal(err)
	}
	const seed, reps = 7, 200
	d := newAgreeData(js)
	var strata [][]int
	seen := map[string]int{}
	for i, typ := range d.types {
		k, ok := seen[typ]
		if !ok {
			k = len(strata)
			seen[typ] = k
			strata = append(strata, nil)
		}
		strata[k] = append(strata[k], i)
	}
	atest.CheckDraws(t, "testdata/agreement_boot_draws.txt", drawsText(seed, reps, strata, d.items))
	ag := ComputeAgreementWith(js, analysis.Bootstrap{Replicates: reps, Seed: seed})
	check := func(name string, v *float64, ci *analysis.CI, w refValue) {
		t.Helper()
		if !atest.Near(v, w.point) || (w.noCI && ci != nil) || (!w.noCI && !atest.NearCI(ci, w.lo, w.hi)) {
			t.Errorf("%s = %s %v, want %v [%v, %v]", name, atest.FmtPtr(v), ci, w.point, w.lo, w.hi)
		}
	}
	for _, g := range []struct {
		name string
		a    *Agreement
		p, c map[string]refValue
	}{
		{"all", ag, refAll(), refAllCanc()},
		{"scalar", ag.ByType["scalar"], refScalar(), refScalarCanc()},
	} {
		for qi, q := range []*Question{&g.a.Plausibility, &g.a.Cancellation} {
			ref := []map[string]refValue{g.p, g.c}[qi]
			pre := fmt.Sprintf("%s/%d ", g.name, qi)
			check(pre+"raw", q.Raw, q.RawCI, ref["raw"])
			check(pre+"pabak", q.PABAK, q.PABAKCI, ref["pabak"])
			check(pre+"light", q.LightsKappa, q.LightsKappaCI, ref["light"])
			check(pre+"fleiss", q.FleissKappa, q.FleissKappaCI, ref["fleiss"])
			check(pre+"alpha", q.KrippendorffAlpha, q.KrippendorffAlphaCI, ref["alpha"])
			pair := []Binary{g.a.Pairs[0].Plausibility, g.a.Pairs[0].Cancellation}[qi]
			check(pre+"pair a–b κ", pair.Kappa, pair.KappaCI, ref["pair01_kappa"])
			if q.Kappa != nil {
				t.Errorf("%s: pooled Cohen's κ %v with three annotators", pre, *q.Kappa)
			}
		}
	}
}

func TestIntervalMethods(t *testing.T) {
	vals := make([]float64, 101)
	for i := range vals {
		vals[i] = float64(i) / 100 // replicates 0, 0.01, …, 1
	}
	half := 0.5
	// z0 = 0 (half the replicates below, one tie) and no acceleration: the
	// BCa interval is the percentile interval.
	if ci, want := analysis.BcaCI(&half, vals, nil), analysis.PercentileCI(&half, slices.Clone(vals)); !atest.NearCI(ci, want[0], want[1]) {
		t.Errorf("BCa with z0 = 0, a = 0: %v, want the percentile interval %v", ci, want)
	}
	// Replicates centred 0.2 below the estimate 0.7: the basic interval
	// moves up by as much, [2·0.7 − 0.975, 2·0.7 − 0.025].
	est := 0.7
	if ci := analysis.BasicCI(&est, vals, nil, nil, 0, 1); !atest.NearCI(ci, 0.425, 1) {
		t.Errorf("basic: %v, want [0.425, 1] (upper bound 1.375 kept within [0, 1])", ci)
	}
	// Extrapolation: estimate 0.6, replicates' mean 0.5, second level's
	// mean 0.45 → centre 3·0.6 − 3·0.5 + 0.45 = 0.75, bounds 0.75 ∓ 0.475.
	lvl2 := make([]float64, len(vals))
	for i, v := range vals {
		lvl2[i] = v - 0.05
	}
	six := 0.6
	if ci := analysis.ExtrapolatedCI(&six, vals, lvl2, false, -1, 2); !atest.NearCI(ci, 0.275, 1.225) {
		t.Errorf("extrapolated: %v, want [0.275, 1.225]", ci)
	}
	// With one trial per cluster the clustered Wilson interval is Wilson's
	// over n − 1 trials (the C/(C − 1) of the cluster-robust variance), and
	// it is wider when a cluster's trials agree.
	ones := []float64{1, 1, 1, 0, 1, 0, 1, 1}
	if ci, w := analysis.ClusterWilson(ones, []float64{1, 1, 1, 1, 1, 1, 1, 1}), analysis.WilsonN(0.75, 7); !atest.NearCI(ci, w[0], w[1]) {
		t.Errorf("one trial per cluster: %v, want Wilson over 7 trials %v", ci, *w)
	}
	together := []float64{3, 0, 3, 0}
	if ci, w := analysis.ClusterWilson(together, []float64{3, 3, 3, 3}), analysis.Wilson(6, 12); !(ci[0] < w[0] && ci[1] > w[1]) {
		t.Errorf("clusters that agree within: %v, want wider than Wilson(6, 12) %v", ci, *w)
	}
	// Widening to hold the estimate.
	if ci := analysis.WithPoint(&analysis.CI{0.2, 0.4}, &half); *ci != (analysis.CI{0.2, 0.5}) {
		t.Errorf("withPoint: %v", ci)
	}
}
