package plan

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"pragmalab/domain"
	"slices"
)

// Crowd batch defaults (docs/studies.md#crowd-settings).
const (
	DefaultCrowdBatchSize = 30
	DefaultCrowdChecks    = 10 // 5 expected high, 5 expected low
	maxCrowdBatchSize     = 1000
)

// BatchItem is one implicature item as the batch builder sees it.
type BatchItem struct {
	Key  string // the item's own id
	Type string // scalar | discourse | synthetic | natural
}

// BatchCheck is one attention check shared by every batch.
type BatchCheck struct {
	Key    string
	Type   string // may be empty
	Expect string // "high" or "low"
	// Condition is the check's one condition in a judgement study; empty
	// in a crowd study, whose checks are shown in trigger.
	Condition string
}

// CrowdBatchSpec is the input of BuildCrowdBatches.
type CrowdBatchSpec struct {
	Items  []BatchItem
	Checks []BatchCheck
	// Conditions defaults to trigger and cancel; it must contain both and may
	// add negation, strengthen and neutral. With Judgement set they are the
	// study's own names (docs/studies.md#judgement-batches), required.
	Conditions []string
	// Judgement marks a judgement study's spec: its own conditions, each
	// check in its own condition.
	Judgement bool
	Size      int // items per batch before checks; 0 means DefaultCrowdBatchSize
	Seed      int64
}

// Slot is one screen of a batch: an item in a condition, or a check.
type Slot struct {
	Key       string
	Type      string
	Condition string
	Check     string // "", "high" or "low"
}

// CrowdBatch is one batch, its screens in presentation order.
type CrowdBatch struct {
	Slots []Slot
}

// CrowdPlan is the result of BuildCrowdBatches.
type CrowdPlan struct {
	Batches []CrowdBatch
	// Repeated lists the items used a second time to fill the groups when the
	// item count is not a multiple of the number of conditions (for two
	// conditions: an odd count). Each appears once more in every condition,
	// never twice in one batch.
	Repeated []string
}

// BuildCrowdBatches makes the batches of a crowd study
// (docs/studies.md#crowd-batches).
//
// The construction is a Latin square over groups of items. With k conditions
// the N items (N = the item count rounded up to a multiple of k by repeating
// an item of another set, see CrowdPlan.Repeated) are dealt into k·p groups,
// p = round(N / Size). Group sizes differ by at most one: q = N div kp, and
// r = N mod kp groups hold q+1 (r is a multiple of k because N and kp are).
// Each set of k consecutive groups yields k batches; batch b of a set shows
// group i of the set in condition (i+b) mod k. So every batch holds the same
// number of items in each condition, no item twice, and across the k batches
// of its set every item is seen in every condition exactly once.
//
// The equal groups of q+1 are the first r, so they fill whole sets: r batches
// have k(q+1) items and the others kq. With 271 items, two conditions and
// size 30: N = 272, p = 9, 18 groups, q = 15, r = 2 — 16 batches of 30 and
// 2 of 32, one item repeated, which is the published design.
//
// Items are sorted by key, shuffled with the seed and then grouped by type
// before dealing round-robin, so every batch gets a proportional mix of types
// and the plan depends only on the set of items and the seed. The checks (in
// condition trigger) are added to every batch and each batch's order is
// shuffled with a stream derived from the seed and the batch number.
func BuildCrowdBatches(spec CrowdBatchSpec) (CrowdPlan, error) {
	conds, size, err := validateCrowdSpec(&spec)
	if err != nil {
		return CrowdPlan{}, err
	}
	k, n := len(conds), len(spec.Items)
	total := (n + k - 1) / k * k // N: padded to a multiple of k
	sets := max(1, (total+size/2)/size)
	if total != n && sets == 1 {
		// A repeated item must come from another set, or it would meet
		// itself in a batch.
		sets = 2
	}
	if total < k*sets {
		return CrowdPlan{}, fmt.Errorf("crowd batches: %d items are too few for %d conditions (need %d, or more than %d)", n, k, k, k)
	}
	groups, targets := dealGroups(spec.Items, k*sets, total, uint64(spec.Seed))
	repeated := padGroups(groups, targets, k)

	var plan CrowdPlan
	plan.Repeated = repeated
	for s := range sets {
		set := groups[s*k : s*k+k]
		for b := range k {
			var slots []Slot
			for i, g := range set {
				cond := conds[(i+b)%k]
				for _, it := range g {
					slots = append(slots, Slot{Key: it.Key, Type: it.Type, Condition: cond})
				}
			}
			for _, c := range spec.Checks {
				slots = append(slots, Slot{Key: c.Key, Type: c.Type, Condition: checkCondition(spec, c), Check: c.Expect})
			}
			r := rand.New(rand.NewPCG(uint64(spec.Seed), uint64(len(plan.Batches))+1))
			r.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
			plan.Batches = append(plan.Batches, CrowdBatch{Slots: slots})
		}
	}
	return plan, nil
}

