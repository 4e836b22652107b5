package report

import (
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
	"pragmalab/analysis/modelhuman"
	"strings"
	"testing"
)

// TestDistributionFigures renders the figures of a small comparison: the
// panel holds the 12 most different items, the largest JSD first.
func TestDistributionFigures(t *testing.T) {
	rng := analysis.NewRand(3)
	var units []modelhuman.DistUnit
	for i := range 20 {
		w := []float64{1, 2, 3, 2, 1, 1, float64(i)}
		units = append(units, modelhuman.DistUnit{Item: "it" + analysis.Itoa(i), Condition: "cancel", Human: atest.DrawFrom(rng, w, 6), Model: []float64{0, 0, 0, 1, 0, 0, 0}})
	}
	d, err := modelhuman.CompareDistributions(units, modelhuman.DefaultDistOptions())
	if err != nil {
		t.Fatal(err)
	}
	top := d.MostDifferent(12)
	if len(top) != 12 || top[0].Measures[modelhuman.MeasureJSD].Model < top[11].Measures[modelhuman.MeasureJSD].Model {
		t.Fatalf("most different: %d items, not sorted by JSD", len(top))
	}
	figs, err := DistributionFigures(d)
	if err != nil || len(figs) != 3 {
		t.Fatalf("%d figures, %v", len(figs), err)
	}
	for _, f := range figs {
		b, err := PlotBytes(f.Plot, "svg")
		if err != nil || len(b) < 1000 {
			t.Errorf("%s: %d bytes, %v", f.Name, len(b), err)
		}
	}
	svg, _ := PlotBytes(figs[2].Plot, "svg")
	if !strings.Contains(string(svg), top[0].Item+" · cancel") {
		t.Errorf("the panel does not name the most different item %s", top[0].Item)
	}
}
