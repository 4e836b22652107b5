package store

import (
	"context"
	"testing"
)

// TestStudyDataVersionHotPath: a participant's arrival, consent, training
// and answers before the last screen change nothing the analysis reads (it
// reads completed sessions), so they leave the study's data version — and
// its kept analysis — alone; the answer that completes the session raises
// it.
func TestStudyDataVersionHotPath(t *testing.T) {
	f := newCrowdFixture(t, 2, 4)
	ctx := context.Background()
	version := func() int64 {
		t.Helper()
		v, err := f.db.StudyDataVersion(ctx, f.study)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := version()
	p := f.enter(t, CrowdArrival{PID: pid(1)})
	f.ready(t, p)
	for pos, rating := range []int{5, 7, 2} {
		if _, err := f.db.SaveCrowdRating(ctx, f.study, p.Token, pos+1, rating, 0, f.s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.db.TouchCrowd(ctx, f.study, p.Token, f.s); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != v0 {
		t.Fatalf("answers of an active session raised the version %d → %d", v0, v)
	}
	if q, err := f.db.SaveCrowdRating(ctx, f.study, p.Token, 4, 1, 0, f.s); err != nil || q.Status != CrowdCompleted {
		t.Fatalf("last screen: %+v %v", q, err)
	}
	if v := version(); v <= v0 {
		t.Fatalf("the completing answer left the version at %d", v)
	}
}
