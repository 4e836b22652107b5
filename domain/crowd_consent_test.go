package domain

import (
	"testing"
	"time"
)

// TestTrainingPassesOnTheExpectedSide: a practice answer is right only on
// its side of the scale; 4 is right for neither condition.
func TestTrainingPassesOnTheExpectedSide(t *testing.T) {
	for r := RatingMin; r <= RatingMax; r++ {
		if got, want := TrainingPasses(ConditionTrigger, r), r >= 5; got != want {
			t.Errorf("trigger, %d: %v, want %v", r, got, want)
		}
		if got, want := TrainingPasses(ConditionCancel, r), r <= 3; got != want {
			t.Errorf("cancel, %d: %v, want %v", r, got, want)
		}
	}
}

func TestEstimatedMinutes(t *testing.T) {
	s := DefaultCrowdSettings()
	for _, c := range []struct {
		screens int
		per     time.Duration
		want    int
	}{
		{40, 0, 14},              // 40 × 20 s = 13 min 20 s, rounded up
		{40, 6 * time.Second, 4}, // the measured median
		{1, time.Second, 1},      // at least one minute
		{30, 30 * time.Second, 15},
	} {
		if got := s.EstimatedMinutes(c.screens, c.per); got != c.want {
			t.Errorf("%d screens at %v: %d minutes, want %d", c.screens, c.per, got, c.want)
		}
	}
	s.Minutes = 25
	if got := s.EstimatedMinutes(40, 0); got != 25 {
		t.Errorf("the researcher's figure: %d", got)
	}
}
