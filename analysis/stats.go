package analysis

import (
	"math"
)

// Mean is the arithmetic mean of xs (NaN when empty).
func Mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Sum adds up xs.
func Sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// Set makes a membership set of ids.
func Set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// Share counts hits over the items that have what a measure needs;
// LeftOut counts the others.
type Share struct{ hits, n, LeftOut int }

// Add counts one item: left out unless ok, else a hit or a miss.
func (s *Share) Add(ok, hit bool) {
	switch {
	case !ok:
		s.LeftOut++
	case hit:
		s.hits++
		s.n++
	default:
		s.n++
	}
}

// Value is the share of hits, nil when no item counted.
func (s Share) Value() *float64 {
	if s.n == 0 {
		return nil
	}
	return Num(float64(s.hits) / float64(s.n))
}

// zeroTol is how far apart two mean z-scores (or a mean z and 0) must be
// to count as different: a mean of z-scores that should cancel exactly
// comes out as ±1e-16 or so, and that rounding must not decide whether an
// implicature is "recognised".
const zeroTol = 1e-12

// Above reports a > b beyond rounding (a − b > zeroTol).
func Above(a, b float64) bool { return a-b > zeroTol }

// Num turns a float into a JSON-safe pointer: NaN and ±Inf become nil (null).
func Num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
