package report

import (
	"fmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"image/color"
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/toplines"
	"slices"
	"strconv"
)

// IntervalSeries is one series of estimates with intervals, one per group;
// a nil value is missing (drawn as "n/a", never as 0).
type IntervalSeries struct {
	Name   string
	Values []*float64
	CIs    []*analysis.CI
}

// errPoints are points with vertical error bars.
type errPoints struct {
	xy  plotter.XYs
	err plotter.YErrors
}

func (e errPoints) Len() int                        { return len(e.xy) }
func (e errPoints) XY(i int) (float64, float64)     { return e.xy[i].X, e.xy[i].Y }
func (e errPoints) YError(i int) (float64, float64) { return e.err[i].Low, e.err[i].High }

// IntervalPlot draws, per group on the x axis, one point per series with
// its 95 % interval as an error bar, series side by side. yMin and yMax
// bound the axis (the interval ends may widen it); the top leaves room for
// the legend so it does not cover data.
func IntervalPlot(title, ylabel string, groups []string, series []IntervalSeries, yMin, yMax float64) (*plot.Plot, error) {
	p := newPlot(title, "", ylabel)
	lo, hi := yMin, yMax
	width := 0.6 / float64(max(1, len(series)))
	missing := make([][]bool, len(groups)) // per group, per series
	var noCI plotter.XYs                   // estimates whose interval is undefined
	for si, s := range series {
		var pts errPoints
		for g := range groups {
			x := float64(g) - 0.3 + width*(float64(si)+0.5)
			if g >= len(s.Values) || s.Values[g] == nil {
				if missing[g] == nil {
					missing[g] = make([]bool, len(series))
				}
				missing[g][si] = true
				continue
			}
			v := *s.Values[g]
			el, eh := 0.0, 0.0
			if g < len(s.CIs) && s.CIs[g] != nil {
				el, eh = v-s.CIs[g][0], s.CIs[g][1]-v
				lo, hi = min(lo, s.CIs[g][0]), max(hi, s.CIs[g][1])
			} else if len(s.CIs) > 0 {
				// The series has intervals but this one is undefined.
				noCI = append(noCI, plotter.XY{X: x, Y: v})
			}
			pts.xy = append(pts.xy, plotter.XY{X: x, Y: v})
			pts.err = append(pts.err, struct{ Low, High float64 }{el, eh})
		}
		if len(pts.xy) == 0 {
			continue
		}
		col := palette[(si+1)%len(palette)]
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius = col, vg.Points(3)
		sc.GlyphStyle.Shape = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}}[si%4]
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color, eb.LineStyle.Width, eb.CapWidth = col, vg.Points(1.2), vg.Points(6)
		p.Add(eb, sc)
		p.Legend.Add(s.Name, sc)
	}
	// One "n/a" centred under each run of adjacent missing series, so
	// two never run together into "n/an/a".
	var mxy plotter.XYs
	for g, ms := range missing {
		for si := 0; si < len(ms); si++ {
			if !ms[si] {
				continue
			}
			end := si
			for end < len(ms) && ms[end] {
				end++
			}
			mxy = append(mxy, plotter.XY{X: float64(g) - 0.3 + width*float64(si+end)/2, Y: yMin})
			si = end
		}
	}
	if len(mxy) > 0 {
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: mxy, Labels: slices.Repeat([]string{"n/a"}, len(mxy))})
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Font.Variant = "Sans"
			labels.TextStyle[i].Color = color.Gray{Y: 0x66}
			labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = text.XCenter, text.YBottom
		}
		p.Add(labels)
	}
	if len(noCI) > 0 {
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: noCI, Labels: slices.Repeat([]string{"CI n/a"}, len(noCI))})
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Font.Variant = "Sans"
			labels.TextStyle[i].Font.Size = font.Length(7)
			labels.TextStyle[i].Color = color.Gray{Y: 0x66}
			labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = text.XCenter, text.YBottom
		}
		labels.Offset = vg.Point{Y: vg.Points(4)}
		p.Add(labels)
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color, zero.Width = color.Gray{Y: 0xbb}, vg.Points(0.5)
	if lo < 0 {
		p.Add(zero)
	}
	p.X.Min, p.X.Max = -0.6, float64(len(groups))-0.4
	span := hi - lo
	p.Y.Min, p.Y.Max = lo-0.05*span, hi+0.08*span*float64(len(series)+1)
	p.NominalX(groups...)
	// Ticks stop at the data: the headroom above is the legend's.
	p.Y.Tick.Marker = cappedTicks{step: 0.2, max: max(yMax, hi)}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(4)
	return p, nil
}

// ToplinesIntervalFigure draws the three main shares per type with their
// intervals.
func ToplinesIntervalFigure(t *toplines.Toplines) (*plot.Plot, error) {
	groups := allTypes()
	var series []IntervalSeries
	for _, m := range []struct {
		name string
		get  func(*toplines.TypeToplines) (*float64, *analysis.CI)
	}{
		{"implicature recognition", func(x *toplines.TypeToplines) (*float64, *analysis.CI) {
			return x.ImplicatureRecognition, x.ImplicatureRecognitionCI
		}},
		{"cancellation recognition", func(x *toplines.TypeToplines) (*float64, *analysis.CI) {
			return x.CancellationRecognition, x.CancellationRecognitionCI
		}},
		{"belief update", func(x *toplines.TypeToplines) (*float64, *analysis.CI) { return x.BeliefUpdate, x.BeliefUpdateCI }},
	} {
		s := IntervalSeries{Name: m.name}
		for _, g := range groups {
			v, ci := m.get(t.ByType[g])
			s.Values, s.CIs = append(s.Values, v), append(s.CIs, ci)
		}
		series = append(series, s)
	}
	return IntervalPlot("Human toplines per item type (95 % intervals)", "share of items", groups, series, 0, 1)
}

