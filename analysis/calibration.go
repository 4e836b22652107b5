package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
	Items int      `json:"items"`
	ECE   *float64 `json:"ece"`
	ECECI *CI      `json:"ece_ci95"`
	Bins  []CalBin `json:"bins"`
}

// ComputeCalibration bins the items by the model's probability p into
// equal-width bins over [0, 1] (the last closed) and computes
// ECE = Σ_b (n_b / N)·|mean p − mean human share| with a 95 % percentile
// bootstrap interval over items.
func ComputeCalibration(p, human []float64, bins int, bs Bootstrap) (*Calibration, error) {
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
	c := &Calibration{Items: len(p), ECE: num(e), Bins: out}
	if B := bs.Replicates; B > 0 && len(p) > 1 {
		rng := newRand(bs.Seed)
		all := make([]int, len(p))
		for i := range all {
			all[i] = i
		}
		w := make([]int32, len(p))
		vs := make([]float64, B)
		for b := range B {
			drawStrata(rng, [][]int{all}, w)
			vs[b], _ = ece(w)
		}
		c.ECECI = withPoint(percentileCI(c.ECE, vs), c.ECE)
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
			out[b].MeanModel, out[b].MeanHumans = num(sp[b]/nb[b]), num(sh[b]/nb[b])
			e += nb[b] / total * math.Abs(sp[b]/nb[b]-sh[b]/nb[b])
		}
	}
	return e, out
}

// ReliabilityDiagram draws each bin's mean human share against its mean
// model probability, the diagonal being perfect calibration; the point's
// size grows with the bin's items.
func ReliabilityDiagram(c *Calibration) (*plot.Plot, error) {
	p := newPlot("Calibration: model P(True) against the human share", "model P(True), mean per bin", "share of humans judging it true")
	diag := plotter.NewFunction(func(x float64) float64 { return x })
	diag.Color = palette[0]
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(diag)
	var xys plotter.XYs
	var sizes []int
	most := 1
	for _, b := range c.Bins {
		if b.Items > 0 {
			xys = append(xys, plotter.XY{X: *b.MeanModel, Y: *b.MeanHumans})
			sizes = append(sizes, b.Items)
			most = max(most, b.Items)
		}
	}
	line, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, err
	}
	line.Color = colorTrigger
	pts.Color = colorTrigger
	pts.Shape = draw.CircleGlyph{}
	p.Add(line)
	for i, xy := range xys {
		sc, err := plotter.NewScatter(plotter.XYs{xy})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = colorTrigger
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(2 + 5*math.Sqrt(float64(sizes[i])/float64(most)))
		p.Add(sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.03, 1.03, -0.03, 1.03
	label := "ECE undefined"
	if c.ECE != nil {
		label = "ECE = " + Fixed(*c.ECE, 3)
		if c.ECECI != nil {
			label += " " + ciText(c.ECECI)
		}
	}
	p.Add(cornerText{[]string{label, fmt.Sprintf("n = %d items, %d bins", c.Items, len(c.Bins))}})
	return p, nil
}

// CalibrationTable lays the bins and the ECE out for people.
func CalibrationTable(c *Calibration) *Table {
	t := &Table{Name: "calibration", Title: "Calibration of the model's P(True) against the human share",
		Columns: []string{"bin", "items", "mean P(True)", "mean human share"}}
	for _, b := range c.Bins {
		t.Rows = append(t.Rows, []any{Fixed(b.Lo, 1) + "–" + Fixed(b.Hi, 1), b.Items, b.MeanModel, b.MeanHumans})
	}
	t.Notes = []string{"Expected calibration error: " + Text(Est{c.ECE, c.ECECI}) + " over " + itoa(c.Items) + " items."}
	return t
}

// CrowdCalibration is the calibration of a model's P(True) per item ×
// condition against the share of the crowd rating the unit above the
// scale's midpoint (on 1–7: 5, 6 or 7), over the units both have.
func CrowdCalibration(rows []CrowdRating, points int, model map[UnitKey]float64, bins int, bs Bootstrap) (*Calibration, error) {
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
