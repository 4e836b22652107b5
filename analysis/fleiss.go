package analysis

import (
	"math"
)

// FleissKappa computes Fleiss' κ from counts[i][j], the number of raters
// who put subject i in category j; every row must have the same total n ≥ 2.
// ok is false when κ is undefined: no subjects, unequal or too few raters,
// or every rating in a single category (chance agreement 1, κ = 0/0).
func FleissKappa(counts [][]int) (float64, bool) { return fleissWeighted(counts, nil) }

// fleissWeighted is Fleiss' κ with subject i counted w[i] times (w nil: once).
func fleissWeighted(counts [][]int, w []int32) (float64, bool) {
	if len(counts) == 0 {
		return math.NaN(), false
	}
	n := Sum(counts[0])
	if n < 2 {
		return math.NaN(), false
	}
	k := len(counts[0])
	colTotals := make([]float64, k)
	var pBar, N float64
	for i, row := range counts {
		if len(row) != k || Sum(row) != n {
			return math.NaN(), false
		}
		wi := 1.0
		if w != nil {
			wi = float64(w[i])
		}
		var agree float64
		for j, c := range row {
			colTotals[j] += wi * float64(c)
			agree += float64(c * (c - 1))
		}
		pBar += wi * agree / float64(n*(n-1))
		N += wi
	}
	if N == 0 {
		return math.NaN(), false
	}
	pBar /= N
	var pe float64
	for _, t := range colTotals {
		p := t / (N * float64(n))
		pe += p * p
	}
	if pe >= 1 {
		return math.NaN(), false
	}
	return (pBar - pe) / (1 - pe), true
}
