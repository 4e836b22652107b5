package studies

import (
	"context"
	"fmt"
	"pragmalab/domain"
	"sort"
	"strings"

	"pragmalab/analysis"
	"pragmalab/store"
)

// Where a crowd study's training items come from (docs/studies.md#crowd-training).
const (
	TrainingFromItems    = "items"    // marked as training in the item file
	TrainingFromSettings = "settings" // named in the settings, taken out of the items
	TrainingDrawn        = "drawn"    // drawn from the items with the seed
)

// CrowdBuild summarises the batches built, or to be built, for a crowd study.
type CrowdBuild struct {
	Batches      int
	Sizes        map[int]int // items per batch (checks not counted) → batches
	Checks       int
	Training     int
	TrainingFrom string // TrainingFromItems, TrainingFromSettings or TrainingDrawn
	Items        int    // data items in the batches
	Repeated     []string
}

// Design is the design in words: batches, their sizes and checks.
func (b CrowdBuild) Design() string {
	var sizes []string
	keys := make([]int, 0, len(b.Sizes))
	for k := range b.Sizes {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		sizes = append(sizes, fmt.Sprintf("%d × %d", b.Sizes[k], k))
	}
	s := fmt.Sprintf("%d batches (%s items, + %d attention checks each)", b.Batches, strings.Join(sizes, " + "), b.Checks)
	if len(b.Repeated) > 0 {
		s += fmt.Sprintf("; to keep the conditions balanced, %s appears in one more set of batches", strings.Join(b.Repeated, ", "))
	}
	return s
}

// TrainingNote says where the training items come from.
func (b CrowdBuild) TrainingNote() string {
	switch b.TrainingFrom {
	case TrainingFromItems:
		return fmt.Sprintf("%d training items of their own (marked in the item file)", b.Training)
	case TrainingFromSettings:
		return fmt.Sprintf("%d training items named in the settings, taken out of the study's items", b.Training)
	}
	return fmt.Sprintf("no training items of its own: %d will be drawn from the study's items (1 scalar, 2 discourse, 2 synthetic, 1 natural), which leaves %d items for the batches", b.Training, b.Items)
}

// String is the summary the researcher reads after a build.
func (b CrowdBuild) String() string {
	return fmt.Sprintf("Built %s and %d training items.", b.Design(), b.Training)
}

// crowdPlan is a crowd study's batches and training, planned but not saved.
type crowdPlan struct {
	build    CrowdBuild
	training []store.CrowdSlot
	batches  [][]store.CrowdSlot
}

// PlanCrowdBatches works out the batches BuildCrowdBatches would build with
// these settings and seed, saving nothing: the design the researcher sees
// before building.
func PlanCrowdBatches(ctx context.Context, db *store.DB, studyID int64, s domain.CrowdSettings, seed int64) (CrowdBuild, error) {
	p, err := planCrowd(ctx, db, studyID, s, seed)
	return p.build, err
}

// BuildCrowdBatches builds and stores the batches of a crowd study from its
// active items (docs/studies.md#crowd-batches): the attention checks go in every batch, the
// training items — its own, marked in the item file; else those named in
// the settings; else six picked by type with the seed — are kept out of
// the batches. The seed is stored on the study.
func BuildCrowdBatches(ctx context.Context, db *store.DB, studyID int64, s domain.CrowdSettings, seed int64) (CrowdBuild, error) {
	p, err := planCrowd(ctx, db, studyID, s, seed)
	if err != nil {
		return CrowdBuild{}, err
	}
	if err := db.SaveCrowdBatches(ctx, studyID, seed, p.training, p.batches); err != nil {
		return CrowdBuild{}, err
	}
	return p.build, nil
}

