package studies

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"pragmalab/analysis"
	"pragmalab/store"
)

// CrowdBuild summarises the batches built for a crowd study.
type CrowdBuild struct {
	Batches  int
	Sizes    map[int]int // items per batch (checks not counted) → batches
	Checks   int
	Training int
	Repeated []string
}

// String is the summary the researcher reads after a build.
func (b CrowdBuild) String() string {
	var sizes []string
	keys := make([]int, 0, len(b.Sizes))
	for k := range b.Sizes {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		sizes = append(sizes, fmt.Sprintf("%d of %d", b.Sizes[k], k))
	}
	s := fmt.Sprintf("Built %d batches (%s items, + %d attention checks each) and %d training items.",
		b.Batches, strings.Join(sizes, " and "), b.Checks, b.Training)
	if len(b.Repeated) > 0 {
		s += fmt.Sprintf(" To keep the conditions balanced, %s appears in one more set of batches.", strings.Join(b.Repeated, ", "))
	}
	return s
}

// BuildCrowdBatches builds and stores the batches of a crowd study from its
// active items (docs/studies.md#crowd-batches): the attention checks go in
// every batch, the training items (named in the settings, or picked by type
// with the seed) are kept out of the batches. The seed is stored on the
// study.
func BuildCrowdBatches(ctx context.Context, db *store.DB, studyID int64, s store.CrowdSettings, seed int64) (CrowdBuild, error) {
	items, err := db.ListItems(ctx, studyID)
	if err != nil {
		return CrowdBuild{}, err
	}
	byKey := map[string]store.Item{}
	var data []analysis.BatchItem
	var checks []analysis.BatchCheck
	for _, it := range items {
		if it.Status != store.ItemActive {
			continue
		}
		byKey[it.Key] = it
		if it.Check != "" {
			checks = append(checks, analysis.BatchCheck{Key: it.Key, Type: it.Type, Expect: it.Check})
		} else {
			data = append(data, analysis.BatchItem{Key: it.Key, Type: it.Type})
		}
	}
	training, err := crowdTraining(s, data, byKey, seed)
	if err != nil {
		return CrowdBuild{}, err
	}
	inTraining := map[string]bool{}
	for _, t := range training {
		inTraining[t.Key] = true
	}
	var batchItems []analysis.BatchItem
	for _, it := range data {
		if inTraining[it.Key] {
			continue
		}
		for _, c := range s.Conditions {
			if f := store.FollowUpField(c); f != "" && byKey[it.Key].FollowUp(c) == "" {
				return CrowdBuild{}, store.Errorf(store.EINVALID, "item %s has no %s text, which the %s condition needs", it.Key, f, c)
			}
		}
		batchItems = append(batchItems, it)
	}
	if len(batchItems) == 0 {
		return CrowdBuild{}, store.Errorf(store.EINVALID, "the study has no items to put in batches (import items first)")
	}
	plan, err := analysis.BuildCrowdBatches(analysis.CrowdBatchSpec{
		Items: batchItems, Checks: checks, Conditions: s.Conditions, Size: s.BatchSize, Seed: seed,
	})
	if err != nil {
		return CrowdBuild{}, store.Errorf(store.EINVALID, "%v", err)
	}
	b := CrowdBuild{Batches: len(plan.Batches), Sizes: map[int]int{}, Checks: len(checks), Training: len(training), Repeated: plan.Repeated}
	var tslots []store.CrowdSlot
	for _, t := range training {
		tslots = append(tslots, store.CrowdSlot{ItemID: byKey[t.Key].ID, Condition: t.Condition})
	}
	batches := make([][]store.CrowdSlot, len(plan.Batches))
	for i, pb := range plan.Batches {
		for _, sl := range pb.Slots {
			batches[i] = append(batches[i], store.CrowdSlot{ItemID: byKey[sl.Key].ID, Condition: sl.Condition})
		}
		b.Sizes[len(pb.Slots)-len(checks)]++
	}
	if err := db.SaveCrowdBatches(ctx, studyID, seed, tslots, batches); err != nil {
		return CrowdBuild{}, err
	}
	return b, nil
}

// crowdTraining resolves the training items named in the settings, or picks
// the default mix.
func crowdTraining(s store.CrowdSettings, data []analysis.BatchItem, byKey map[string]store.Item, seed int64) ([]analysis.Slot, error) {
	if len(s.Training) == 0 {
		return analysis.PickCrowdTraining(data, analysis.DefaultCrowdTraining, seed), nil
	}
	var out []analysis.Slot
	seen := map[string]bool{}
	for i, t := range s.Training {
		it, ok := byKey[t.Key]
		switch {
		case !ok:
			return nil, store.Errorf(store.EINVALID, "training line %d: no active item %q in the study", i+1, t.Key)
		case it.Check != "":
			return nil, store.Errorf(store.EINVALID, "training line %d: %q is an attention check", i+1, t.Key)
		case seen[t.Key]:
			return nil, store.Errorf(store.EINVALID, "training line %d: %q is listed twice", i+1, t.Key)
		}
		seen[t.Key] = true
		out = append(out, analysis.Slot{Key: t.Key, Type: it.Type, Condition: t.Condition})
	}
	return out, nil
}
