package studies

import (
	"context"
	"fmt"
	"pragmalab/domain"
	"sort"
	"strings"

	"pragmalab/analysis/plan"
	"pragmalab/store"
)

// Where a crowd study's training items come from (docs/studies.md#crowd-training).
const (
	TrainingFromItems    = "items"    // marked as training in the item file
	TrainingFromSettings = "settings" // named in the settings, taken out of the items
	TrainingDrawn        = "drawn"    // drawn from the items with the seed
	TrainingNone         = "none"     // a judgement study whose items file marks no practice items
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
	Judgement    bool // a judgement study's: practice items, not training
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
	s := fmt.Sprintf("%s (%s items, + %s each)", countOf(b.Batches, "batch", "batches"), strings.Join(sizes, " + "), countOf(b.Checks, "attention check", "attention checks"))
	if len(b.Repeated) > 0 {
		s += fmt.Sprintf("; to keep the conditions balanced, %s appears in one more set of batches", strings.Join(b.Repeated, ", "))
	}
	return s
}

// TrainingNote says where the training items come from.
func (b CrowdBuild) TrainingNote() string {
	if b.Judgement && b.TrainingFrom == TrainingFromItems {
		return countOf(b.Training, "practice item", "practice items") + ", marked in the items file"
	}
	switch b.TrainingFrom {
	case TrainingFromItems:
		return countOf(b.Training, "training item", "training items") + " of their own (marked in the item file)"
	case TrainingFromSettings:
		return countOf(b.Training, "training item", "training items") + " named in the settings, taken out of the study's items"
	case TrainingNone:
		return "no practice items: the items file marks none (a judgement study's practice items are never drawn from its items)"
	}
	return fmt.Sprintf("no training items of its own: %d will be drawn from the study's items (1 scalar, 2 discourse, 2 synthetic, 1 natural), which leaves %d items for the batches", b.Training, b.Items)
}

// String is the summary the researcher reads after a build.
func (b CrowdBuild) String() string {
	if b.Judgement {
		return fmt.Sprintf("Built %s and %s.", b.Design(), countOf(b.Training, "practice item", "practice items"))
	}
	return fmt.Sprintf("Built %s and %s.", b.Design(), countOf(b.Training, "training item", "training items"))
}

// countOf writes a count with its noun in the singular or the plural, so
// that a study with one practice item is not told of "1 practice items".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
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
	ci := sortCrowdItems(items, s.Judgement())
	if s.Judgement() {
		if err := fitConditions(items, s.Conditions); err != nil {
			return crowdPlan{}, err
		}
	}
	training, from, err := ci.training(s, seed)
	if err != nil {
		return crowdPlan{}, err
	}
	batchItems, err := ci.batchItems(s, training)
	if err != nil {
		return crowdPlan{}, err
	}
	plan, err := plan.BuildCrowdBatches(plan.CrowdBatchSpec{
		Items: batchItems, Checks: ci.checks, Conditions: s.Conditions, Size: s.BatchSize, Seed: seed,
		Judgement: s.Judgement(),
	})
	if err != nil {
		return crowdPlan{}, domain.Errorf(domain.EINVALID, "%v", err)
	}
	out := crowdPlan{build: CrowdBuild{Batches: len(plan.Batches), Sizes: map[int]int{}, Checks: len(ci.checks),
		Training: len(training), TrainingFrom: from, Items: len(batchItems), Repeated: plan.Repeated, Judgement: s.Judgement()}}
	for _, t := range training {
		out.training = append(out.training, store.CrowdSlot{ItemID: ci.byKey[t.Key].ID, Condition: t.Condition})
	}
	out.batches = make([][]store.CrowdSlot, len(plan.Batches))
	for i, pb := range plan.Batches {
		for _, sl := range pb.Slots {
			out.batches[i] = append(out.batches[i], store.CrowdSlot{ItemID: ci.byKey[sl.Key].ID, Condition: sl.Condition})
		}
		out.build.Sizes[len(pb.Slots)-len(ci.checks)]++
	}
	return out, nil
}

// fitConditions refuses a judgement study's active items that do not fit
// the conditions its settings name now — a condition renamed or added
// after the import would leave a screen without a sentence
// (docs/studies.md#judgement-batches).
func fitConditions(items []domain.Item, conds []string) error {
	for _, it := range items {
		if it.Status != domain.ItemActive {
			continue
		}
		if err := it.ValidateJudgementItem(conds); err != nil {
			return domain.Errorf(domain.EINVALID, "%v; import the items again or name the conditions they use", err)
		}
	}
	return nil
}