// checkCondition is the condition an attention check is shown in: its own
// in a judgement study, trigger in a crowd study.
func checkCondition(spec CrowdBatchSpec, c BatchCheck) string {
	if spec.Judgement {
		return c.Condition
	}
	return domain.ConditionTrigger
}

// validateCrowdSpec checks the spec and returns the conditions and batch size
// with defaults applied.
func validateCrowdSpec(spec *CrowdBatchSpec) ([]string, int, error) {
	conds := spec.Conditions
	if len(conds) == 0 && !spec.Judgement {
		conds = []string{domain.ConditionTrigger, domain.ConditionCancel}
	}
	if err := checkCrowdConditions(conds, spec.Judgement); err != nil {
		return nil, 0, err
	}
	size := spec.Size
	if size == 0 {
		size = DefaultCrowdBatchSize
	}
	if size < len(conds) || size > maxCrowdBatchSize {
		return nil, 0, fmt.Errorf("crowd batches: batch size %d out of range (%d–%d for %d conditions)", size, len(conds), maxCrowdBatchSize, len(conds))
	}
	if err := checkCrowdKeys(spec); err != nil {
		return nil, 0, err
	}
	if len(spec.Items) == 0 {
		return nil, 0, fmt.Errorf("crowd batches: no items")
	}
	return conds, size, nil
}

// checkCrowdConditions accepts known conditions, each once, trigger and
// cancel among them; for a judgement study, the study's own names, each
// once, at least one.
func checkCrowdConditions(conds []string, judgement bool) error {
	if judgement {
		if len(conds) == 0 {
			return fmt.Errorf("crowd batches: a judgement study names its conditions")
		}
		seen := map[string]bool{}
		for i, c := range conds {
			if err := domain.CheckConditionName(c); err != nil {
				return fmt.Errorf("crowd batches: conditions[%d]: %s", i, domain.ErrorMessage(err))
			}
			if seen[c] {
				return fmt.Errorf("crowd batches: conditions[%d]: %q given twice", i, c)
			}
			seen[c] = true
		}
		return nil
	}
	seen := map[string]bool{}
	for i, c := range conds {
		switch c {
		case domain.ConditionTrigger, domain.ConditionCancel, domain.ConditionNegation, domain.ConditionStrengthen, domain.ConditionNeutral:
		default:
			return fmt.Errorf("crowd batches: conditions[%d]: unknown condition %q (trigger, cancel, negation, strengthen, neutral)", i, c)
		}
		if seen[c] {
			return fmt.Errorf("crowd batches: conditions[%d]: %q given twice", i, c)
		}
		seen[c] = true
	}
	if !seen[domain.ConditionTrigger] || !seen[domain.ConditionCancel] {
		return fmt.Errorf("crowd batches: conditions must include trigger and cancel")
	}
	return nil
}

// checkCrowdKeys accepts items and attention checks with keys, all of
// them distinct, and checks that expect a high or low rating.
func checkCrowdKeys(spec *CrowdBatchSpec) error {
	keys := map[string]string{}
	for i, it := range spec.Items {
		if it.Key == "" {
			return fmt.Errorf("crowd batches: items[%d]: empty key", i)
		}
		if _, dup := keys[it.Key]; dup {
			return fmt.Errorf("crowd batches: items[%d]: key %q appears twice", i, it.Key)
		}
		keys[it.Key] = "item"
	}
	for i, c := range spec.Checks {
		if c.Expect != "high" && c.Expect != "low" {
			return fmt.Errorf("crowd batches: checks[%d] (%s): expected rating must be high or low, got %q", i, c.Key, c.Expect)
		}
		if c.Key == "" {
			return fmt.Errorf("crowd batches: checks[%d]: empty key", i)
		}
		if spec.Judgement && !slices.Contains(spec.Conditions, c.Condition) {
			return fmt.Errorf("crowd batches: checks[%d] (%s): condition %q is not one of the study's (%v)", i, c.Key, c.Condition, spec.Conditions)
		}
		if what, dup := keys[c.Key]; dup {
			return fmt.Errorf("crowd batches: checks[%d]: key %q is already used by an %s", i, c.Key, what)
		}
		keys[c.Key] = "attention check"
	}
	return nil
}