func planCrowd(ctx context.Context, db *store.DB, studyID int64, s domain.CrowdSettings, seed int64) (crowdPlan, error) {
	items, err := db.ListItems(ctx, studyID)
	if err != nil {
		return crowdPlan{}, err
	}
	byKey := map[string]domain.Item{}
	var data []analysis.BatchItem
	var checks []analysis.BatchCheck
	var own []analysis.Slot
	for _, it := range items {
		if it.Status != domain.ItemActive {
			continue
		}
		byKey[it.Key] = it
		switch {
		case it.Check != "":
			checks = append(checks, analysis.BatchCheck{Key: it.Key, Type: it.Type, Expect: it.Check})
		case it.Training != "":
			own = append(own, analysis.Slot{Key: it.Key, Type: it.Type, Condition: it.TrainingCondition()})
		default:
			data = append(data, analysis.BatchItem{Key: it.Key, Type: it.Type})
		}
	}
	var training []analysis.Slot
	from := TrainingFromItems
	switch {
	case len(own) > 0 && len(s.Training) > 0:
		return crowdPlan{}, domain.Errorf(domain.EINVALID, "the items file marks %d training items, and the settings name others: empty the training list of the settings to use the marked ones", len(own))
	case len(own) > 0:
		training = own
	default:
		from = TrainingFromSettings
		if len(s.Training) == 0 {
			from = TrainingDrawn
		}
		if training, err = crowdTraining(s, data, byKey, seed); err != nil {
			return crowdPlan{}, err
		}
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
			if f := domain.FollowUpField(c); f != "" && byKey[it.Key].FollowUp(c) == "" {
				return crowdPlan{}, domain.Errorf(domain.EINVALID, "item %s has no %s text, which the %s condition needs", it.Key, f, c)
			}
		}
		batchItems = append(batchItems, it)
	}
	if len(batchItems) == 0 {
		return crowdPlan{}, domain.Errorf(domain.EINVALID, "the study has no items to put in batches (import items first)")
	}
	plan, err := analysis.BuildCrowdBatches(analysis.CrowdBatchSpec{
		Items: batchItems, Checks: checks, Conditions: s.Conditions, Size: s.BatchSize, Seed: seed,
	})
	if err != nil {
		return crowdPlan{}, domain.Errorf(domain.EINVALID, "%v", err)
	}
	out := crowdPlan{build: CrowdBuild{Batches: len(plan.Batches), Sizes: map[int]int{}, Checks: len(checks),
		Training: len(training), TrainingFrom: from, Items: len(batchItems), Repeated: plan.Repeated}}
	for _, t := range training {
		out.training = append(out.training, store.CrowdSlot{ItemID: byKey[t.Key].ID, Condition: t.Condition})
	}
	out.batches = make([][]store.CrowdSlot, len(plan.Batches))
	for i, pb := range plan.Batches {
		for _, sl := range pb.Slots {
			out.batches[i] = append(out.batches[i], store.CrowdSlot{ItemID: byKey[sl.Key].ID, Condition: sl.Condition})
		}
		out.build.Sizes[len(pb.Slots)-len(checks)]++
	}
	return out, nil
}

// crowdTraining resolves the training items named in the settings, or picks
// the default mix.
func crowdTraining(s domain.CrowdSettings, data []analysis.BatchItem, byKey map[string]domain.Item, seed int64) ([]analysis.Slot, error) {
	if len(s.Training) == 0 {
		return analysis.PickCrowdTraining(data, analysis.DefaultCrowdTraining, seed), nil
	}
	var out []analysis.Slot
	seen := map[string]bool{}
	for i, t := range s.Training {
		it, ok := byKey[t.Key]
		switch {
		case !ok:
			return nil, domain.Errorf(domain.EINVALID, "training line %d: no active item %q in the study", i+1, t.Key)
		case it.Check != "":
			return nil, domain.Errorf(domain.EINVALID, "training line %d: %q is an attention check", i+1, t.Key)
		case seen[t.Key]:
			return nil, domain.Errorf(domain.EINVALID, "training line %d: %q is listed twice", i+1, t.Key)
		}
		seen[t.Key] = true
		out = append(out, analysis.Slot{Key: t.Key, Type: it.Type, Condition: t.Condition})
	}
	return out, nil
}
