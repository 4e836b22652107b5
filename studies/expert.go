package studies

import (
	"context"
	"pragmalab/domain"

	"pragmalab/analysis/plan"
	"pragmalab/store"
)

// BuildExpertBatches builds a study's batches from its active items with the
// study's seed, saves them and the settings, and returns how many it made.
// The admin page and the demo both build batches through here.
func BuildExpertBatches(ctx context.Context, db *store.DB, s *domain.Study, set domain.ExpertSettings) (int, error) {
	if err := set.Validate(); err != nil {
		return 0, err
	}
	items, err := db.ListItems(ctx, s.ID)
	if err != nil {
		return 0, err
	}
	var data, checks []plan.ExpertBatchItem
	for _, it := range items {
		if it.Status != domain.ItemActive || it.Training != "" {
			continue // crowd training items are no data for experts
		}
		bi := plan.ExpertBatchItem{ID: it.ID, Type: it.Type}
		if it.Check != "" {
			checks = append(checks, bi)
		} else {
			data = append(data, bi)
		}
	}
	batches, err := plan.BuildExpertBatches(data, checks, set.BatchSize, set.Checks, s.Seed)
	if err != nil {
		return 0, domain.Errorf(domain.EINVALID, "cannot build batches: %v", err)
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

// ExpertSettingsFor is the batch settings a study's page proposes before
// any batch was built: the paper's 53 screens with 7 checks, cut down to
// what the items allow, so the defaults always build (a small data set
// makes one batch of all its items with the checks it has).
func ExpertSettingsFor(items []domain.Item) domain.ExpertSettings {
	set := domain.DefaultExpertSettings()
	data, checks := 0, 0
	for _, it := range items {
		switch {
		case it.Status != domain.ItemActive:
		case it.Check != "":
			checks++
		default:
			data++
		}
	}
	set.Checks = min(set.Checks, checks)
	if data > 0 && data+set.Checks < set.BatchSize {
		set.BatchSize = max(data+set.Checks, 2)
	}
	return set
}
