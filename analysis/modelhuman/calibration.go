package modelhuman

import (
	"fmt"
	"math"
	"pragmalab/analysis"
)

// Calibration of the model's P(True) against the share of humans who judge
// the item true (docs/statistics.md#calibration-against-the-human-share).

// CalBin is one bin of the reliability diagram.
type CalBin struct {
	Lo         float64  `json:"lo"`
	Hi         float64  `json:"hi"`
	Items      int      `json:"items"`
	MeanModel  *float64 `json:"mean_model"`
	MeanHumans *float64 `json:"mean_humans"`
}

// Calibration is the expected calibration error with its bins.
type Calibration struct {
	Items int          `json:"items"`
	ECE   *float64     `json:"ece"`
	ECECI *analysis.CI `json:"ece_ci95"`
	Bins  []CalBin     `json:"bins"`
}

// ComputeCalibration bins the items by the model's probability p into
// equal-width bins over [0, 1] (the last closed) and computes
// ECE = Σ_b (n_b / N)·|mean p − mean human share| with a 95 % percentile
// bootstrap interval over items.
func ComputeCalibration(p, human []float64, bins int, bs analysis.Bootstrap) (*Calibration, error) {
	if len(p) != len(human) {
		return nil, fmt.Errorf("calibration: %d model probabilities, %d human shares", len(p), len(human))
	}
	if len(p) == 0 || bins < 1 {
		return nil, fmt.Errorf("calibration: no item, or no bin")
	}
	for i := range p {
		if !(p[i] >= 0 && p[i] <= 1) || !(human[i] >= 0 && human[i] <= 1) {
			return nil, fmt.Errorf("calibration: item %d: probability %v or human share %v outside [0, 1]", i+1, p[i], human[i])
		}
	}
	ece := func(w []int32) (float64, []CalBin) { return calibrationBins(p, human, bins, w) }
	e, out := ece(nil)
	c := &Calibration{Items: len(p), ECE: analysis.Num(e), Bins: out}
	if B := bs.Replicates; B > 0 && len(p) > 1 {
		rng := analysis.NewRand(bs.Seed)
		all := make([]int, len(p))
		for i := range all {
			all[i] = i
		}
		w := make([]int32, len(p))
		vs := make([]float64, B)
		for b := range B {
			analysis.DrawStrata(rng, [][]int{all}, w)
			vs[b], _ = ece(w)
		}
		c.ECECI = analysis.WithPoint(analysis.PercentileCI(c.ECE, vs), c.ECE)
	}
	return c, nil
}

// calibrationBins are the ECE and the bins with the items weighted by w
// (nil: once each).
func calibrationBins(p, human []float64, bins int, w []int32) (float64, []CalBin) {
	sp, sh, nb := make([]float64, bins), make([]float64, bins), make([]float64, bins)
	var total float64
	for i := range p {
		wi := 1.0
		if w != nil {
			wi = float64(w[i])
		}
		b := min(int(p[i]*float64(bins)), bins-1)
		sp[b] += wi * p[i]
		sh[b] += wi * human[i]
		nb[b] += wi
		total += wi
	}
	var e float64
	out := make([]CalBin, bins)
	for b := range bins {
		out[b] = CalBin{Lo: float64(b) / float64(bins), Hi: float64(b+1) / float64(bins), Items: int(nb[b])}
		if nb[b] > 0 {
			out[b].MeanModel, out[b].MeanHumans = analysis.Num(sp[b]/nb[b]), analysis.Num(sh[b]/nb[b])
			e += nb[b] / total * math.Abs(sp[b]/nb[b]-sh[b]/nb[b])
		}
	}
	return e, out
}

// CrowdCalibration is the calibration of a model's P(True) per item ×
// condition against the share of the crowd rating the unit above the
// scale's midpoint (on 1–7: 5, 6 or 7), over the units both have.
func CrowdCalibration(rows []CrowdRating, points int, model map[UnitKey]float64, bins int, bs analysis.Bootstrap) (*Calibration, error) {
	type acc struct{ above, n int }
	by := map[UnitKey]*acc{}
	var keys []UnitKey
	mid := float64(points+1) / 2
	for _, r := range rows {
		k := UnitKey{r.Item, r.Condition}
		if _, ok := model[k]; !ok {
			continue
		}
		a := by[k]
		if a == nil {
			a = &acc{}
			by[k] = a
			keys = append(keys, k)
		}
		a.n++
		if float64(r.Rating) > mid {
			a.above++
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("calibration: no item × condition has both crowd ratings and the model's P(True)")
	}
	p, h := make([]float64, len(keys)), make([]float64, len(keys))
	for i, k := range keys {
		p[i] = model[k]
		h[i] = float64(by[k].above) / float64(by[k].n)
	}
	return ComputeCalibration(p, h, bins, bs)
}
