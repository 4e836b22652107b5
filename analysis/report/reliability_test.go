package report

import (
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"testing"
)

// TestCalibrationByHand: bins of 0.1; items at 0.1 and 0.15 share a bin
// (mean p 0.125, mean share 0.15), the one at 0.9 is alone (|0.9 − 0.6|):
// ECE = ⅔·0.025 + ⅓·0.3 = 0.11667.
func TestCalibrationByHand(t *testing.T) {
	c, err := modelhuman.ComputeCalibration([]float64{0.1, 0.15, 0.9}, []float64{0, 0.3, 0.6}, 10, analysis.Bootstrap{Replicates: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := 2.0/3*0.025 + 1.0/3*0.3
	if math.Abs(*c.ECE-want) > 1e-12 || c.Bins[1].Items != 2 || c.Bins[9].Items != 1 {
		t.Errorf("ECE %v, bins %+v; want %v with 2 items in [0.1, 0.2) and 1 in [0.9, 1]", *c.ECE, c.Bins, want)
	}
	// A perfectly calibrated model has ECE 0; p = 1 falls in the last bin.
	c, _ = modelhuman.ComputeCalibration([]float64{1, 0.55, 0.05}, []float64{1, 0.55, 0.05}, 10, analysis.Bootstrap{})
	if *c.ECE != 0 || c.Bins[9].Items != 1 {
		t.Errorf("calibrated: ECE %v, last bin %d items", *c.ECE, c.Bins[9].Items)
	}
	if _, err := modelhuman.ComputeCalibration([]float64{1.2}, []float64{1}, 10, analysis.Bootstrap{}); err == nil {
		t.Error("a probability of 1.2 accepted")
	}
	if p, err := ReliabilityDiagram(c); err != nil {
		t.Error(err)
	} else if b, err := PlotBytes(p, "svg"); err != nil || len(b) < 1000 {
		t.Errorf("reliability diagram: %d bytes, %v", len(b), err)
	}
}
