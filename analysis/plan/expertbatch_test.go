package plan

import (
	"reflect"
	"testing"
)

// paperItems builds the 271 items of the ImplicatureX data set by type.
func expertPaperItems() (items, checks []ExpertBatchItem) {
	id := int64(0)
	add := func(dst *[]ExpertBatchItem, t string, n int) {
		for i := 0; i < n; i++ {
			id++
			*dst = append(*dst, ExpertBatchItem{ID: id, Type: t})
		}
	}
	add(&items, "scalar", 46)
	add(&items, "discourse", 31)
	add(&items, "synthetic", 144)
	add(&items, "natural", 50)
	add(&checks, "scalar", 2)
	add(&checks, "discourse", 2)
	add(&checks, "synthetic", 5)
	add(&checks, "natural", 2)
	return
}

func TestBuildExpertBatchesPaper(t *testing.T) {
	items, checks := expertPaperItems()
	batches, err := BuildExpertBatches(items, checks, 53, 7, 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(batches) != 6 {
		t.Fatalf("got %d batches, want 6 (271 items / 46 per batch)", len(batches))
	}
	isCheck := map[int64]bool{}
	for _, c := range checks {
		isCheck[c.ID] = true
	}
	seen := map[int64]int{}
	for b, batch := range batches {
		if len(batch) > 53 {
			t.Errorf("batch %d has %d screens, more than 53", b, len(batch))
		}
		perType := map[string]int{}
		inBatch := map[int64]bool{}
		last := -1
		rank := map[string]int{"scalar": 0, "synthetic": 1, "natural": 2, "discourse": 3}
		for _, it := range batch {
			if inBatch[it.ID] {
				t.Errorf("batch %d holds item %d twice", b, it.ID)
			}
			inBatch[it.ID] = true
			if rank[it.Type] < last {
				t.Errorf("batch %d: type %s after a later type; want scalar, synthetic, natural, discourse", b, it.Type)
			}
			last = rank[it.Type]
			if isCheck[it.ID] {
				perType[it.Type]++
			} else {
				seen[it.ID]++
			}
		}
		want := map[string]int{"scalar": 1, "discourse": 1, "synthetic": 4, "natural": 1}
		if !reflect.DeepEqual(perType, want) {
			t.Errorf("batch %d checks by type = %v, want %v", b, perType, want)
		}
	}
	for _, it := range items {
		if seen[it.ID] != 1 {
			t.Errorf("item %d is in %d batches, want exactly 1", it.ID, seen[it.ID])
		}
	}
	again, _ := BuildExpertBatches(items, checks, 53, 7, 42)
	if !reflect.DeepEqual(batches, again) {
		t.Error("same seed gave different batches")
	}
	other, _ := BuildExpertBatches(items, checks, 53, 7, 43)
	if reflect.DeepEqual(batches, other) {
		t.Error("another seed gave the same batches")
	}
}

func TestBuildExpertBatchesErrors(t *testing.T) {
	items, checks := expertPaperItems()
	if _, err := BuildExpertBatches(nil, checks, 53, 7, 1); err == nil {
		t.Error("no items: want an error")
	}
	if _, err := BuildExpertBatches(items, checks[:3], 53, 7, 1); err == nil {
		t.Error("3 checks for 7 per batch: want an error")
	}
	if _, err := BuildExpertBatches(items, checks, 7, 7, 1); err == nil {
		t.Error("batch no larger than its checks: want an error")
	}
}
