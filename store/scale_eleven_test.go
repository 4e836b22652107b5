package store_test

import (
	"context"
	"testing"

	"pragmalab/store/storetest"
)

// TestRatingsAboveSevenAreStored: the ratings tables took 1–7 only until
// migration 0400, so an 8–11 on a scale of 8 points or more failed when
// it was stored (docs/studies.md#rating-scale: scales of 2–11 points).
func TestRatingsAboveSevenAreStored(t *testing.T) {
	f := storetest.NewCrowdFixture(t)
	ctx := context.Background()
	f.Set.ScalePoints = 9 // the fixture's practice answer, 6, lies above the midpoint of 9
	f.Set.CheckHighMin, f.Set.CheckLowMax = 7, 3
	f.Set.ScaleLabels = map[string]string{"1": "not at all", "9": "completely"}
	if err := f.DB.SaveCrowdSettings(ctx, f.ID, f.Set); err != nil {
		t.Fatal(err)
	}
	id := f.Complete(t, 9, 2, 1, 8)
	rows, err := f.DB.CrowdRatings(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, r := range rows {
		seen[r.Rating] = true
	}
	if !seen[9] || !seen[8] {
		t.Fatalf("ratings stored %v; want the 9 and the 8 given", seen)
	}
}
