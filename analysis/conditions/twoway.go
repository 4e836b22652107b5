package conditions

import (
	"maps"
	"math"
	"pragmalab/analysis"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// obs is one rating entering a linear statistic: its participant and item
// (indices), and its influence ψ, the statistic's change per unit of the
// rating, times the rating's residual.
type obs struct {
	p, i int32
	psi  float64
}

// TwoWay is the two-way cluster-robust variance of a statistic
// (docs/statistics.md#the-two-way-interval; Cameron, Gelbach & Miller
// 2011), with the parts it is made of.
type TwoWay struct {
	// Participants and Items count the clusters the statistic's ratings
	// fall in; Cells the participant × item cells.
	Participants, Items, Cells int
	// VP, VI and VPI are the one-way variances clustered by participant, by
	// item and by cell, each with its small-sample factor G/(G−1).
	VP, VI, VPI float64
	// V is VP + VI − VPI, or, where that is not positive, the larger of VP
	// and VI (OneWay set).
	V      float64
	OneWay bool
}

// twoWay computes the variance of Σψ from the influences. The cluster
// sums are added in cluster order, so the same input gives the same bits.
func twoWay(os []obs) TwoWay {
	np, ni := int32(0), int32(0)
	for _, o := range os {
		np, ni = max(np, o.p+1), max(ni, o.i+1)
	}
	byP, byI := make([]float64, np), make([]float64, ni)
	seenP, seenI := make([]bool, np), make([]bool, ni)
	byPI := map[int64]float64{}
	for _, o := range os {
		byP[o.p] += o.psi
		byI[o.i] += o.psi
		seenP[o.p], seenI[o.i] = true, true
		byPI[int64(o.p)*int64(ni)+int64(o.i)] += o.psi
	}
	sumsq := func(sums []float64, seen []bool) (float64, int) {
		s, g := 0.0, 0
		for k, v := range sums {
			if seen[k] {
				s += v * v
				g++
			}
		}
		return s, g
	}
	cells := slices.Sorted(maps.Keys(byPI))
	factor := func(g int) float64 { return float64(g) / float64(g-1) }
	sp, gp := sumsq(byP, seenP)
	si, gi := sumsq(byI, seenI)
	w := TwoWay{Participants: gp, Items: gi, Cells: len(cells)}
	if w.Participants < 2 || w.Items < 2 {
		w.V = math.NaN()
		return w
	}
	spi := 0.0
	for _, k := range cells {
		spi += byPI[k] * byPI[k]
	}
	w.VP = factor(w.Participants) * sp
	w.VI = factor(w.Items) * si
	if w.Cells > 1 {
		w.VPI = factor(w.Cells) * spi
	}
	w.V = w.VP + w.VI - w.VPI
	if !(w.V > 0) {
		w.V, w.OneWay = max(w.VP, w.VI), true
	}
	return w
}

// DF is the degrees of freedom of the interval's t quantile: one fewer
// than the smaller number of clusters (Cameron & Miller 2015).
func (w TwoWay) DF() int { return min(w.Participants, w.Items) - 1 }

// CI is the 95 % interval θ ± t(0.975, DF)·√V; nil with the reason when
// there are fewer than 2 participants or items, or no variance.
func (w TwoWay) CI(theta float64) (*analysis.CI, string) {
	switch {
	case w.Participants < 2:
		return nil, "fewer than 2 participants"
	case w.Items < 2:
		return nil, "fewer than 2 items"
	case !(w.V > 0):
		return nil, "no variation"
	}
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(w.DF())}.Quantile(0.975) * math.Sqrt(w.V)
	return &analysis.CI{theta - half, theta + half}, ""
}
