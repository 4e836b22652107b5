package plan

import (
	"fmt"
	"math/rand/v2"
	"pragmalab/domain"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// paperItems returns the 271 items of the ImplicatureX crowd study with the
// published type counts.
func paperItems() []BatchItem {
	var items []BatchItem
	for _, tc := range []struct {
		typ string
		n   int
	}{{"scalar", 46}, {"discourse", 31}, {"synthetic", 144}, {"natural", 50}} {
		for i := range tc.n {
			items = append(items, BatchItem{Key: fmt.Sprintf("%s-%03d", tc.typ, i), Type: tc.typ})
		}
	}
	return items
}

func paperChecks() []BatchCheck {
	var checks []BatchCheck
	for i := range 5 {
		checks = append(checks, BatchCheck{Key: fmt.Sprintf("check-high-%d", i), Expect: "high"})
		checks = append(checks, BatchCheck{Key: fmt.Sprintf("check-low-%d", i), Expect: "low"})
	}
	return checks
}

func TestBuildCrowdBatchesPaperDesign(t *testing.T) {
	plan, err := BuildCrowdBatches(CrowdBatchSpec{Items: paperItems(), Checks: paperChecks(), Seed: 2026})
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[int]int{}
	for _, b := range plan.Batches {
		items := 0
		for _, s := range b.Slots {
			if s.Check == "" {
				items++
			}
		}
		if len(b.Slots)-items != 10 {
			t.Errorf("batch has %d checks, want 10", len(b.Slots)-items)
		}
		sizes[items]++
	}
	if want := map[int]int{30: 16, 32: 2}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("batch sizes (items → batches) = %v, want %v", sizes, want)
	}
	if len(plan.Repeated) != 1 {
		t.Errorf("repeated items = %v, want exactly one (271 is odd)", plan.Repeated)
	}
	checkCrowdInvariants(t, CrowdBatchSpec{Items: paperItems(), Checks: paperChecks(), Seed: 2026}, plan)
}

// checkCrowdInvariants asserts the rules of docs/studies.md#crowd-batches on
// a plan.
func checkCrowdInvariants(t *testing.T, spec CrowdBatchSpec, plan CrowdPlan) {
	t.Helper()
	conds := spec.Conditions
	if len(conds) == 0 {
		conds = []string{domain.ConditionTrigger, domain.ConditionCancel}
	}
	k := len(conds)
	repeated := map[string]bool{}
	for _, key := range plan.Repeated {
		if repeated[key] {
			t.Fatalf("item %s repeated twice over", key)
		}
		repeated[key] = true
	}
	if len(plan.Repeated) != (k-len(spec.Items)%k)%k {
		t.Fatalf("%d items, %d conditions: %d repeated, want %d", len(spec.Items), k, len(plan.Repeated), (k-len(spec.Items)%k)%k)
	}
	types := map[string]string{}
	for _, it := range spec.Items {
		types[it.Key] = it.Type
	}
	seen := map[string]map[string]int{} // key → condition → times
	sizes := map[int]bool{}
	for bi, b := range plan.Batches {
		inBatch := map[string]bool{}
		perCond := map[string]int{}
		checks := map[string]string{}
		for _, s := range b.Slots {
			if inBatch[s.Key] {
				t.Fatalf("batch %d: %s appears twice", bi, s.Key)
			}
			inBatch[s.Key] = true
			if s.Check != "" {
				checks[s.Key] = s.Check
				continue
			}
			if types[s.Key] != s.Type {
				t.Fatalf("batch %d: %s has type %q, want %q", bi, s.Key, s.Type, types[s.Key])
			}
			perCond[s.Condition]++
			if seen[s.Key] == nil {
				seen[s.Key] = map[string]int{}
			}
			seen[s.Key][s.Condition]++
		}
		for _, c := range spec.Checks {
			if checks[c.Key] != c.Expect {
				t.Fatalf("batch %d: check %s missing or wrong (%q)", bi, c.Key, checks[c.Key])
			}
		}
		if len(checks) != len(spec.Checks) {
			t.Fatalf("batch %d: %d checks, want %d", bi, len(checks), len(spec.Checks))
		}
		n := perCond[conds[0]]
		for _, c := range conds {
			if perCond[c] != n || n == 0 {
				t.Fatalf("batch %d: condition counts %v are not equal", bi, perCond)
			}
		}
		if len(perCond) != k {
			t.Fatalf("batch %d: conditions %v, want %v", bi, perCond, conds)
		}
		sizes[n*k] = true
	}
	if len(sizes) > 2 {
		t.Fatalf("batch sizes %v: more than two", sizes)
	}
	if len(sizes) == 2 {
		var s []int
		for v := range sizes {
			s = append(s, v)
		}
		slices.Sort(s)
		if s[1]-s[0] != k {
			t.Fatalf("batch sizes %v differ by more than one per condition", s)
		}
	}
	for _, it := range spec.Items {
		want := 1
		if repeated[it.Key] {
			want = 2
		}
		for _, c := range conds {
			if seen[it.Key][c] != want {
				t.Fatalf("item %s seen %d times in %s, want %d", it.Key, seen[it.Key][c], c, want)
			}
		}
	}
}

func TestBuildCrowdBatchesProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	allConds := []string{domain.ConditionTrigger, domain.ConditionCancel, domain.ConditionNegation, domain.ConditionStrengthen, domain.ConditionNeutral}
	for trial := range 400 {
		k := 2 + r.IntN(4)
		if trial%2 == 0 {
			k = 2 // the common case gets half the trials
		}
		conds := slices.Clone(allConds[:k])
		r.Shuffle(len(conds), func(i, j int) { conds[i], conds[j] = conds[j], conds[i] })
		n := k + r.IntN(500)
		size := k + r.IntN(60)
		types := []string{"scalar", "discourse", "synthetic", "natural"}
		var items []BatchItem
		for i := range n {
			items = append(items, BatchItem{Key: fmt.Sprintf("i%d", i), Type: types[r.IntN(len(types))]})
		}
		var checks []BatchCheck
		for i := range r.IntN(12) {
			checks = append(checks, BatchCheck{Key: fmt.Sprintf("c%d", i), Expect: []string{"high", "low"}[i%2]})
		}
		spec := CrowdBatchSpec{Items: items, Checks: checks, Conditions: conds, Size: size, Seed: r.Int64()}
		t.Run(fmt.Sprintf("n%d_k%d_s%d", n, k, size), func(t *testing.T) {
			plan, err := BuildCrowdBatches(spec)
			if err != nil {
				t.Fatal(err)
			}
			checkCrowdInvariants(t, spec, plan)
			// Same seed and same items in another order: the same plan.
			again := spec
			again.Items = slices.Clone(items)
			slices.Reverse(again.Items)
			plan2, err := BuildCrowdBatches(again)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(plan, plan2) {
				t.Fatal("same seed and items gave a different plan")
			}
		})
	}
}

func TestBuildCrowdBatchesSeed(t *testing.T) {
	spec := CrowdBatchSpec{Items: paperItems(), Checks: paperChecks(), Seed: 1}
	a, _ := BuildCrowdBatches(spec)
	spec.Seed = 2
	b, _ := BuildCrowdBatches(spec)
	if reflect.DeepEqual(a, b) {
		t.Fatal("seeds 1 and 2 gave the same plan")
	}
	// Orders differ between batches of one plan too.
	first := func(b CrowdBatch) string { return b.Slots[0].Key }
	distinct := map[string]bool{}
	for _, bt := range a.Batches {
		distinct[first(bt)] = true
	}
	if len(distinct) < 2 {
		t.Fatal("every batch starts with the same screen: order not shuffled")
	}
}

