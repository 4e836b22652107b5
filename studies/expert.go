package studies

import (
	"context"

	"pragmalab/analysis"
	"pragmalab/store"
)

// BuildExpertBatches builds a study's batches from its active items with the
// study's seed, saves them and the settings, and returns how many it made.
// The admin page and the demo both build batches through here.
func BuildExpertBatches(ctx context.Context, db *store.DB, s *store.Study, set store.ExpertSettings) (int, error) {
	if err := set.Validate(); err != nil {
		return 0, err
	}
	items, err := db.ListItems(ctx, s.ID)
	if err != nil {
		return 0, err
	}
	var data, checks []analysis.ExpertBatchItem
	for _, it := range items {
		if it.Status != store.ItemActive {
			continue
		}
		bi := analysis.ExpertBatchItem{ID: it.ID, Type: it.Type}
		if it.Check != "" {
			checks = append(checks, bi)
		} else {
			data = append(data, bi)
		}
	}
	batches, err := analysis.BuildExpertBatches(data, checks, set.BatchSize, set.Checks, s.Seed)
	if err != nil {
		return 0, store.Errorf(store.EINVALID, "cannot build batches: %v", err)
	}
	ids := make([][]int64, len(batches))
	for i, b := range batches {
		for _, it := range b {
			ids[i] = append(ids[i], it.ID)
		}
	}
	if err := db.SaveBatches(ctx, s.ID, ids); err != nil {
		return 0, err
	}
	if err := db.SetStudySettings(ctx, s.ID, set); err != nil {
		return 0, err
	}
	return len(batches), nil
}
