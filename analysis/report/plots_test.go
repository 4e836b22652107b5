package report

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strings"
	"testing"
)

// writeFigures saves figures to $PLOT_DIR when set, to look at them.
func writeFigures(t *testing.T, figs []Figure) {
	dir := os.Getenv("PLOT_DIR")
	if dir == "" {
		return
	}
	for _, f := range figs {
		for _, format := range []string{"svg", "png"} {
			b, err := PlotBytes(f.Plot, format)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, f.Name+"."+format), b, 0o644)
		}
	}
}

func checkFigure(t *testing.T, f Figure, wantText ...string) {
	t.Helper()
	svg, err := PlotBytes(f.Plot, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("%s: not an SVG: %.80s", f.Name, svg)
	}
	for _, w := range wantText {
		if !bytes.Contains(svg, []byte(w)) {
			t.Errorf("%s: SVG lacks %q", f.Name, w)
		}
	}
	pngb, err := PlotBytes(f.Plot, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pngb))
	if err != nil || img.Bounds().Dx() < 300 {
		t.Errorf("%s: PNG %v, %v", f.Name, err, img)
	}
}

func TestToplinesFigures(t *testing.T) {
	rs := syntheticRatingsT(t, 20_000, 200, 7)
	top := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	figs, err := ToplinesFigures(top)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 10 {
		t.Fatalf("figures = %d, want histogram and scatter for all + 4 types", len(figs))
	}
	writeFigures(t, figs)
	for _, f := range figs {
		if strings.HasPrefix(f.Name, "scatter_") {
			checkFigure(t, f, "r = ", "n = ")
		} else {
			checkFigure(t, f, "without cancellation", "with cancellation")
		}
	}
}

func TestFiguresWithoutData(t *testing.T) {
	h, _ := HistogramPlot(nil, "natural")
	s, _ := ScatterPlot(nil, "natural", &toplines.TypeToplines{})
	checkFigure(t, Figure{Name: "empty histogram", Plot: h}, "no rated items")
	checkFigure(t, Figure{Name: "empty scatter", Plot: s}, "no item rated in both conditions")
}

func TestContextAndAccuracyFigures(t *testing.T) {
	one := func(v float64) *float64 { return &v }
	cs := &contextsurvey.ContextStats{CumulativeJudgements: []*float64{one(.75), one(.78), one(.8), one(.81), one(.88), one(.88)},
		CumulativeItems: []*float64{one(.7), one(.75), one(.8), one(.8), one(.85), one(.9)}}
	c := &contextsurvey.Context{Surveys: map[string]*contextsurvey.ContextStats{"1": cs}, Overall: cs, SurveyOrder: []string{"1"}}
	figs, err := ContextFigures(c)
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, figs[0], "survey 1", "overall")
	bars, err := AccuracyBars("Implicature recognition, humans vs models", "share of items", domain.TableTypes,
		ModelSeries{Values: []float64{1, .9, .91, .78}}, []ModelSeries{{Name: "gpt", Values: []float64{.95, .9, .8, .5}}, {Name: "llama", Values: []float64{.7, math.NaN(), .6, .4}}})
	if err != nil {
		t.Fatal(err)
	}
	f := Figure{Name: "accuracy_bars", Plot: bars}
	checkFigure(t, f, "humans", "llama", "natural")
	writeFigures(t, append(figs, f))
	if _, err := AccuracyBars("x", "y", domain.TableTypes, ModelSeries{Values: []float64{1}}, nil); err == nil {
		t.Error("mismatched values must be refused")
	}
}

func TestTableCSVAndJSON(t *testing.T) {
	half := 0.5
	tb := &Table{Columns: []string{"Name", "n", "Share", "p"}, Rows: [][]any{{`a "quoted", name`, 3, &half, PValue{nil}}}}
	var c, j bytes.Buffer
	if err := tb.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	if want := "Name,n,Share,p\n\"a \"\"quoted\"\", name\",3,0.5,\n"; c.String() != want {
		t.Errorf("CSV = %q, want %q", c.String(), want)
	}
	if err := tb.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\"Name\": \"a \\\"quoted\\\", name\", \"n\": 3, \"Share\": 0.5, \"p\": null}\n]\n"; j.String() != want {
		t.Errorf("JSON = %s, want %s", j.String(), want)
	}
}