func TestBuildCrowdBatchesTypeMix(t *testing.T) {
	plan, err := BuildCrowdBatches(CrowdBatchSpec{Items: paperItems(), Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// 46 scalar items over 18 batches, each item seen twice: 92/18 ≈ 5 per
	// batch. Stratified dealing keeps every batch within one group's
	// rounding of that; an unstratified deal would not.
	for i, b := range plan.Batches {
		n := 0
		for _, s := range b.Slots {
			if s.Type == "scalar" {
				n++
			}
		}
		if n < 4 || n > 7 {
			t.Errorf("batch %d has %d scalar items, want about 5", i, n)
		}
	}
}

func TestBuildCrowdBatchesSmall(t *testing.T) {
	// 5 items, two conditions: the odd item forces two sets.
	items := []BatchItem{{"a", "scalar"}, {"b", "scalar"}, {"c", "natural"}, {"d", "natural"}, {"e", "discourse"}}
	spec := CrowdBatchSpec{Items: items, Size: 30}
	plan, err := BuildCrowdBatches(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Batches) != 4 {
		t.Errorf("got %d batches, want 4", len(plan.Batches))
	}
	checkCrowdInvariants(t, spec, plan)
}

func TestBuildCrowdBatchesErrors(t *testing.T) {
	items := paperItems()
	for _, tc := range []struct {
		name string
		spec CrowdBatchSpec
		want string
	}{
		{"no items", CrowdBatchSpec{}, "no items"},
		{"duplicate", CrowdBatchSpec{Items: []BatchItem{{"a", "x"}, {"b", "x"}, {"a", "x"}}}, `items[2]: key "a" appears twice`},
		{"empty key", CrowdBatchSpec{Items: []BatchItem{{"", "x"}}}, "items[0]: empty key"},
		{"bad expect", CrowdBatchSpec{Items: items, Checks: []BatchCheck{{Key: "c", Expect: "medium"}}}, `checks[0] (c): expected rating must be high or low, got "medium"`},
		{"check is item", CrowdBatchSpec{Items: items, Checks: []BatchCheck{{Key: "scalar-001", Expect: "low"}}}, `key "scalar-001" is already used by an item`},
		{"unknown condition", CrowdBatchSpec{Items: items, Conditions: []string{"trigger", "cancle"}}, `conditions[1]: unknown condition "cancle"`},
		{"no cancel", CrowdBatchSpec{Items: items, Conditions: []string{"trigger", "neutral"}}, "must include trigger and cancel"},
		{"twice", CrowdBatchSpec{Items: items, Conditions: []string{"trigger", "cancel", "trigger"}}, `conditions[2]: "trigger" given twice`},
		{"size", CrowdBatchSpec{Items: items, Size: 1}, "batch size 1 out of range"},
		{"too few", CrowdBatchSpec{Items: []BatchItem{{"a", "x"}}}, "1 items are too few for 2 conditions"},
		{"too few for five", CrowdBatchSpec{Items: []BatchItem{{"a", "x"}, {"b", "x"}, {"c", "x"}}, Conditions: []string{"trigger", "cancel", "negation", "strengthen", "neutral"}}, "3 items are too few for 5 conditions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuildCrowdBatches(tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestPickCrowdTraining(t *testing.T) {
	items := paperItems()
	got := PickCrowdTraining(items, DefaultCrowdTraining, 3)
	var types, conds []string
	for _, s := range got {
		types = append(types, s.Type)
		conds = append(conds, s.Condition)
	}
	if want := "scalar discourse discourse synthetic synthetic natural"; strings.Join(types, " ") != want {
		t.Fatalf("types %v, want %s", types, want)
	}
	if want := "trigger cancel trigger cancel trigger cancel"; strings.Join(conds, " ") != want {
		t.Fatalf("conditions %v, want %s", conds, want)
	}
	if again := PickCrowdTraining(items, DefaultCrowdTraining, 3); !reflect.DeepEqual(got, again) {
		t.Fatal("same seed, different pick")
	}
	if other := PickCrowdTraining(items, DefaultCrowdTraining, 4); reflect.DeepEqual(got, other) {
		t.Fatal("seeds 3 and 4 picked the same items")
	}
	if few := PickCrowdTraining(items[:3], DefaultCrowdTraining, 3); len(few) != 1 {
		t.Fatalf("3 scalar items gave %d training slots, want 1 (only the scalar quota)", len(few))
	}
}

// TestBuildJudgementBatches: a judgement study's own conditions are taken
// as they are named, each check stays in its one condition, and a check in
// an undeclared condition or a bad name is refused
// (docs/studies.md#judgement-batches).
func TestBuildJudgementBatches(t *testing.T) {
	var items []BatchItem
	for i := range 24 {
		items = append(items, BatchItem{Key: fmt.Sprintf("pair-%02d", i), Type: "judgement"})
	}
	conds := []string{"kontrolle", "zielsatz", "füller"}
	checks := []BatchCheck{{Key: "c-hi", Expect: "high", Condition: "zielsatz"}, {Key: "c-lo", Expect: "low", Condition: "füller"}}
	spec := CrowdBatchSpec{Items: items, Checks: checks, Conditions: conds, Size: 12, Seed: 5, Judgement: true}
	plan, err := BuildCrowdBatches(spec)
	if err != nil {
		t.Fatal(err)
	}
	checkCrowdInvariants(t, spec, plan)
	for b, batch := range plan.Batches {
		for _, s := range batch.Slots {
			if s.Check != "" && ((s.Key == "c-hi") != (s.Condition == "zielsatz") || (s.Key == "c-lo") != (s.Condition == "füller")) {
				t.Errorf("batch %d: check %s in %q, not its own condition", b, s.Key, s.Condition)
			}
		}
	}
	for _, c := range []struct {
		name string
		edit func(*CrowdBatchSpec)
		want string
	}{
		{"no conditions", func(s *CrowdBatchSpec) { s.Conditions = nil }, "names its conditions"},
		{"bad name", func(s *CrowdBatchSpec) { s.Conditions = []string{"ziel satz", "kontrolle"} }, "is not a condition name"},
		{"twice", func(s *CrowdBatchSpec) { s.Conditions = []string{"a", "a"} }, `"a" given twice`},
		{"check elsewhere", func(s *CrowdBatchSpec) { s.Checks = []BatchCheck{{Key: "c", Expect: "high", Condition: "trigger"}} }, `condition "trigger" is not one of the study's`},
	} {
		s := spec
		c.edit(&s)
		if _, err := BuildCrowdBatches(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}
