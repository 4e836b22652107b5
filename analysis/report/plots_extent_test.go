package report

import (
	"bytes"
	"fmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/conditions"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/toplines"
	"strings"
	"testing"
)

// extremeFigures are every figure function drawn on crafted data with the
// extremes that used to be cut: a value in the last histogram bin, the
// k = 5 point of the context curve with a legend of several surveys, full
// bars with long model names and intervals, missing values side by side,
// κ and α in legends, long annotator names in heat maps, explanation
// shares of 0 and 1.
func extremeFigures(t *testing.T) []Figure {
	t.Helper()
	var figs []Figure
	add := func(fs []Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, fs...)
	}
	one := func(p *plot.Plot, err error) ([]Figure, error) {
		if err != nil {
			return nil, err
		}
		return []Figure{{Name: safeName(p.Title.Text), Title: p.Title.Text, Plot: p}}, nil
	}

	// Toplines: the largest mean z lands exactly on a bin edge, so it is
	// the only value of the last bin.
	items := []toplines.ItemMeans{}
	for i := range 40 {
		z := -1.5 + 3.5*float64(i)/39 // −1.5 … 2.0
		m := toplines.ItemMeans{ID: fmt.Sprint(i), Type: "scalar"}
		m.MeanZ[toplines.Trigger], m.N[toplines.Trigger] = z, 3
		m.MeanZ[toplines.Cancel], m.N[toplines.Cancel] = -z/2, 3
		items = append(items, m)
	}
	tt := toplines.TypeToplinesOf(items, "scalar")
	add(one(HistogramPlot(items, "scalar")))
	add(one(ScatterPlot(items, "scalar", tt)))
	rs := syntheticRatingsT(t, 3000, 40, 5)
	opt := toplines.DefaultOptions()
	opt.Bootstrap.Replicates = 200
	add(one(ToplinesIntervalFigure(toplines.ComputeToplines(rs, opt))))

	// Context: three surveys and the overall curve, the k = 5 point at 1.
	v := func(x float64) *float64 { return &x }
	curve := func(a float64) *contextsurvey.ContextStats {
		cs := &contextsurvey.ContextStats{}
		for k := range 6 {
			y := min(1, a+float64(k)*(1-a)/5)
			cs.CumulativeJudgements = append(cs.CumulativeJudgements, v(y))
			cs.CumulativeItems = append(cs.CumulativeItems, v(min(1, y+0.02)))
			cs.CumulativeJudgementsCI = append(cs.CumulativeJudgementsCI, &analysis.CI{max(0, y-0.08), min(1, y+0.03)})
		}
		return cs
	}
	ctx := &contextsurvey.Context{Surveys: map[string]*contextsurvey.ContextStats{"pilot-2024-spring": curve(0.4), "main-2024-autumn": curve(0.6), "replication": curve(0.2)},
		Overall: curve(0.45), SurveyOrder: []string{"pilot-2024-spring", "main-2024-autumn", "replication"}}
	add(ContextFigures(ctx))

	// Model-vs-human bars: full bars, a zero, missing values side by side,
	// long model names.
	nan := math.NaN()
	ci := func(lo, hi float64) *analysis.CI { return &analysis.CI{lo, hi} }
	add(one(AccuracyBars("Implicature recognition: models and humans (95 % intervals)", "Implicature recognition", []string{"scalar", "discourse", "synthetic", "natural", "all"},
		ModelSeries{Name: "humans", Values: []float64{1, 0.9, nan, 0.7, 0.88}, CIs: []*analysis.CI{ci(0.8, 1), ci(0.7, 0.97), nil, ci(0.5, 0.85), ci(0.8, 0.93)}},
		[]ModelSeries{
			{Name: "meta-llama/Llama-3.1-70B-Instruct (κ-tuned)", Values: []float64{1, 0, nan, 0.5, 0.6}, CIs: []*analysis.CI{ci(0.72, 1), ci(0, 0.28), nil, ci(0.3, 0.7), ci(0.5, 0.7)}},
			{Name: "gpt-4o-2024-08-06", Values: []float64{0.95, 0.5, nan, nan, 0.7}, CIs: []*analysis.CI{ci(0.8, 0.99), ci(0.2, 0.8), nil, nil, ci(0.6, 0.8)}},
		})))

	// Agreement: κ and α per type, one type with both undefined, long
	// annotator names in the heat maps.
	var js []agreement.Judgement
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		typ := []string{"scalar", "discourse", "natural"}[i%3]
		truth := r.IntN(4) > 0
		for _, a := range []string{"annotator-with-a-long-name", "b"} {
			p := truth
			if r.IntN(6) == 0 {
				p = !p
			}
			if typ == "natural" {
				p = true // no variation: κ and α undefined
			}
			js = append(js, agreement.Judgement{Annotator: a, Item: fmt.Sprint(i), Type: typ, Plausible: p, HasCancellation: true, CancellationCorrect: p != (i%5 == 0)})
		}
	}
	add(AgreementFigures(agreement.ComputeAgreementWith(js, analysis.Bootstrap{Replicates: 200, Seed: 1})))

	// Explanations: two kinds, three strategies, shares of 0 and 1, two
	// models.
	var ers []modelhuman.ExplanationRating
	for i := range 90 {
		kind := []string{"presupposition", "implicature"}[i%2]
		st := []string{"zero-shot", "few-shot", "chain-of-thought"}[i%3]
		j := i % 5
		if st == "chain-of-thought" {
			j = 0 // every chain-of-thought explanation totally correct
		}
		if st == "zero-shot" && kind == "implicature" {
			j = 3 // none acceptable
		}
		ers = append(ers, modelhuman.ExplanationRating{Annotator: "e1", Item: fmt.Sprint(i), Kind: kind, Strategy: st, Model: []string{"model-a", "model-b"}[i%2/1*0+(i/2)%2], Judgment: j})
	}
	add(ExplanationFigures(modelhuman.ComputeExplanations(ers)))

	// Judgement by condition: an 11-point scale, long condition names, a
	// condition at the ceiling (every rating 11) beside one at the floor.
	var cr strings.Builder
	cr.WriteString("participant_id,item_id,condition,rating,check\n")
	for p := range 6 {
		for i := range 6 {
			cond, v := "völlig natürlicher Zielsatz", 11
			switch (p + i) % 3 {
			case 1:
				cond, v = "kontrolle mit langem Namen", 1+(p*i)%3
			case 2:
				cond, v = "mitte", 1+(p+i)%11
			}
			fmt.Fprintf(&cr, "p%d,i%d,%s,%d,\n", p, i, cond, v)
		}
	}
	crs, err := conditions.ReadRatings(strings.NewReader(cr.String()), conditions.ReadOptions{ScalePoints: 11})
	if err != nil {
		t.Fatal(err)
	}
	cres, err := conditions.Compute(crs, conditions.Options{HighPass: 5, LowPass: 3, MaxFailed: 3})
	if err != nil {
		t.Fatal(err)
	}
	add(ConditionsFigures(cres))
	return figs
}