// dealGroups shuffles the items with the seed, orders them by type and deals
// them round-robin into ng groups whose target sizes sum to total: the first
// total mod ng groups get one more. Groups left short (total > len(items))
// are filled by padGroups.
func dealGroups(items []BatchItem, ng, total int, seed uint64) (groups [][]BatchItem, targets []int) {
	its := slices.Clone(items)
	slices.SortFunc(its, func(a, b BatchItem) int { return cmp.Compare(a.Key, b.Key) })
	r := rand.New(rand.NewPCG(seed, 0))
	r.Shuffle(len(its), func(i, j int) { its[i], its[j] = its[j], its[i] })
	slices.SortStableFunc(its, func(a, b BatchItem) int { return cmp.Compare(a.Type, b.Type) })

	targets = make([]int, ng)
	for g := range targets {
		targets[g] = total / ng
		if g < total%ng {
			targets[g]++
		}
	}
	groups = make([][]BatchItem, ng)
	g := 0
	for _, it := range its {
		for len(groups[g]) >= targets[g] {
			g = (g + 1) % ng
		}
		groups[g] = append(groups[g], it)
		g = (g + 1) % ng
	}
	return groups, targets
}

// padGroups fills each group left short of its target with a distinct item
// from a group of another set (so it never meets itself in a batch) and
// returns the keys it repeated.
func padGroups(groups [][]BatchItem, targets []int, k int) []string {
	var repeated []string
	used := map[string]bool{}
	sets := len(groups) / k
	for g := range groups {
		set := g / k
		for len(groups[g]) < targets[g] {
			it, ok := donor(groups, k, (set+1)%sets, set, used)
			if !ok {
				panic("crowd batches: no item left to repeat") // excluded by the size checks
			}
			used[it.Key] = true
			groups[g] = append(groups[g], it)
			repeated = append(repeated, it.Key)
		}
	}
	return repeated
}

// donor returns the first unused item of the sets from..., skipping the set
// being padded.
func donor(groups [][]BatchItem, k, from, skip int, used map[string]bool) (BatchItem, bool) {
	sets := len(groups) / k
	for i := range sets {
		s := (from + i) % sets
		if s == skip {
			continue
		}
		for _, g := range groups[s*k : s*k+k] {
			for _, it := range g {
				if !used[it.Key] {
					return it, true
				}
			}
		}
	}
	return BatchItem{}, false
}

// TrainingQuota is how many training items of one type to pick.
type TrainingQuota struct {
	Type string
	N    int
}

// DefaultCrowdTraining is the paper's training mix: 1 scalar, 2 discourse,
// 2 synthetic, 1 natural.
var DefaultCrowdTraining = []TrainingQuota{{domain.TypeScalar, 1}, {domain.TypeDiscourse, 2}, {domain.TypeSynthetic, 2}, {domain.TypeNatural, 1}}

// PickCrowdTraining picks training items by type with the seed and gives
// them alternating conditions (trigger, cancel, …) so that the participant
// meets both kinds of feedback. The slots come out in the order of mix.
// Types with too few items give what they have.
func PickCrowdTraining(items []BatchItem, mix []TrainingQuota, seed int64) []Slot {
	its := slices.Clone(items)
	slices.SortFunc(its, func(a, b BatchItem) int { return cmp.Compare(a.Key, b.Key) })
	r := rand.New(rand.NewPCG(uint64(seed), 1<<63))
	r.Shuffle(len(its), func(i, j int) { its[i], its[j] = its[j], its[i] })
	var out []Slot
	for _, q := range mix {
		n := 0
		for _, it := range its {
			if n == q.N {
				break
			}
			if it.Type == q.Type {
				cond := domain.ConditionTrigger
				if len(out)%2 == 1 {
					cond = domain.ConditionCancel
				}
				out = append(out, Slot{Key: it.Key, Type: it.Type, Condition: cond})
				n++
			}
		}
	}
	return out
}
