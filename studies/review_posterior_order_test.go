package studies

import (
	"slices"
	"testing"

	"pragmalab/domain"
)

// TestByPosterior orders flagged items lowest posterior first; those the
// models do not cover keep their order at the end.
func TestByPosterior(t *testing.T) {
	var items []domain.FlaggedItem
	for _, k := range []string{"u1", "hi", "u2", "lo", "mid"} {
		items = append(items, domain.FlaggedItem{Item: domain.Item{Key: k}})
	}
	slices.SortStableFunc(items, byPosterior(map[string]float64{"hi": 0.9, "lo": 0.2, "mid": 0.5}))
	var got []string
	for _, it := range items {
		got = append(got, it.Item.Key)
	}
	if want := []string{"lo", "mid", "hi", "u1", "u2"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
