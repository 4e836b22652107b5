package toplines

import (
	"testing"
)

// TestParseRatingAnyScale: ratings of any study scale (1–11) are read;
// 0, 12, leading zeros and non-digits are not.
func TestParseRatingAnyScale(t *testing.T) {
	for s, want := range map[string]int{"1": 1, "7": 7, "9": 9, "10": 10, "11": 11, "0": -1, "12": -1, "05": -1, "": -1, "1a": -1, "x": -1, "100": -1} {
		v, ok := parseRating(s)
		if want < 0 && ok || want >= 0 && (!ok || int(v) != want) {
			t.Errorf("parseRating(%q) = %d, %v; want %d", s, v, ok, want)
		}
	}
}
