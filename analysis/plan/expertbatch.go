package plan

import (
	"fmt"
	"math/rand/v2"
	"pragmalab/domain"
	"sort"
)

// ExpertBatchItem is an item as the batch builders see it.
type ExpertBatchItem struct {
	ID   int64
	Type string
}

// BuildExpertBatches splits items into batches of size screens, nChecks of
// them attention checks. Items are dealt to batches type by type, so every
// batch holds the data set's types in about its proportions; the checks of a
// batch are drawn per type in the same proportions (largest remainder: 46
// scalar, 31 discourse, 144 synthetic and 50 natural items give 1, 1, 4, 1 of
// 7). Within a batch the types come in domain.ItemTypes, shuffled inside each
// type with seed, checks hidden among the data items.
func BuildExpertBatches(items, checks []ExpertBatchItem, size, nChecks int, seed int64) ([][]ExpertBatchItem, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("no items to put in batches")
	}
	if nChecks < 0 || size <= nChecks {
		return nil, fmt.Errorf("a batch of %d screens cannot hold %d attention checks and any item", size, nChecks)
	}
	if nChecks > len(checks) {
		return nil, fmt.Errorf("%d attention checks per batch were asked for, but only %d items are marked as checks", nChecks, len(checks))
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	perBatch := size - nChecks
	nBatches := (len(items) + perBatch - 1) / perBatch

	byType := groupByType(items)
	batches := make([][]ExpertBatchItem, nBatches)
	next := 0
	for _, t := range typesOf(byType) {
		group := byType[t]
		rng.Shuffle(len(group), func(i, j int) { group[i], group[j] = group[j], group[i] })
		for _, it := range group {
			batches[next] = append(batches[next], it)
			next = (next + 1) % nBatches
		}
	}

	quota := proportionalQuota(byType, nChecks)
	checkPool := groupByType(checks)
	for _, t := range sortedKeys(checkPool) {
		g := checkPool[t]
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
	}
	cursor := map[string]int{}
	for b := range batches {
		picked := drawChecks(checkPool, quota, cursor, nChecks)
		batches[b] = orderForExperts(append(batches[b], picked...), rng)
	}
	return batches, nil
}

// drawChecks picks n distinct checks, quota[t] of type t where the pool has
// them and the rest from the other types; cursors make successive batches
// take successive checks of a type.
func drawChecks(pool map[string][]ExpertBatchItem, quota map[string]int, cursor map[string]int, n int) []ExpertBatchItem {
	var out []ExpertBatchItem
	used := map[int64]bool{}
	take := func(t string) bool {
		g := pool[t]
		for tries := 0; tries < len(g); tries++ {
			c := g[cursor[t]%len(g)]
			cursor[t]++
			if !used[c.ID] {
				used[c.ID] = true
				out = append(out, c)
				return true
			}
		}
		return false
	}
	for _, t := range sortedKeys(quota) {
		for i := 0; i < quota[t] && len(out) < n; i++ {
			take(t)
		}
	}
	for _, t := range sortedKeys(pool) {
		for len(out) < n && take(t) {
		}
	}
	return out
}

// proportionalQuota shares n among the types in proportion to their counts,
// by the largest-remainder method.
func proportionalQuota(byType map[string][]ExpertBatchItem, n int) map[string]int {
	total := 0
	for _, g := range byType {
		total += len(g)
	}
	quota := map[string]int{}
	type rem struct {
		t string
		r float64
	}
	var rems []rem
	given := 0
	for _, t := range sortedKeys(byType) {
		exact := float64(n) * float64(len(byType[t])) / float64(total)
		quota[t] = int(exact)
		given += quota[t]
		rems = append(rems, rem{t, exact - float64(quota[t])})
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].r > rems[j].r })
	for i := 0; given < n; i++ {
		quota[rems[i%len(rems)].t]++
		given++
	}
	return quota
}

// orderForExperts sorts a batch by domain.ItemTypes, shuffled within a type.
func orderForExperts(batch []ExpertBatchItem, rng *rand.Rand) []ExpertBatchItem {
	rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
	rank := map[string]int{}
	for i, t := range domain.ItemTypes {
		rank[t] = i
	}
	sort.SliceStable(batch, func(i, j int) bool { return typeRank(rank, batch[i].Type) < typeRank(rank, batch[j].Type) })
	return batch
}

func typeRank(rank map[string]int, t string) int {
	if r, ok := rank[t]; ok {
		return r
	}
	return len(rank)
}

func groupByType(items []ExpertBatchItem) map[string][]ExpertBatchItem {
	m := map[string][]ExpertBatchItem{}
	for _, it := range items {
		m[it.Type] = append(m[it.Type], it)
	}
	// Sort by id so the result depends on the seed only, not input order.
	for _, g := range m {
		sort.Slice(g, func(i, j int) bool { return g[i].ID < g[j].ID })
	}
	return m
}

func typesOf(m map[string][]ExpertBatchItem) []string { return sortedKeys(m) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
