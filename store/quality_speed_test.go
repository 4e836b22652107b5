package store

import (
	"testing"

	"pragmalab/domain"
)

// TestExceptionallyFastOnlyFinished (docs/studies.md#data-quality-flags): the mean and SD of the
// completed participants' total times are the baseline, and only a
// completed participant is compared with it — a session in progress,
// whose total time so far is short, is not "exceptionally fast"; one who
// finished as fast is.
func TestExceptionallyFastOnlyFinished(t *testing.T) {
	var reps []CrowdParticipantReport
	qs := map[int64]domain.CrowdQuality{}
	add := func(secs int, status string) int64 {
		id := int64(len(reps) + 1)
		reps = append(reps, CrowdParticipantReport{CrowdParticipant: &CrowdParticipant{ID: id, Status: status}})
		qs[id] = domain.CrowdQuality{TotalSeconds: secs, Finished: status == CrowdCompleted}
		return id
	}
	for i := range 20 {
		add(590+i, CrowdCompleted)
	}
	active := add(30, CrowdActive) // 30 s in, mid-batch
	finished := add(20, CrowdCompleted)
	markExceptionallyFast(reps, qs)
	if qs[active].ExceptionallyFast {
		t.Error("a session in progress flagged exceptionally fast")
	}
	if !qs[finished].ExceptionallyFast {
		t.Error("a participant who finished in 20 s, against 20 who took ten minutes, not flagged")
	}
	for id := int64(1); id <= 20; id++ {
		if qs[id].ExceptionallyFast {
			t.Errorf("participant %d (total %d s) flagged", id, qs[id].TotalSeconds)
		}
	}
}
