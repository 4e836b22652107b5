package studies

import (
	"context"
	"slices"

	"pragmalab/analysis/agreement"
	"pragmalab/domain"
)

// FlaggedByPosterior is Flagged with each item's lowest Dawid–Skene
// posterior of its majority label (over plausibility and cancellation,
// docs/statistics.md#annotator-models), taken from the study's cached
// analysis, and the items sorted by it, lowest first; items the models do
// not cover (no two experts) come last, in their usual order, absent
// from the map.
func (s *Service) FlaggedByPosterior(ctx context.Context, studyID int64) ([]domain.FlaggedItem, map[string]float64, error) {
	items, err := s.db.Flagged(ctx, studyID)
	if err != nil {
		return nil, nil, err
	}
	post := map[string]float64{}
	if _, a, err := s.Analysis(ctx, studyID); err == nil && a != nil {
		if ag, ok := a.Result.(*agreement.Agreement); ok {
			post = lowestPosteriors(ag)
		}
	}
	slices.SortStableFunc(items, byPosterior(post))
	return items, post, nil
}

// lowestPosteriors is each item's lowest posterior of its majority label
// over the agreement's annotator models.
func lowestPosteriors(ag *agreement.Agreement) map[string]float64 {
	post := map[string]float64{}
	for _, m := range ag.AnnotatorModels {
		for _, p := range m.DawidSkene.Items {
			if v, seen := post[p.Item]; !seen || p.PosteriorMajority < v {
				post[p.Item] = p.PosteriorMajority
			}
		}
	}
	return post
}

// byPosterior orders flagged items by their posterior, lowest first, the
// items without one last.
func byPosterior(post map[string]float64) func(a, b domain.FlaggedItem) int {
	return func(a, b domain.FlaggedItem) int {
		pa, okA := post[a.Item.Key]
		pb, okB := post[b.Item.Key]
		switch {
		case okA && okB && pa < pb, okA && !okB:
			return -1
		case okA && okB && pa > pb, !okA && okB:
			return 1
		}
		return 0
	}
}