// AgreementFigures are the expert study's figures: κ and α per item type
// with intervals, and one confusion heat map per pair and question.
func AgreementFigures(a *agreement.Agreement) ([]Figure, error) {
	var figs []Figure
	for _, q := range []struct{ name, label string }{{"plausibility", "Plausibility"}, {"cancellation", "Cancellation correctness"}} {
		kappa := IntervalSeries{Name: "Cohen's κ"}
		if len(a.Annotators) > 2 {
			kappa.Name = "Light's κ"
		}
		alpha := IntervalSeries{Name: "Krippendorff's α"}
		for _, t := range a.TypeOrder {
			g := a.ByType[t].Plausibility
			if q.name == "cancellation" {
				g = a.ByType[t].Cancellation
			}
			kappa.Values, kappa.CIs = append(kappa.Values, g.LightsKappa), append(kappa.CIs, g.LightsKappaCI)
			alpha.Values, alpha.CIs = append(alpha.Values, g.KrippendorffAlpha), append(alpha.CIs, g.KrippendorffAlphaCI)
		}
		p, err := IntervalPlot(q.label+": agreement per item type (95 % intervals)", "coefficient", a.TypeOrder, []IntervalSeries{kappa, alpha}, -0.2, 1)
		if err != nil {
			return nil, err
		}
		figs = append(figs, Figure{Name: "agreement_" + q.name + "_by_type", Title: p.Title.Text, Plot: p})
	}
	for _, pr := range a.Pairs {
		for _, q := range []struct {
			name, label string
			b           agreement.Binary
		}{{"plausibility", "Plausibility", pr.Plausibility}, {"cancellation", "Cancellation correctness", pr.Cancellation}} {
			p, err := ConfusionHeatMap(fmt.Sprintf("%s: %s × %s", q.label, pr.A, pr.B), pr.A, pr.B, q.b.Confusion)
			if err != nil {
				return nil, err
			}
			figs = append(figs, Figure{Name: "confusion_" + q.name + "_" + safeName(pr.A) + "_" + safeName(pr.B), Title: p.Title.Text, Plot: p})
		}
	}
	models, err := AnnotatorFigures(a)
	if err != nil {
		return nil, err
	}
	return append(figs, models...), nil
}

// safeName keeps letters, digits, '-' and '_' of an id for a file name.
func safeName(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			out = append(out, r)
		} else {
			out = append(out, '_')
		}
	}
	return string(out)
}

// heatCell is one square of a confusion heat map.
type heatCell struct {
	x, y  float64
	count int
	max   int
}

func (h heatCell) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1 := trX(h.x-0.5), trX(h.x+0.5)
	y0, y1 := trY(h.y-0.5), trY(h.y+0.5)
	shade := 1.0
	if h.max > 0 {
		shade = 1 - 0.75*float64(h.count)/float64(h.max)
	}
	fill := color.NRGBA{R: uint8(255 * shade), G: uint8(255 * (0.35 + 0.65*shade)), B: 255, A: 255}
	c.FillPolygon(fill, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	sty := p.Legend.TextStyle
	sty.Font.Size = vg.Points(16)
	sty.XAlign, sty.YAlign = -0.5, -0.5
	if shade < 0.5 {
		sty.Color = color.White
	}
	c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, fmt.Sprint(h.count))
}

// ConfusionHeatMap draws a 2×2 confusion matrix as shaded squares with the
// counts written in (a zero cell is white with "0" in it).
func ConfusionHeatMap(title, a, b string, m [2][2]int) (*plot.Plot, error) {
	p := newPlot(title, b+"'s answer", a+"'s answer")
	most := 0
	for i := range 2 {
		for k := range 2 {
			most = max(most, m[i][k])
		}
	}
	for i := range 2 {
		for k := range 2 {
			// Rows (A's answer) top to bottom: yes on top.
			p.Add(heatCell{x: float64(k), y: float64(1 - i), count: m[i][k], max: most})
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.5, 1.5, -0.5, 1.5
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "yes"}, {Value: 1, Label: "no"}})
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 1, Label: "yes"}, {Value: 0, Label: "no"}})
	return p, nil
}

// stepTicks labels the axis every step (0.2 for shares and coefficients)
// with no minor ticks, rather than gonum's default of labelling every
// other major tick.
type stepTicks float64

func (s stepTicks) Ticks(lo, hi float64) []plot.Tick {
	step := float64(s)
	var ts []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+1e-9; k++ {
		v := k * step
		if math.Abs(v) < 1e-9 {
			v = 0
		}
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 1, 64)})
	}
	return ts
}

// cappedTicks are stepTicks that stop at max, so the headroom left for a
// legend above the data carries no tick labels (a share axis ends at 1.0,
// not 1.2).
type cappedTicks struct{ step, max float64 }

func (t cappedTicks) Ticks(lo, hi float64) []plot.Tick {
	return stepTicks(t.step).Ticks(lo, min(hi, t.max+1e-9))
}
