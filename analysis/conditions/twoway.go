package conditions

import (
	"math"
	"pragmalab/analysis"

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

// twoWay computes the variance of Σψ from the influences.
func twoWay(os []obs) TwoWay {
	byP, byI := map[int32]float64{}, map[int32]float64{}
	type cell struct{ p, i int32 }
	byPI := map[cell]float64{}
	for _, o := range os {
		byP[o.p] += o.psi
		byI[o.i] += o.psi
		byPI[cell{o.p, o.i}] += o.psi
	}
	sumsq := func(m map[int32]float64) float64 {
		s := 0.0
		for _, v := range m {
			s += v * v
		}
		return s
	}
	factor := func(g int) float64 { return float64(g) / float64(g-1) }
	w := TwoWay{Participants: len(byP), Items: len(byI), Cells: len(byPI)}
	if w.Participants < 2 || w.Items < 2 {
		w.V = math.NaN()
		return w
	}
	spi := 0.0
	for _, v := range byPI {
		spi += v * v
	}
	w.VP = factor(w.Participants) * sumsq(byP)
	w.VI = factor(w.Items) * sumsq(byI)
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
