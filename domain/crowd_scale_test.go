package domain

import (
	"strings"
	"testing"
)

// TestCrowdScaleValidate: the scale's points and labels are checked, and
// the message names the field.
func TestCrowdScaleValidate(t *testing.T) {
	for _, c := range []struct {
		points int
		labels map[string]string
		want   string
	}{
		{1, nil, "scale points must be 2–11, got 1"},
		{12, nil, "scale points must be 2–11, got 12"},
		{7, map[string]string{"9": "surely"}, "scale labels: point 9 is outside the scale of 7 points"},
		{5, map[string]string{"01": "never"}, `scale labels: "01" is not a point`},
		{5, map[string]string{"1": "never", "5": "surely"}, ""},
	} {
		s := DefaultCrowdSettings()
		s.ScalePoints, s.ScaleLabels, s.CheckHighMin = c.points, c.labels, 4
		err := s.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%d points %v: %v, want %q", c.points, c.labels, err, c.want)
		}
	}
}

// TestPracticePassesFollowsTheMidpoint: the expected side of a practice
// item is above or below the scale's midpoint, which is right for neither.
func TestPracticePassesFollowsTheMidpoint(t *testing.T) {
	for _, c := range []struct {
		points          int
		highFrom, lowTo int
	}{{7, 5, 3}, {5, 4, 2}, {6, 4, 3}, {2, 2, 1}, {11, 7, 5}} {
		s := CrowdSettings{ScalePoints: c.points}
		for r := 1; r <= c.points; r++ {
			if got := s.PracticePasses(ConditionTrigger, r); got != (r >= c.highFrom) {
				t.Errorf("%d points, trigger, rating %d: %v", c.points, r, got)
			}
			if got := s.PracticePasses(ConditionCancel, r); got != (r <= c.lowTo) {
				t.Errorf("%d points, cancel, rating %d: %v", c.points, r, got)
			}
		}
	}
	// The 7-point rule is TrainingPasses's.
	s := DefaultCrowdSettings()
	for r := 1; r <= 7; r++ {
		for _, cond := range []string{ConditionTrigger, ConditionCancel} {
			if s.PracticePasses(cond, r) != TrainingPasses(cond, r) {
				t.Errorf("7 points, %s, %d: PracticePasses and TrainingPasses differ", cond, r)
			}
		}
	}
}