// crowdItems are a study's active items by their part in the batches.
type crowdItems struct {
	byKey  map[string]domain.Item
	data   []plan.BatchItem
	checks []plan.BatchCheck
	own    []plan.Slot // the training items the items file marks
	// judgement: a judgement study's items, whose practice items are only
	// those the items file marks and whose conditions need no follow-up.
	judgement bool
}

// sortCrowdItems sorts the active items into attention checks, marked
// training items and data items. A judgement study's check or practice
// item is shown in its one condition (docs/studies.md#judgement-batches).
func sortCrowdItems(items []domain.Item, judgement bool) crowdItems {
	ci := crowdItems{byKey: map[string]domain.Item{}, judgement: judgement}
	for _, it := range items {
		if it.Status != domain.ItemActive {
			continue
		}
		ci.byKey[it.Key] = it
		switch {
		case it.Check != "":
			ci.checks = append(ci.checks, plan.BatchCheck{Key: it.Key, Type: it.Type, Expect: it.Check, Condition: it.JudgementCondition()})
		case it.Training != "" && judgement:
			ci.own = append(ci.own, plan.Slot{Key: it.Key, Type: it.Type, Condition: it.JudgementCondition()})
		case it.Training != "":
			ci.own = append(ci.own, plan.Slot{Key: it.Key, Type: it.Type, Condition: it.TrainingCondition()})
		default:
			ci.data = append(ci.data, plan.BatchItem{Key: it.Key, Type: it.Type})
		}
	}
	return ci
}

// training is the training and where it comes from: the items file's
// marked items, the settings' list, or drawn; not both of the first two.
func (ci crowdItems) training(s domain.CrowdSettings, seed int64) ([]plan.Slot, string, error) {
	if ci.judgement {
		// A judgement study's practice is what the items file marks, or
		// none: nothing is drawn from its items (docs/studies.md#judgement-practice).
		if len(ci.own) == 0 {
			return nil, TrainingNone, nil
		}
		return ci.own, TrainingFromItems, nil
	}
	switch {
	case len(ci.own) > 0 && len(s.Training) > 0:
		return nil, "", domain.Errorf(domain.EINVALID, "the items file marks %d training items, and the settings name others: empty the training list of the settings to use the marked ones", len(ci.own))
	case len(ci.own) > 0:
		return ci.own, TrainingFromItems, nil
	}
	from := TrainingFromSettings
	if len(s.Training) == 0 {
		from = TrainingDrawn
	}
	training, err := crowdTraining(s, ci.data, ci.byKey, seed)
	return training, from, err
}

// batchItems are the data items not in the training, each with the
// follow-up texts the study's conditions need.
func (ci crowdItems) batchItems(s domain.CrowdSettings, training []plan.Slot) ([]plan.BatchItem, error) {
	inTraining := map[string]bool{}
	for _, t := range training {
		inTraining[t.Key] = true
	}
	var batchItems []plan.BatchItem
	for _, it := range ci.data {
		if inTraining[it.Key] {
			continue
		}
		for _, c := range s.Conditions {
			if ci.judgement {
				break // a judgement item's texts are checked by fitConditions
			}
			if f := domain.FollowUpField(c); f != "" && ci.byKey[it.Key].FollowUp(c) == "" {
				return nil, domain.Errorf(domain.EINVALID, "item %s has no %s text, which the %s condition needs", it.Key, f, c)
			}
		}
		batchItems = append(batchItems, it)
	}
	if len(batchItems) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "the study has no items to put in batches (import items first)")
	}
	return batchItems, nil
}

// crowdTraining resolves the training items named in the settings, or picks
// the default mix.
func crowdTraining(s domain.CrowdSettings, data []plan.BatchItem, byKey map[string]domain.Item, seed int64) ([]plan.Slot, error) {
	if len(s.Training) == 0 {
		return plan.PickCrowdTraining(data, plan.DefaultCrowdTraining, seed), nil
	}
	var out []plan.Slot
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
		out = append(out, plan.Slot{Key: t.Key, Type: it.Type, Condition: t.Condition})
	}
	return out, nil
}
