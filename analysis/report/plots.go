package report

import (
	"bytes"
	"fmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
	"image/color"
	"io"
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// Figure is a plot with the file name (without extension) it is saved under.
type Figure struct {
	Name  string
	Title string
	Plot  *plot.Plot
}

// Figure sizes: a journal column is about 3.5 in; 6 × 4 in reads well both
// in a browser and scaled into a paper.
const (
	figWidth  = 6 * vg.Inch
	figHeight = 4 * vg.Inch
)

// PlotFormats are the formats figures are written in: PDF and SVG for a
// paper, PNG at 2× (192 dpi) for slides and screens.
var PlotFormats = []string{"pdf", "svg", "png"}

// pngDPI is twice the 96 dpi of a screen, so a PNG stays sharp on a
// high-density display or scaled into a document.
const pngDPI = 192

// figMargin is left blank around every figure, so no axis label, legend
// or point at the edge of the data area is cut by the edge of the page.
const figMargin = 6 * vg.Millimeter / 2

// WritePlot renders p as "pdf", "svg" or "png" (at 2×) to w. PDFs embed
// the figures' TrueType fonts for Unicode (pdfCanvas), so κ, α and every
// other label survive as text.
func WritePlot(w io.Writer, p *plot.Plot, format string) error {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(pngDPI))}
	case "svg":
		c = vgsvg.New(figWidth, figHeight)
	case "pdf":
		c = newPDFCanvas(figWidth, figHeight)
	default:
		return fmt.Errorf("plot format %q: want pdf, svg or png", format)
	}
	dc := draw.New(c)
	trueMinus(p)
	p.Draw(draw.Crop(dc, figMargin, -figMargin, figMargin, -figMargin))
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("render %s: %w", format, err)
	}
	return nil
}

// PlotBytes renders p as "pdf", "svg" or "png".
func PlotBytes(p *plot.Plot, format string) ([]byte, error) {
	var b bytes.Buffer
	if err := WritePlot(&b, p, format); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var (
	colorTrigger = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	colorCancel  = color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	palette      = []color.Color{
		color.NRGBA{R: 0x33, G: 0x33, B: 0x33, A: 0xff}, // human: dark grey
		colorTrigger, colorCancel,
		color.NRGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.NRGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		color.NRGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.NRGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
		color.NRGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	}
)

func withAlpha(c color.NRGBA, a uint8) color.NRGBA { c.A = a; return c }

// cornerText writes lines of text in the top-left corner of the data area
// (used for r and p, and for "no data").
type cornerText struct{ lines []string }

func (ct cornerText) Plot(c draw.Canvas, p *plot.Plot) {
	sty := p.Legend.TextStyle
	sty.XAlign, sty.YAlign = text.XLeft, text.YTop
	pad := vg.Points(6)
	y := c.Max.Y - pad
	for _, l := range ct.lines {
		c.FillText(sty, vg.Point{X: c.Min.X + pad, Y: y}, l)
		y -= sty.Height(l) * 1.2
	}
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = font.Length(9)
	// Sans-serif throughout, as journals' figure guidelines ask.
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = "Sans"
	}
	return p
}

// typeLabel names a type (or all items) in titles.
func typeLabel(typ string) string {
	if typ == domain.TypeAll {
		return "all items"
	}
	return typ + " items"
}

func meansOf(items []toplines.ItemMeans, typ string, c toplines.Condition) []float64 {
	var out []float64
	for i := range items {
		if (typ == domain.TypeAll || items[i].Type == typ) && items[i].Has(c) {
			out = append(out, items[i].MeanZ[c])
		}
	}
	return out
}