// TestFiguresStayOnTheCanvas renders every figure to PNG and checks that
// nothing is cut: the outermost pixels of the canvas are background (a
// legend, label or bar running off the edge would paint them), and every
// figure's data lie inside its data area with room for their glyphs (the
// k = 5 point, the last histogram bin, the outer bars).
func TestFiguresStayOnTheCanvas(t *testing.T) {
	figs := extremeFigures(t)
	if len(figs) < 12 {
		t.Fatalf("%d figures", len(figs))
	}
	dir := os.Getenv("PLOT_DIR")
	for _, f := range figs {
		b, err := PlotBytes(f.Plot, "png")
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if x, y, ok := paintedBorder(img, 2); ok {
			t.Errorf("%s: drawn at the canvas edge (%d, %d): something runs off it", f.Name, x, y)
		}
		if dir != "" {
			for _, format := range PlotFormats {
				out, err := PlotBytes(f.Plot, format)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(dir, f.Name+"."+format), out, 0o644)
			}
		}
	}
}

// paintedBorder finds a non-white pixel within width pixels of the edge.
func paintedBorder(img image.Image, width int) (int, int, bool) {
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if x >= bd.Min.X+width && x < bd.Max.X-width && y >= bd.Min.Y+width && y < bd.Max.Y-width {
				x = bd.Max.X - width - 1
				continue
			}
			r, g, b, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || b < 0xf000 {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

// dataArea is the plot's data rectangle as WritePlot lays it out.
func dataArea(p *plot.Plot) (draw.Canvas, func(float64) vg.Length, func(float64) vg.Length) {
	c := vgimg.New(figWidth, figHeight)
	dc := p.DataCanvas(draw.Crop(draw.New(c), figMargin, -figMargin, figMargin, -figMargin))
	trX, trY := p.Transforms(&dc)
	return dc, trX, trY
}

// TestFiguresKeepTheirDataInside checks, on the extreme figures, that the
// outermost data stand inside the data area with room for a glyph (3 pt)
// and that the legend sits above the data it could cover.
func TestFiguresKeepTheirDataInside(t *testing.T) {
	byName := map[string]*plot.Plot{}
	for _, f := range extremeFigures(t) {
		byName[f.Name] = f.Plot
	}
	room := vg.Points(3)
	inside := func(name string, xs, ys []float64) {
		t.Helper()
		p := byName[name]
		if p == nil {
			t.Fatalf("no figure %s", name)
		}
		dc, trX, trY := dataArea(p)
		for _, x := range xs {
			for _, y := range ys {
				pt := vg.Point{X: trX(x), Y: trY(y)}
				if pt.X-room < dc.Min.X || pt.X+room > dc.Max.X || pt.Y-room < dc.Min.Y-room || pt.Y+room > dc.Max.Y {
					t.Errorf("%s: (%g, %g) at %v is cut by the data area %v", name, x, y, pt, dc.Rectangle)
				}
			}
		}
	}
	legendAbove := func(name string, top float64) {
		t.Helper()
		p := byName[name]
		dc, _, trY := dataArea(p)
		if r := p.Legend.Rectangle(dc); r.Min.Y < trY(top) {
			t.Errorf("%s: the legend reaches down to %v, below the data's top %g at %v", name, r.Min.Y, top, trY(top))
		}
	}
	// The k = 5 point (and k = 0) of the context curve, at 0 and 1.
	inside("context_cumulative", []float64{0, 5}, []float64{0, 1})
	// The last histogram bin ends at 2.25; the first starts at −1.5.
	inside("Mean_z_per_item__scalar_items", []float64{-1.5, 2.25}, []float64{0})
	// The outer bars of the five groups, full height, and their legend.
	bars := "Implicature_recognition__models_and_humans__95___intervals_"
	inside(bars, []float64{-groupWidth / 2, 4 + groupWidth/2}, []float64{0, 1})
	legendAbove(bars, 1)
	// Interval plots: their legends clear the highest interval.
	legendAbove("explanations_acceptable", 1)
	legendAbove("agreement_plausibility_by_type", 1)
	legendAbove("Human_toplines_per_item_type__95___intervals_", 1)
}

// TestPDFKeepsGreekLetters: κ and α in a PDF figure are text in an
// embedded Unicode font (not code page 1252, which turned them into
// "Îº" and "Î±"); with pdftotext installed, it reads them back.
func TestPDFKeepsGreekLetters(t *testing.T) {
	var fig Figure
	for _, f := range extremeFigures(t) {
		if f.Name == "agreement_plausibility_by_type" {
			fig = f
		}
	}
	b, err := PlotBytes(fig.Plot, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"%PDF-", "/Identity-H", "/FontFile2", "/ToUnicode"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("PDF lacks %s", want)
		}
	}
	if bytes.Contains(b, []byte("WinAnsiEncoding")) {
		t.Error("PDF text is still encoded in code page 1252")
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed: the text is not read back")
	}
	path := filepath.Join(t.TempDir(), "fig.pdf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Cohen's κ", "Krippendorff's α", "n/a", "Plausibility: agreement per item type (95 % intervals)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("pdftotext lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "Î") || strings.Contains(string(out), "n/an/a") {
		t.Errorf("garbled text:\n%s", out)
	}
}

// TestMissingWrittenOnce: side-by-side missing values are written as one
// "n/a" under the run, never "n/an/a": the agreement figure's natural
// items (κ and α undefined) have one, the bars' synthetic group (all
// three missing) one and natural (one model missing) one.
func TestMissingWrittenOnce(t *testing.T) {
	want := map[string]int{"agreement_plausibility_by_type": 1, "Implicature_recognition__models_and_humans__95___intervals_": 2}
	for _, f := range extremeFigures(t) {
		n, ok := want[f.Name]
		if !ok {
			continue
		}
		svg, err := PlotBytes(f.Plot, "svg")
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(svg, []byte(">n/a<")); got != n {
			t.Errorf("%s: %d \"n/a\", want %d", f.Name, got, n)
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		t.Errorf("figures not drawn: %v", want)
	}
}

// TestPDFCanvasImagesAndEmptyFigures: an image drawn into a PDF figure is
// embedded, and an explanation study with no rating has no figure rather
// than a broken one.
func TestPDFCanvasImagesAndEmptyFigures(t *testing.T) {
	c := newPDFCanvas(figWidth, figHeight)
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	c.DrawImage(vg.Rectangle{Min: vg.Point{X: 10, Y: 10}, Max: vg.Point{X: 50, Y: 30}}, img)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("/Subtype /Image")) || !bytes.Contains(b.Bytes(), []byte("/Width 4")) {
		t.Errorf("the image is not in the PDF (%d bytes)", b.Len())
	}
	figs, err := ExplanationFigures(modelhuman.ComputeExplanations(nil))
	if err != nil || len(figs) != 0 {
		t.Errorf("no ratings: %d figures, %v", len(figs), err)
	}
}
