package report

import (
	"fmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
)

// ReliabilityDiagram draws each bin's mean human share against its mean
// model probability, the diagonal being perfect calibration; the point's
// size grows with the bin's items.
func ReliabilityDiagram(c *modelhuman.Calibration) (*plot.Plot, error) {
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
		label = "ECE = " + analysis.Fixed(*c.ECE, 3)
		if c.ECECI != nil {
			label += " " + analysis.CIText(c.ECECI)
		}
	}
	p.Add(cornerText{[]string{label, fmt.Sprintf("n = %d items, %d bins", c.Items, len(c.Bins))}})
	return p, nil
}
