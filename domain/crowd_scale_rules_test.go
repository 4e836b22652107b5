package domain

import (
	"strconv"
	"strings"
	"testing"
)

// TestCrowdScaleEndLabelsRequired: a scale with labels of its own, or of
// other than 7 points, labels both its ends; the default 7-point scale
// without labels (whose ends the catalog labels) is accepted. Nothing is
// filled in: a refused setting keeps the labels it was given.
func TestCrowdScaleEndLabelsRequired(t *testing.T) {
	for _, c := range []struct {
		points int
		labels map[string]string
		want   string
	}{
		{7, nil, ""},
		{7, map[string]string{"1": "never", "7": "surely"}, ""},
		{7, map[string]string{"1": "völlig unnatürlich"}, "the high end, point 7 of 7, has no label"},
		{7, map[string]string{"7": "surely"}, "the low end, point 1 of 7, has no label"},
		{7, map[string]string{"4": "maybe"}, "the low end, point 1 of 7"},
		{5, nil, "the low end, point 1 of 5, has no label; the default labels belong to the 7-point scale"},
		{5, map[string]string{"1": "völlig unnatürlich"}, "the high end, point 5 of 5, has no label"},
		{5, map[string]string{"1": "never", "5": "  "}, "the high end, point 5 of 5"},
		{5, map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}, ""},
	} {
		s := DefaultCrowdSettings()
		s.ScalePoints, s.ScaleLabels, s.CheckHighMin, s.CheckLowMax = c.points, c.labels, 4, 2
		n := len(c.labels)
		err := s.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%d points %v: %v, want %q", c.points, c.labels, err, c.want)
		}
		if len(s.ScaleLabels) != n {
			t.Errorf("%d points %v: labels became %v", c.points, c.labels, s.ScaleLabels)
		}
	}
}

// TestCrowdCheckThresholdsFitTheScale: the check thresholds lie on the
// scale and do not overlap; the message names both fields and the scale.
func TestCrowdCheckThresholdsFitTheScale(t *testing.T) {
	for _, c := range []struct {
		points, high, low int
		want              string
	}{
		{7, 5, 3, ""},
		{5, 4, 2, ""},
		{5, 2, 4, "check thresholds overlap on the 5-point scale: the low check threshold (check_low_max, 4) must be below the high one (check_high_min, 2)"},
		{5, 3, 3, "overlap on the 5-point scale"},
		{5, 5, 3, ""}, // the defaults fit 5 points
		{3, 5, 3, "high check threshold (check_high_min) must be 1–3 on the 3-point scale, got 5"},
		{3, 3, 1, ""},
		{2, 2, 1, ""},
		{2, 2, 3, "low check threshold (check_low_max) must be 1–2 on the 2-point scale, got 3"},
		{2, 1, 1, "overlap on the 2-point scale"},
	} {
		s := DefaultCrowdSettings()
		s.ScalePoints, s.CheckHighMin, s.CheckLowMax = c.points, c.high, c.low
		if c.points != 7 {
			s.ScaleLabels = map[string]string{"1": "never", strconv.Itoa(c.points): "surely"}
		}
		err := s.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%d points, high %d, low %d: %v, want %q", c.points, c.high, c.low, err, c.want)
		}
	}
}
