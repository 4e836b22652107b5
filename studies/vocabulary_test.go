package studies

import (
	"slices"
	"testing"

	"pragmalab/analysis"
	"pragmalab/scoring"
	"pragmalab/store"
)

// TestVocabularyAgrees guards the one vocabulary: store defines the item
// types and conditions, and analysis and scoring — which import no store —
// must read and write the same names, or an export would not analyse.
func TestVocabularyAgrees(t *testing.T) {
	if !slices.Equal(analysis.ExpertTypeOrder, store.ItemTypes) {
		t.Errorf("analysis.ExpertTypeOrder = %v, store.ItemTypes = %v", analysis.ExpertTypeOrder, store.ItemTypes)
	}
	if got, want := slices.Sorted(slices.Values(analysis.Types)), slices.Sorted(slices.Values(store.ItemTypes)); !slices.Equal(got, want) {
		t.Errorf("analysis.Types %v and store.ItemTypes %v name different types", got, want)
	}
	if !slices.Equal(analysis.PooledNames, store.PooledNames) {
		t.Errorf("analysis.PooledNames = %v, store.PooledNames = %v", analysis.PooledNames, store.PooledNames)
	}
	if !slices.Equal(analysis.ConditionNames[:], store.Conditions) {
		t.Errorf("analysis.ConditionNames = %v, store.Conditions = %v", analysis.ConditionNames, store.Conditions)
	}
	var sc []string
	for _, c := range scoring.Conditions {
		if c != scoring.Prior {
			sc = append(sc, string(c))
		}
	}
	if !slices.Equal(sc, store.Conditions) {
		t.Errorf("scoring conditions %v, store.Conditions %v", sc, store.Conditions)
	}
	for _, c := range store.Conditions {
		if c == store.ConditionTrigger {
			if store.FollowUpField(c) != "" {
				t.Errorf("trigger has a follow-up field %q", store.FollowUpField(c))
			}
			continue
		}
		it := store.Item{Cancellation: "x×", Negation: "x⊥", Strengthening: "x+", Neutral: "x≈"}
		if it.FollowUp(c) == "" || store.FollowUpField(c) == "" {
			t.Errorf("condition %s shows no follow-up", c)
		}
	}
	for _, q := range analysis.DefaultCrowdTraining {
		if !store.IsItemType(q.Type) {
			t.Errorf("default training names unknown type %q", q.Type)
		}
	}
}
