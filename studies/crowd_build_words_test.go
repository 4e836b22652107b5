package studies

import "testing"

// TestCrowdBuildCountsInTheSingular: what `study batches` prints and the
// study page's plan say of a judgement study with one practice item (the
// README's, docs/studies.md#judgement-batches), one batch and one
// attention check is English: "1 practice item", not "1 practice items".
func TestCrowdBuildCountsInTheSingular(t *testing.T) {
	b := CrowdBuild{Batches: 1, Sizes: map[int]int{4: 1}, Checks: 1, Training: 1, TrainingFrom: TrainingFromItems, Judgement: true}
	if got, want := b.String(), "Built 1 batch (1 × 4 items, + 1 attention check each) and 1 practice item."; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := b.TrainingNote(), "1 practice item, marked in the items file"; got != want {
		t.Errorf("TrainingNote() = %q, want %q", got, want)
	}
	b = CrowdBuild{Batches: 2, Sizes: map[int]int{4: 2}, Checks: 2, Training: 6, TrainingFrom: TrainingFromItems}
	if got, want := b.String(), "Built 2 batches (2 × 4 items, + 2 attention checks each) and 6 training items."; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