// HistogramPlot draws the distribution of items' mean z without (trigger)
// and with cancellation, overlaid on shared bins of width 0.25.
func HistogramPlot(items []toplines.ItemMeans, typ string) (*plot.Plot, error) {
	p := newPlot("Mean z per item, "+typeLabel(typ), "mean z-score", "items")
	trig, canc := meansOf(items, typ, toplines.Trigger), meansOf(items, typ, toplines.Cancel)
	if len(trig)+len(canc) == 0 {
		p.Add(cornerText{[]string{"no rated items"}})
		return p, nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range append(append([]float64{}, trig...), canc...) {
		lo, hi = min(lo, v), max(hi, v)
	}
	const w = 0.25
	lo, hi = math.Floor(lo/w)*w, math.Floor(hi/w)*w+w
	for _, s := range []struct {
		vals  []float64
		label string
		col   color.NRGBA
	}{
		{trig, fmt.Sprintf("without cancellation (n = %d)", len(trig)), colorTrigger},
		{canc, fmt.Sprintf("with cancellation (n = %d)", len(canc)), colorCancel},
	} {
		h := &plotter.Histogram{Width: w, FillColor: withAlpha(s.col, 0x80), LineStyle: plotter.DefaultLineStyle}
		h.LineStyle.Color = s.col
		for x := lo; x < hi-w/2; x += w {
			h.Bins = append(h.Bins, plotter.HistogramBin{Min: x, Max: x + w})
		}
		for _, v := range s.vals {
			k := min(int((v-lo)/w), len(h.Bins)-1)
			h.Bins[k].Weight++
		}
		p.Add(h)
		p.Legend.Add(s.label, h)
	}
	// Headroom so the legend in the top corner does not cover the bars,
	// and half a bin either side so the first and last bins stand clear
	// of the frame.
	p.Y.Max *= 1.4
	p.X.Min, p.X.Max = lo-w/2, hi+w/2
	return p, nil
}

// ScatterPlot draws each item's mean z without cancellation (x) against
// with cancellation (y), the diagonal y = x, and r and p in the corner.
func ScatterPlot(items []toplines.ItemMeans, typ string, tt *toplines.TypeToplines) (*plot.Plot, error) {
	p := newPlot("Mean z with vs without cancellation, "+typeLabel(typ), "mean z without cancellation", "mean z with cancellation")
	var xys plotter.XYs
	for i := range items {
		m := &items[i]
		if (typ == domain.TypeAll || m.Type == typ) && m.Has(toplines.Trigger) && m.Has(toplines.Cancel) {
			xys = append(xys, plotter.XY{X: m.MeanZ[toplines.Trigger], Y: m.MeanZ[toplines.Cancel]})
		}
	}
	if len(xys) == 0 {
		p.Add(cornerText{[]string{"no item rated in both conditions"}})
		return p, nil
	}
	diag := plotter.NewFunction(func(x float64) float64 { return x })
	diag.Color = color.Gray{Y: 0x99}
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color = colorTrigger
	sc.GlyphStyle.Radius = vg.Points(2.5)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	p.Add(diag, sc)
	// A margin around the points so none is cut by the frame, and room at
	// the top for the r and p in the corner.
	dx, dy := 0.06*max(p.X.Max-p.X.Min, 0.5), 0.06*max(p.Y.Max-p.Y.Min, 0.5)
	p.X.Min, p.X.Max = p.X.Min-dx, p.X.Max+dx
	p.Y.Min, p.Y.Max = p.Y.Min-dy, p.Y.Max+3*dy
	// Ticks every 0.5 (every 1 on a wide axis), so 0 and 1 are marked.
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		step := 0.5
		if ax.Max-ax.Min > 6 {
			step = 1
		}
		ax.Tick.Marker = stepTicks(step)
	}
	corner := []string{PearsonLabel(tt.PearsonR, tt.PearsonP, tt.PearsonN)}
	switch {
	case tt.PearsonRDisattenuated != nil:
		corner = append(corner, "corrected for attenuation: r = "+analysis.Fixed(*tt.PearsonRDisattenuated, 2))
	case tt.PearsonRDisattenuatedNA != "":
		corner = append(corner, "corrected r: n/a")
	}
	p.Add(cornerText{corner})
	return p, nil
}

// PearsonLabel formats r and p the way papers write them, e.g.
// "r = 0.63, p < 0.001, n = 50".
func PearsonLabel(r, p *float64, n int) string {
	if r == nil || p == nil {
		return fmt.Sprintf("r undefined, n = %d", n)
	}
	return fmt.Sprintf("r = %.2f, %s, n = %d", *r, FormatP(*p), n)
}

// FormatP formats a p-value: "p < 0.001" below 0.001, else "p = 0.012".
func FormatP(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", p)
}

