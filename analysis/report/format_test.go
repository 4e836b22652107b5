package report

import (
	"pragmalab/analysis"
	"testing"
)

func TestFixedRoundsTheDecimalFormHalfAwayFromZero(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		d    int
		want string
	}{
		{0.925, 2, "0.93"}, // %.2f gives 0.93 too, but 100×0.925 = 92.5 gave "92 %"
		{0.125, 2, "0.13"}, // %.2f: "0.12" (half to even)
		{2.675, 2, "2.68"}, // binary 2.67499999…: %.2f gives "2.67"
		{-0.125, 2, "-0.13"},
		{-0.001, 2, "0.00"},
		{0.995, 2, "1.00"},
		{9.995, 2, "10.00"},
		{1, 2, "1.00"},
		{0, 2, "0.00"},
		{1e-7, 2, "0.00"},
		{0.0005, 3, "0.001"},
		{12.5, 0, "13"},
		{1e21, 2, "1000000000000000000000.00"},
	} {
		if got := analysis.Fixed(tc.x, tc.d); got != tc.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", tc.x, tc.d, got, tc.want)
		}
	}
	for x, want := range map[float64]string{0.925: "93", 0.125: "13", 1: "100", 0.05: "5", 0.004: "0", 0: "0", 0.999: "100"} {
		if got := analysis.Percent(x); got != want {
			t.Errorf("Percent(%v) = %q, want %q", x, got, want)
		}
	}
	v := 0.925
	if got := Text(&v); got != "0.93" {
		t.Errorf("table cell of 0.925 = %q", got)
	}
}
