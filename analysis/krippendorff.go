package analysis

import (
	"math"
	"slices"
)

// Metric is the difference function of Krippendorff's α.
type Metric uint8

// The metrics of Krippendorff (2011), "Computing Krippendorff's
// Alpha-Reliability", section C.
const (
	Nominal  Metric = iota // δ = 0 for equal values, 1 otherwise
	Ordinal                // δ from the ranks' marginal frequencies
	Interval               // δ = (c − k)²
)

// KrippendorffAlpha computes α from per-unit category counts: counts[u][c]
// is how many observers put unit u in category c (a missing value is just
// not counted). Categories are ordered by index for the ordinal metric;
// values[c] is category c's number for the interval metric (nil means the
// index). Units with fewer than two values are not pairable and drop out,
// as in the paper. ok is false when α is undefined: no pairable unit, or
// every pairable value in one category (expected disagreement 0).
func KrippendorffAlpha(counts [][]int, m Metric, values []float64) (float64, bool) {
	return KrippendorffWeighted(counts, nil, m, values)
}

// KrippendorffWeighted is α with unit u counted w[u] times (w nil: once):
// a bootstrap replicate without copying units.
func KrippendorffWeighted(counts [][]int, w []int32, m Metric, values []float64) (float64, bool) {
	return KrippendorffSubset(counts, nil, w, m, values)
}

// KrippendorffSubset is α over the units idx (nil: all), unit u counted
// w[u] times (w nil: once).
func KrippendorffSubset(counts [][]int, idx []int, w []int32, m Metric, values []float64) (float64, bool) {
	if len(counts) == 0 {
		return math.NaN(), false
	}
	k := len(counts[0])
	var buf [64]float64
	var o []float64
	if k*k <= len(buf) {
		o = buf[:k*k] // coincidence matrix o[c][k], on the stack for up to 8 categories
	} else {
		o = make([]float64, k*k)
	}
	n := len(counts)
	if idx != nil {
		n = len(idx)
	}
	for j := range n {
		u := j
		if idx != nil {
			u = idx[j]
		}
		wu := 1.0
		if w != nil {
			if w[u] == 0 {
				continue
			}
			wu = float64(w[u])
		}
		addCoincidences(o, k, counts[u], wu)
	}
	var mbuf [8]float64
	var marg []float64
	if k <= len(mbuf) {
		marg = mbuf[:k]
	} else {
		marg = make([]float64, k)
	}
	total := marginals(o, k, marg)
	if total <= 1 {
		return math.NaN(), false
	}
	do, de := disagreements(o, k, marg, m, values)
	if de == 0 {
		return math.NaN(), false
	}
	return 1 - (total-1)*do/de, true
}

// addCoincidences adds a unit's pairable values, counted wu times, to the
// coincidence matrix o (k×k); a unit with fewer than two values adds none.
func addCoincidences(o []float64, k int, row []int, wu float64) {
	mu := 0
	for _, c := range row {
		mu += c
	}
	if mu < 2 {
		return
	}
	f := wu / float64(mu-1)
	for c, nc := range row {
		if nc == 0 {
			continue
		}
		for d, nd := range row {
			if c == d {
				o[c*k+d] += f * float64(nc*(nc-1))
			} else if nd > 0 {
				o[c*k+d] += f * float64(nc*nd)
			}
		}
	}
}

// marginals fills marg with the row sums of the coincidence matrix o and
// returns their total, the number of pairable values.
func marginals(o []float64, k int, marg []float64) float64 {
	var total float64
	for c := range k {
		for d := range k {
			marg[c] += o[c*k+d]
		}
		total += marg[c]
	}
	return total
}

// disagreements are the observed (do) and expected (de) disagreements of
// the coincidence matrix o under the metric m.
func disagreements(o []float64, k int, marg []float64, m Metric, values []float64) (do, de float64) {
	for c := range k {
		for d := range k {
			if c == d {
				continue
			}
			dl := krippDelta(m, c, d, marg, values)
			do += o[c*k+d] * dl
			de += marg[c] * marg[d] * dl
		}
	}
	return do, de
}

// krippDelta is the metric's squared difference δ² between categories c
// and d: ordinal by the marginals between them, interval by the values
// (the category's index without them), nominal 0 or 1.
func krippDelta(m Metric, c, d int, marg, values []float64) float64 {
	switch m {
	case Ordinal:
		lo, hi := min(c, d), max(c, d)
		var s float64
		for g := lo; g <= hi; g++ {
			s += marg[g]
		}
		s -= (marg[c] + marg[d]) / 2
		return s * s
	case Interval:
		vc, vd := float64(c), float64(d)
		if values != nil {
			vc, vd = values[c], values[d]
		}
		return (vc - vd) * (vc - vd)
	}
	if c == d {
		return 0
	}
	return 1
}

// KrippendorffAlphaData computes α from a reliability data matrix as the
// paper lays it out: data[observer][unit], NaN for a missing value. The
// categories are the distinct values, sorted.
func KrippendorffAlphaData(data [][]float64, m Metric) (float64, bool) {
	var vals []float64
	for _, obs := range data {
		for _, v := range obs {
			if !math.IsNaN(v) && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	slices.Sort(vals)
	if len(data) == 0 {
		return math.NaN(), false
	}
	counts := make([][]int, len(data[0]))
	for u := range counts {
		counts[u] = make([]int, len(vals))
		for _, obs := range data {
			if v := obs[u]; !math.IsNaN(v) {
				counts[u][slices.Index(vals, v)]++
			}
		}
	}
	return KrippendorffAlpha(counts, m, vals)
}