// ContextCurvePlot draws the cumulative share of judgements per survey and
// overall (and of items overall, by majority) against added sentences.
func ContextCurvePlot(c *contextsurvey.Context) (*plot.Plot, error) {
	p := newPlot("Content understandable with at most k added sentences", "k (added preceding sentences)", "cumulative share")
	// A little beyond [0, 1] so points at 0 or 1 are not cut by the frame.
	p.Y.Min, p.Y.Max = -0.02, 1.02
	p.Legend.Top, p.Legend.Left = false, false
	for i, s := range c.SurveyOrder {
		if err := addCurve(p, "survey "+s+" (judgements)", c.Surveys[s].CumulativeJudgements, palette[1+i%(len(palette)-1)], vg.Points(1), true); err != nil {
			return nil, err
		}
	}
	if err := addCurve(p, "overall (judgements)", c.Overall.CumulativeJudgements, palette[0], vg.Points(2), false); err != nil {
		return nil, err
	}
	if err := addCurveCIs(p, c.Overall); err != nil {
		return nil, err
	}
	if err := addCurve(p, "overall (items, by majority)", c.Overall.CumulativeItems, palette[0], vg.Points(1), true); err != nil {
		return nil, err
	}
	p.NominalX("0", "1", "2", "3", "4", "5")
	// Room on both sides so the k = 0 and k = 5 points and their error
	// bars are not cut by the frame.
	p.X.Min, p.X.Max = -0.25, 5.25
	return p, nil
}

// addCurve adds a cumulative curve, its missing values skipped, with its
// legend entry; a curve with no value adds nothing.
func addCurve(p *plot.Plot, label string, vals []*float64, col color.Color, width vg.Length, dashed bool) error {
	var xys plotter.XYs
	for k, v := range vals {
		if v != nil {
			xys = append(xys, plotter.XY{X: float64(k), Y: *v})
		}
	}
	if len(xys) == 0 {
		return nil
	}
	l, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width, pts.Color = col, width, col
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l, pts)
	p.Legend.Add(label, l, pts)
	return nil
}

// addCurveCIs draws the overall curve's 95 % intervals as error bars.
func addCurveCIs(p *plot.Plot, s *contextsurvey.ContextStats) error {
	var eb errPoints
	for k, v := range s.CumulativeJudgements {
		if k >= len(s.CumulativeJudgementsCI) {
			break
		}
		if ci := s.CumulativeJudgementsCI[k]; v != nil && ci != nil {
			eb.xy = append(eb.xy, plotter.XY{X: float64(k), Y: *v})
			eb.err = append(eb.err, struct{ Low, High float64 }{*v - ci[0], ci[1] - *v})
		}
	}
	if len(eb.xy) == 0 {
		return nil
	}
	bars, err := plotter.NewYErrorBars(eb)
	if err != nil {
		return err
	}
	bars.LineStyle.Color, bars.CapWidth = palette[0], vg.Points(5)
	p.Add(bars)
	return nil
}

// ModelSeries is one series' value per type, in the order of the types
// given to AccuracyBars; NaN marks a missing value (no bar, "n/a"). CIs,
// when given, are the values' 95 % intervals (nil: none), drawn as error
// bars.
type ModelSeries struct {
	Name   string
	Values []float64
	CIs    []*analysis.CI
}

// humanBarColor is the humans' bars: a mid grey, so black error bars show
// on it.
var humanBarColor = color.NRGBA{R: 0x8c, G: 0x8c, B: 0x8c, A: 0xff}

// AccuracyBars draws grouped bars: per type, the humans' value then one bar
// per model, each with its 95 % interval as an error bar when it has one —
// the "model vs human" figure of the scoring pages. Values are shares in
// [0,1] (e.g. implicature recognition).
func AccuracyBars(title, measure string, types []string, human ModelSeries, models []ModelSeries) (*plot.Plot, error) {
	if human.Name == "" {
		human.Name = "humans"
	}
	series := append([]ModelSeries{human}, models...)
	for _, s := range series {
		if len(s.Values) != len(types) || (s.CIs != nil && len(s.CIs) != len(types)) {
			return nil, fmt.Errorf("accuracy bars: %s has %d values and %d intervals for %d types", s.Name, len(s.Values), len(s.CIs), len(types))
		}
	}
	p := newPlot(title, "", measure)
	// Headroom above 1, a line of the legend per series, keeps the legend
	// clear of full-height bars and their intervals; ticks stop at 1.
	p.Y.Min, p.Y.Max = 0, 1.06+0.065*float64(len(series))
	p.Y.Tick.Marker = cappedTicks{step: 0.2, max: 1}
	gb := groupedBars{series: series}
	for i := range series {
		col := palette[i%len(palette)]
		if i == 0 {
			col = humanBarColor
		}
		gb.colors = append(gb.colors, col)
	}
	p.Add(gb)
	for i, s := range series {
		p.Legend.Add(s.Name, swatch{gb.colors[i]})
	}
	p.NominalX(types...)
	// Room on both sides so the outer bars are not cut by the frame.
	p.X.Min, p.X.Max = -0.5, float64(len(types))-0.5
	return p, nil
}

