package analysis

import (
	"math"
	"testing"
)

// krippendorffPaper is the worked example of Krippendorff (2011),
// "Computing Krippendorff's Alpha-Reliability", section C: 4 observers
// (rows) × 12 units, NaN where an observer gave no value.
func krippendorffPaper() [][]float64 {
	n := math.NaN()
	return [][]float64{
		{1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n},
		{1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3},
		{n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n},
		{1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n},
	}
}

func TestKrippendorffPaperExample(t *testing.T) {
	for _, tc := range []struct {
		m     Metric
		paper float64 // as printed in the paper (3 decimals)
		ref   float64 // analysis/testdata/krippendorff_ref.py (Python 3.11, pairs enumerated)
	}{
		{Nominal, 0.743, 0.743421052631579},
		{Ordinal, 0.815, 0.8153875037548814},
		{Interval, 0.849, 0.8491071428571428},
	} {
		got, ok := KrippendorffAlphaData(krippendorffPaper(), tc.m)
		if !ok || math.Abs(got-tc.paper) > 0.0005 || math.Abs(got-tc.ref) > 1e-12 {
			t.Errorf("metric %d: α = %v (ok %v), paper %.3f, reference %v", tc.m, got, ok, tc.paper, tc.ref)
		}
	}
}

func TestKrippendorffUndefinedAndWeights(t *testing.T) {
	// One value per unit: nothing pairable.
	if _, ok := KrippendorffAlpha([][]int{{1, 0}, {0, 1}}, Nominal, nil); ok {
		t.Error("α defined without a pairable unit")
	}
	// Every value in one category: no expected disagreement.
	if _, ok := KrippendorffAlpha([][]int{{2, 0}, {3, 0}}, Nominal, nil); ok {
		t.Error("α defined with a single category")
	}
	// Weight 2 on a unit equals listing it twice.
	counts := [][]int{{2, 0}, {1, 1}, {0, 3}}
	twice := [][]int{{2, 0}, {1, 1}, {1, 1}, {0, 3}}
	a, _ := KrippendorffWeighted(counts, []int32{1, 2, 1}, Ordinal, nil)
	b, _ := KrippendorffAlpha(twice, Ordinal, nil)
	if math.Abs(a-b) > 1e-15 {
		t.Errorf("weighted %v, listed twice %v", a, b)
	}
}
