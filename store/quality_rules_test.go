package store

import (
	"testing"

	"pragmalab/domain"
)

// A participant far faster than the others (more than 3 SD below the mean
// total time of those who completed) is flagged exceptionally fast; one
// merely faster than most is not, nor is anyone among fewer than three.
func TestMarkExceptionallyFast(t *testing.T) {
	var reps []CrowdParticipantReport
	qs := map[int64]domain.CrowdQuality{}
	for i := range 20 {
		id := int64(i + 1)
		total := 600 + 10*(i%5)
		switch i {
		case 0:
			total = 30
		case 1:
			total = 420
		}
		reps = append(reps, CrowdParticipantReport{CrowdParticipant: &CrowdParticipant{ID: id, Status: CrowdCompleted}})
		qs[id] = domain.CrowdQuality{TotalSeconds: total}
	}
	markExceptionallyFast(reps, qs)
	for id, q := range qs {
		if q.ExceptionallyFast != (id == 1) {
			t.Errorf("participant %d (total %d s): exceptionally fast %v", id, q.TotalSeconds, q.ExceptionallyFast)
		}
	}
	few := map[int64]domain.CrowdQuality{1: {TotalSeconds: 1}, 2: {TotalSeconds: 900}}
	markExceptionallyFast(reps[:2], few)
	if few[1].ExceptionallyFast {
		t.Error("flagged among two participants")
	}
}
