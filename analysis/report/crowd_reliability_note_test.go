package report

import (
	"strings"
	"testing"

	"pragmalab/analysis/modelhuman"
)

// TestCrowdReliabilityTablesNameTheConstantRaters: α and the split-half
// reliability leave out a participant who gave every item the same rating
// (docs/statistics.md#crowd-krippendorffs-alpha), which a judgement study's
// means by condition count; on its Analysis page the α table read "10
// ratings" below a means table of 14, with nothing saying why. Both tables
// now say who was left out; with nobody left out they say nothing of it.
func TestCrowdReliabilityTablesNameTheConstantRaters(t *testing.T) {
	var rows []modelhuman.CrowdRating
	for p, ratings := range map[string][4]int{"a": {5, 2, 4, 1}, "b": {4, 1, 5, 2}, "c": {5, 1, 4, 2}, "flat": {3, 3, 3, 3}} {
		for i, item := range []string{"1", "2", "3", "4"} {
			rows = append(rows, modelhuman.CrowdRating{Participant: p, Item: item, Condition: []string{"kontrolle", "zielsatz"}[i%2], Rating: ratings[i]})
		}
	}
	opt := modelhuman.DefaultReliabilityOptions()
	opt.Points, opt.Splits = 5, 50
	rel, err := modelhuman.ComputeCrowdReliability(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := "1 participant who gave every item the same rating is left out of α and of the split-half reliability (no z-scores), with their ratings."
	for _, tab := range CrowdReliabilityTables(rel) {
		if !strings.Contains(strings.Join(tab.Notes, "\n"), want) {
			t.Errorf("%s: notes %q lack %q", tab.Name, tab.Notes, want)
		}
	}
	rel.ZeroVariance = nil
	for _, tab := range CrowdReliabilityTables(rel) {
		if strings.Contains(strings.Join(tab.Notes, "\n"), "same rating") {
			t.Errorf("%s: a note on constant raters with none: %q", tab.Name, tab.Notes)
		}
	}
}