// groupedBars draws, per group k at x = k, one bar per series side by side
// within 0.8 of the group, with error bars, "0" on a zero bar and one
// "n/a" under each run of adjacent missing bars.
type groupedBars struct {
	series []ModelSeries
	colors []color.Color
}

const groupWidth = 0.8

func (g groupedBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	bw := groupWidth / float64(len(g.series))
	sty := p.Legend.TextStyle
	sty.Font.Size = vg.Points(7)
	sty.XAlign, sty.YAlign = text.XCenter, text.YBottom
	sty.Color = color.Gray{Y: 0x55}
	line := draw.LineStyle{Color: color.Black, Width: vg.Points(0.9)}
	base := trY(0)
	for k := range g.series[0].Values {
		left := float64(k) - groupWidth/2
		runStart := -1
		flush := func(end int) { // series runStart..end-1 are missing
			if runStart < 0 {
				return
			}
			mid := left + bw*float64(runStart+end)/2
			c.FillText(sty, vg.Point{X: trX(mid), Y: base + vg.Points(2)}, "n/a")
			runStart = -1
		}
		for i, s := range g.series {
			v := s.Values[k]
			if math.IsNaN(v) {
				if runStart < 0 {
					runStart = i
				}
				continue
			}
			flush(i)
			x0, x1 := trX(left+bw*float64(i)), trX(left+bw*float64(i+1))
			y := trY(v)
			c.FillPolygon(g.colors[i], []vg.Point{{X: x0, Y: base}, {X: x1, Y: base}, {X: x1, Y: y}, {X: x0, Y: y}})
			zeroAt := base
			if s.CIs != nil && s.CIs[k] != nil {
				xm, cap := (x0+x1)/2, min((x1-x0)*0.3, vg.Points(4))
				lo, hi := trY(s.CIs[k][0]), trY(s.CIs[k][1])
				c.StrokeLine2(line, xm, lo, xm, hi)
				c.StrokeLine2(line, xm-cap, lo, xm+cap, lo)
				c.StrokeLine2(line, xm-cap, hi, xm+cap, hi)
				zeroAt = hi
			}
			// A zero bar is written "0", above its interval if it has one,
			// so it reads neither as missing nor as nothing drawn.
			if v == 0 {
				c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: zeroAt + vg.Points(2)}, "0")
			}
		}
		flush(len(g.series))
	}
}

// swatch is a legend entry: a filled square of a bar's colour.
type swatch struct{ col color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.col, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}

// ToplinesFigures are the toplines figures: histograms and scatter plots
// for all items and for each type that has items.
func ToplinesFigures(t *toplines.Toplines) ([]Figure, error) {
	var figs []Figure
	for _, typ := range append([]string{domain.TypeAll}, domain.TableTypes...) {
		if t.ByType[typ].Items == 0 {
			continue
		}
		h, err := HistogramPlot(t.Items, typ)
		if err != nil {
			return nil, err
		}
		s, err := ScatterPlot(t.Items, typ, t.ByType[typ])
		if err != nil {
			return nil, err
		}
		figs = append(figs,
			Figure{Name: "histogram_" + typ, Title: h.Title.Text, Plot: h},
			Figure{Name: "scatter_" + typ, Title: s.Title.Text, Plot: s})
	}
	return figs, nil
}

// ContextFigures is the context cumulative curve.
func ContextFigures(c *contextsurvey.Context) ([]Figure, error) {
	p, err := ContextCurvePlot(c)
	if err != nil {
		return nil, err
	}
	return []Figure{{Name: "context_cumulative", Title: p.Title.Text, Plot: p}}, nil
}

// ToplinesFiguresWithIntervals are the shares per type with their
// intervals (when a bootstrap ran), then ToplinesFigures.
func ToplinesFiguresWithIntervals(t *toplines.Toplines) ([]Figure, error) {
	var figs []Figure
	if t.Bootstrap != nil {
		p, err := ToplinesIntervalFigure(t)
		if err != nil {
			return nil, err
		}
		figs = append(figs, Figure{Name: "toplines_intervals", Title: p.Title.Text, Plot: p})
	}
	rest, err := ToplinesFigures(t)
	return append(figs, rest...), err
}
