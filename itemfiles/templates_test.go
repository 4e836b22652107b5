package itemfiles

import (
	"bytes"
	"testing"

	"pragmalab/domain"
)

// TestTemplatesImport: each downloadable template imports as it stands,
// with every column of its format and a row of each use.
func TestTemplatesImport(t *testing.T) {
	items, err := ParseItemsCSV(bytes.NewReader(ItemsTemplateCSV(nil)))
	if err != nil {
		t.Fatalf("items template: %v", err)
	}
	uses := map[string]bool{}
	for _, it := range items {
		uses["check "+it.Check] = true
		uses["training "+it.Training] = true
		if it.Negation != "" && it.Strengthening != "" && it.Neutral != "" {
			uses["controls"] = true
		}
	}
	for _, u := range []string{"check high", "check low", "training high", "training low", "check ", "controls"} {
		if !uses[u] {
			t.Errorf("the items template has no row of %q", u)
		}
	}
	// A crowd study's template fills the follow-ups of its conditions only,
	// and imports under its check (docs/studies.md#conditions).
	for _, conds := range [][]string{{"trigger", "cancel"}, {"trigger", "cancel", "negation"}} {
		items, err := ParseItemFileChecked("t.csv", bytes.NewReader(ItemsTemplateCSV(conds)), func(it *domain.Item) error { return it.CheckConditions(conds) })
		if err != nil {
			t.Fatalf("template for %v: %v", conds, err)
		}
		if neg := items[0].Negation != ""; neg != (len(conds) == 3) || items[0].Strengthening != "" || items[0].Neutral != "" {
			t.Errorf("template for %v: data item %+v", conds, items[0])
		}
	}
	ps, err := ParsePassagesTSV(bytes.NewReader(PassagesTemplateTSV()))
	if err != nil || len(ps) != 1 || ps[0].Answer != "A" || ps[0].Options[3] == "" || len(ps[0].Sentences) != 2 {
		t.Fatalf("passages template: %+v %v", ps, err)
	}
	outs, err := ParseOutputsCSV(bytes.NewReader(OutputsTemplateCSV()))
	if err != nil || len(outs) != 1 || outs[0].ItemKey != ps[0].Key {
		t.Fatalf("outputs template: %+v %v", outs, err)
	}
}
