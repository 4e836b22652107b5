package report

import (
	"fmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"image/color"
	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
)

// measureLabel names a distance on an axis.
var measureLabel = map[string]string{
	modelhuman.MeasureJSD:         "Jensen–Shannon divergence (bits)",
	modelhuman.MeasureKL:          "KL(human ‖ model) (bits)",
	modelhuman.MeasureWasserstein: "Wasserstein / (points − 1)",
	modelhuman.MeasureTV:          "total variation",
}

// DistanceCeilingPlot draws each unit's model distance against its human
// ceiling: points on or below the diagonal are within the ceiling.
func DistanceCeilingPlot(d *modelhuman.Distributions, measure string) (*plot.Plot, error) {
	p := newPlot("Model distance against the human split-half ceiling", "ceiling: "+measureLabel[measure], "model: "+measureLabel[measure])
	var in, out plotter.XYs
	hi := 0.0
	for _, it := range d.Items {
		m := it.Measures[measure]
		if m.Ceiling == nil {
			continue
		}
		xy := plotter.XY{X: *m.Ceiling, Y: m.Model}
		hi = max(hi, xy.X, xy.Y)
		if *m.Within {
			in = append(in, xy)
		} else {
			out = append(out, xy)
		}
	}
	if len(in)+len(out) == 0 {
		p.Add(cornerText{[]string{"no item has two humans"}})
		return p, nil
	}
	diag := plotter.NewFunction(func(x float64) float64 { return x })
	diag.Color = color.Gray{Y: 0x99}
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(diag)
	for _, s := range []struct {
		xys   plotter.XYs
		col   color.Color
		label string
	}{{in, colorTrigger, "within the ceiling"}, {out, colorCancel, "beyond the ceiling"}} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = s.col
		sc.GlyphStyle.Radius = vg.Points(2.5)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s (%d)", s.label, len(s.xys)), sc)
	}
	hi = max(hi*1.08, 0.05)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, hi, 0, hi
	p.Legend.Left = true
	return p, nil
}

// histPanel draws small multiples: for each unit, the human (grey) and
// model (blue) distributions side by side over the scale's points.
type histPanel struct {
	items  []modelhuman.DistItem
	points int
	cols   int
}

func (h histPanel) Plot(c draw.Canvas, p *plot.Plot) {
	rows := (len(h.items) + h.cols - 1) / h.cols
	w := (c.Max.X - c.Min.X) / vg.Length(h.cols)
	ht := (c.Max.Y - c.Min.Y) / vg.Length(rows)
	sty := p.Legend.TextStyle
	sty.Font.Size = vg.Points(7)
	sty.XAlign, sty.YAlign = text.XCenter, text.YTop
	for k, it := range h.items {
		x0 := c.Min.X + vg.Length(k%h.cols)*w
		y1 := c.Max.Y - vg.Length(k/h.cols)*ht
		pad := vg.Points(4)
		title := fmt.Sprintf("%s · %s (JSD %s)", it.Item, it.Condition, analysis.Fixed(it.Measures[modelhuman.MeasureJSD].Model, 2))
		c.FillText(sty, vg.Point{X: x0 + w/2, Y: y1 - vg.Points(1)}, title)
		top := y1 - sty.Height(title) - vg.Points(3)
		base := y1 - ht + pad + vg.Points(8)
		frame := []vg.Point{{X: x0 + pad, Y: base}, {X: x0 + w - pad, Y: base}}
		c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 0x66}, Width: vg.Points(0.5)}, frame)
		slot := (w - 2*pad) / vg.Length(h.points)
		bar := slot * 0.4
		for pt := range h.points {
			sx := x0 + pad + vg.Length(pt)*slot + slot*0.1
			for j, v := range []float64{it.HumanDist[pt], it.ModelDist[pt]} {
				col := palette[0]
				if j == 1 {
					col = colorTrigger
				}
				bx := sx + vg.Length(j)*bar
				by := base + (top-base)*vg.Length(v)
				if v > 0 {
					c.FillPolygon(col, []vg.Point{{X: bx, Y: base}, {X: bx + bar, Y: base}, {X: bx + bar, Y: by}, {X: bx, Y: by}})
				}
			}
			ls := sty
			ls.YAlign = text.YTop
			c.FillText(ls, vg.Point{X: sx + bar, Y: base - vg.Points(1)}, fmt.Sprint(pt+1))
		}
	}
}

// HistogramPanel draws the human and model distributions of the n units
// where they differ most (by JSD), n = 12 for the report.
func HistogramPanel(d *modelhuman.Distributions, n int) (*plot.Plot, error) {
	items := d.MostDifferent(n)
	p := newPlot(fmt.Sprintf("The %d items where model and humans differ most (grey: humans, blue: model)", len(items)), "", "")
	p.HideAxes()
	if len(items) == 0 {
		p.Add(cornerText{[]string{"no item"}})
		return p, nil
	}
	p.Add(histPanel{items: items, points: d.Points, cols: 4})
	return p, nil
}

// DistributionFigures are the figures of a comparison: the distance
// against the ceiling for JSD and Wasserstein, and the panel of the 12
// most different items.
func DistributionFigures(d *modelhuman.Distributions) ([]Figure, error) {
	var figs []Figure
	for _, m := range []string{modelhuman.MeasureJSD, modelhuman.MeasureWasserstein} {
		p, err := DistanceCeilingPlot(d, m)
		if err != nil {
			return nil, err
		}
		figs = append(figs, Figure{Name: "distance_ceiling_" + m, Title: "Model " + measureLabel[m] + " against the human ceiling", Plot: p})
	}
	p, err := HistogramPanel(d, 12)
	if err != nil {
		return nil, err
	}
	return append(figs, Figure{Name: "distribution_panel", Title: "Human and model distributions, the 12 most different items", Plot: p}), nil
}
