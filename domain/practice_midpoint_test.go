package domain

import (
	"strings"
	"testing"
)

// TestNoPracticeItemExpectsTheMidpoint: a practice item expects one side
// of the scale (high or low; docs/studies.md#rating-scale), so none can
// expect the midpoint an even scale lacks: an item file's training value
// "mid" and a training setting in another condition are refused by name.
func TestNoPracticeItemExpectsTheMidpoint(t *testing.T) {
	it := Item{Key: "p1", Type: "scalar", Utterance: "u", Implicature: "b", Cancellation: "x", Training: "mid"}
	err := it.Validate()
	if fe, ok := err.(*FieldError); !ok || fe.Field != "training" || !strings.Contains(fe.Msg, "high or low") {
		t.Errorf("training mid: %v", err)
	}
	s := DefaultCrowdSettings()
	s.ScalePoints, s.CheckHighMin, s.CheckLowMax = 6, 4, 3
	s.ScaleLabels = map[string]string{"1": "never", "6": "surely"}
	s.Training = []CrowdTrainingSpec{{Key: "p1", Condition: "midpoint"}}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "training line 1 (p1): condition must be trigger or cancel") {
		t.Errorf("an even scale's practice item in no side: %v", err)
	}
}
