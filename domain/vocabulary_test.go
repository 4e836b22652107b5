package domain

import "testing"

// TestFollowUps: every condition but the trigger appends the item field
// its name announces, and the file column of that field is named.
func TestFollowUps(t *testing.T) {
	it := Item{Cancellation: "x×", Negation: "x⊥", Strengthening: "x+", Neutral: "x≈"}
	want := map[string]string{ConditionCancel: "x×", ConditionNegation: "x⊥", ConditionStrengthen: "x+", ConditionNeutral: "x≈"}
	for _, c := range Conditions {
		if c == ConditionTrigger {
			if FollowUpField(c) != "" || it.FollowUp(c) != "" {
				t.Errorf("trigger has a follow-up %q (field %q)", it.FollowUp(c), FollowUpField(c))
			}
			continue
		}
		if it.FollowUp(c) != want[c] || FollowUpField(c) == "" {
			t.Errorf("condition %s shows %q from field %q, want %q", c, it.FollowUp(c), FollowUpField(c), want[c])
		}
	}
}

func TestValidRating(t *testing.T) {
	for r := -1; r <= 9; r++ {
		if got, want := ValidRating(r), r >= 1 && r <= 7; got != want {
			t.Errorf("ValidRating(%d) = %v, want %v", r, got, want)
		}
	}
}

func TestTableTypesAreItemTypes(t *testing.T) {
	if len(TableTypes) != len(ItemTypes) {
		t.Fatalf("TableTypes %v, ItemTypes %v", TableTypes, ItemTypes)
	}
	for _, typ := range TableTypes {
		if !IsItemType(typ) {
			t.Errorf("table type %q is no item type", typ)
		}
	}
}
