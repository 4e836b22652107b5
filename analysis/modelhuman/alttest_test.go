package modelhuman

import (
	"errors"
	"math"
	"pragmalab/analysis"
	"strings"
	"testing"
)

func altRows(t *testing.T, read func(r interface{ Read([]byte) (int, error) }) ([]AltLabel, error), csv string) []AltLabel {
	t.Helper()
	rows, err := read(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func readH(r interface{ Read([]byte) (int, error) }) ([]AltLabel, error) { return ReadAltHumans(r) }
func readM(r interface{ Read([]byte) (int, error) }) ([]AltLabel, error) { return ReadAltModels(r) }

// tCDF3 is Student's t CDF with 3 degrees of freedom in closed form:
// 1/2 + (θ + sin θ cos θ)/π with θ = atan(t/√3).
func tCDF3(t float64) float64 {
	th := math.Atan(t / math.Sqrt(3))
	return 0.5 + (th+math.Sin(th)*math.Cos(th))/math.Pi
}

// tCDF1 is the Cauchy CDF (one degree of freedom).
func tCDF1(t float64) float64 { return 0.5 + math.Atan(t)/math.Pi }

func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestAltTestAccuracyByHand checks the leave-one-out scores, ties, W_h/W_m,
// the t-test, ρ and ω on a case worked out by hand, with a human who has
// too few items left out.
func TestAltTestAccuracyByHand(t *testing.T) {
	// i1: A=x B=x C=y, model x; i2: A=x B=y C=y, model y;
	// i3: everyone y, model y (D only here); i4: all x, model y.
	humans := altRows(t, readH, "annotator,item_id,label\n"+
		"A,i1,x\nB,i1,x\nC,i1,y\n"+
		"A,i2,x\nB,i2,y\nC,i2,y\n"+
		"A,i3,y\nB,i3,y\nC,i3,y\nD,i3,y\n"+
		"A,i4,x\nB,i4,x\nC,i4,x\n")
	models := altRows(t, readM, "model,item_id,label\nm,i1,x\nm,i2,y\nm,i3,y\nm,i4,y\n")
	opt := AltTestOptions{Scoring: AltAccuracy, Epsilon: 0.2, Q: 0.05, MinItems: 2, MinHumans: 2}
	res, err := ComputeAltTest(humans, models, opt)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Models["m"]
	// By hand: d_A = [0, −1, 0, 1], d_B = [0, 0, 0, 1], d_C = [−1, 0, 0, 1].
	// A and C: mean 0, SD √(2/3), t = −0.2/(√(2/3)/2); B: mean 0.25, SD 0.5, t = 0.2.
	tAC := -0.2 / (math.Sqrt(2.0/3) / 2)
	want := map[string]float64{"A": tCDF3(tAC), "B": tCDF3(0.2), "C": tCDF3(tAC)}
	if m.Humans != 3 || m.Items != 4 || len(m.PerHuman) != 3 {
		t.Fatalf("humans %d items %d per-human %d, want 3, 4, 3", m.Humans, m.Items, len(m.PerHuman))
	}
	for _, h := range m.PerHuman {
		if !closeTo(h.PValue, want[h.Annotator]) || h.Items != 4 || h.Rejected {
			t.Errorf("%s: p %v items %d rejected %v, want p %v, 4 items, not rejected", h.Annotator, h.PValue, h.Items, h.Rejected, want[h.Annotator])
		}
		if !closeTo(h.RhoModel, 0.75) {
			t.Errorf("%s: mean W_m %v, want 0.75 (ties count for both)", h.Annotator, h.RhoModel)
		}
	}
	if len(m.Skipped) != 1 || m.Skipped[0] != (AltSkipped{"D", 1}) || !strings.Contains(strings.Join(res.Notes, "\n"), "fewer than 2 usable items: D (1)") {
		t.Errorf("skipped %v, notes %q; want D with 1 item, named in a note", m.Skipped, res.Notes)
	}
	if !closeTo(m.AdvantageProbability, 0.75) || m.WinningRate != 0 || m.Passed {
		t.Errorf("ρ %v ω %v passed %v, want 0.75, 0, false", m.AdvantageProbability, m.WinningRate, m.Passed)
	}
}

// TestAltTestNegRMSEByHand: −RMSE against the other humans, a zero-variance
// t-test (every d = −1: p = 0) and BY over three humans.
func TestAltTestNegRMSEByHand(t *testing.T) {
	humans := altRows(t, readH, "annotator,item_id,label\nA,i1,1\nB,i1,3\nC,i1,5\nA,i2,2\nB,i2,2\nC,i2,6\n")
	models := altRows(t, readM, "model,item_id,label\nm,i1,3\nm,i2,4\n")
	opt := AltTestOptions{Scoring: AltNegRMSE, Epsilon: 0.2, Q: 0.05, MinItems: 2, MinHumans: 2}
	res, err := ComputeAltTest(humans, models, opt)
	if err != nil {
		t.Fatal(err)
	}
	// A: i1 −√10 vs −√2, i2 −√8 vs −2: d = [−1, −1], p = 0.
	// B: i1 −2 vs −2 (tie), i2 −√8 vs −2: d = [0, −1], t = (−0.5 − 0.2)/0.5.
	// C: i1 −√10 vs −√2, i2 −4 vs −2: d = [−1, −1], p = 0.
	// BY, m = 3: thresholds k·0.05/(3·(1 + 1/2 + 1/3)); 0, 0 pass, 0.197 does not.
	m := res.Models["m"]
	want := map[string]struct {
		p   float64
		rej bool
	}{"A": {0, true}, "B": {tCDF1(-1.4), false}, "C": {0, true}}
	for _, h := range m.PerHuman {
		w := want[h.Annotator]
		if !closeTo(h.PValue, w.p) || h.Rejected != w.rej {
			t.Errorf("%s: p %v rejected %v, want %v %v", h.Annotator, h.PValue, h.Rejected, w.p, w.rej)
		}
	}
	if !closeTo(m.WinningRate, 2.0/3) || !m.Passed || !closeTo(m.AdvantageProbability, 1) {
		t.Errorf("ω %v passed %v ρ %v, want 2/3, true, 1", m.WinningRate, m.Passed, m.AdvantageProbability)
	}
}

func TestBenjaminiYekutieli(t *testing.T) {
	// m = 4, Σ1/i = 25/12: thresholds k·0.05·12/100 = 0.006, 0.012, 0.018, 0.024.
	cases := []struct {
		name string
		ps   []float64
		want []bool
	}{
		{"none", []float64{0.01, 0.02, 0.03, 0.5}, []bool{false, false, false, false}},
		{"three", []float64{0.005, 0.013, 0.011, 0.9}, []bool{true, true, true, false}},
		{"step-up rejects a p above its own threshold", []float64{0.9, 0.007, 0.010, 0.9}, []bool{false, true, true, false}},
		{"ties rejected together", []float64{0.5, 0.012, 0.012, 0.5}, []bool{false, true, true, false}},
		{"ties kept together", []float64{0.013, 0.5, 0.013, 0.5}, []bool{false, false, false, false}},
		{"three tied at the third threshold", []float64{0.017, 0.017, 0.9, 0.017}, []bool{true, true, false, true}},
		{"all tied at zero", []float64{0, 0, 0, 0}, []bool{true, true, true, true}},
	}
	for _, c := range cases {
		got := BenjaminiYekutieli(c.ps, 0.05)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %v gives %v, want %v", c.name, c.ps, got, c.want)
				break
			}
		}
	}
}

// TestAltTestZeroVariance: a model that always agrees with unanimous humans
// ties every item (d = 0 < ε: p = 0, every human rejected, passes); one that
// always disagrees loses every item (d = 1: p = 1, fails).
func TestAltTestZeroVariance(t *testing.T) {
	var h, m strings.Builder
	h.WriteString("annotator,item_id,label\n")
	m.WriteString("model,item_id,label\n")
	for i := range 30 {
		for _, a := range []string{"A", "B", "C"} {
			h.WriteString(a + ",item" + analysis.Itoa(i) + ",yes\n")
		}
		m.WriteString("good,item" + analysis.Itoa(i) + ",yes\nbad,item" + analysis.Itoa(i) + ",no\n")
	}
	res, err := ComputeAltTest(altRows(t, readH, h.String()), altRows(t, readM, m.String()), DefaultAltTestOptions())
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Models["good"]; !g.Passed || g.WinningRate != 1 || g.AdvantageProbability != 1 {
		t.Errorf("good: %+v, want passed with ω 1 and ρ 1", g)
	}
	if b := res.Models["bad"]; b.Passed || b.WinningRate != 0 || b.AdvantageProbability != 0 || b.PerHuman[0].PValue != 1 {
		t.Errorf("bad: %+v, want failed with ω 0, ρ 0, p 1", b)
	}
	if strings.Join(res.Order, ",") != "good,bad" {
		t.Errorf("order %v, want the file's", res.Order)
	}
}

// TestAltTestZScore: z-scoring each annotator first makes a model that
// rates on a shifted scale as good as one on the humans' own.
func TestAltTestZScore(t *testing.T) {
	var h, m strings.Builder
	h.WriteString("annotator,item_id,label\n")
	m.WriteString("model,item_id,label\n")
	for i := range 40 {
		v := 1 + i%7
		for _, a := range []string{"A", "B", "C"} {
			h.WriteString(a + ",item" + analysis.Itoa(i) + "," + analysis.Itoa(v) + "\n")
		}
		m.WriteString("shifted,item" + analysis.Itoa(i) + "," + analysis.Itoa(10+2*v) + "\n")
	}
	opt := DefaultAltTestOptions()
	opt.Scoring = AltNegRMSE
	hr, mr := altRows(t, readH, h.String()), altRows(t, readM, m.String())
	raw, err := ComputeAltTest(hr, mr, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.ZScore = true
	z, err := ComputeAltTest(hr, mr, opt)
	if err != nil {
		t.Fatal(err)
	}
	if raw.Models["shifted"].Passed || !z.Models["shifted"].Passed {
		t.Errorf("shifted model passed %v raw and %v z-scored, want false then true", raw.Models["shifted"].Passed, z.Models["shifted"].Passed)
	}
}

func TestAltTestBadInput(t *testing.T) {
	neg := DefaultAltTestOptions()
	neg.Scoring = AltNegRMSE
	neg.MinItems = 2
	acc := DefaultAltTestOptions()
	acc.MinItems = 2
	cases := []struct {
		name           string
		humans, models string
		opt            AltTestOptions
		file           string
		line           int
		msg            string
	}{
		{"label not a number", "annotator,item_id,label\nA,i1,3\nB,i1,likely\n", "model,item_id,label\nm,i1,3\n", neg, "humans", 3, `"likely" is not a number`},
		{"model label not a number", "annotator,item_id,label\nA,i1,3\nB,i1,4\n", "model,item_id,label\nm,i1,3\nm,i2,x\n", neg, "models", 3, `"x" is not a number`},
		{"item with one human", "annotator,item_id,label\nA,i1,x\nB,i1,x\nA,i2,y\n", "model,item_id,label\nm,i1,x\n", acc, "humans", 4, `item "i2" has one human`},
		{"no item matches", "annotator,item_id,label\nA,i1,x\nB,i1,x\n", "model,item_id,label\nm,j1,x\nm,j2,y\n", acc, "models", 2, "none of them an item of the humans' file"},
		{"duplicate", "annotator,item_id,label\nA,i1,x\nB,i1,x\nA,i1,y\n", "model,item_id,label\nm,i1,x\n", acc, "humans", 4, "twice (first on line 2)"},
	}
	for _, c := range cases {
		h, err := ReadAltHumans(strings.NewReader(c.humans))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m, err := ReadAltModels(strings.NewReader(c.models))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		res, err := ComputeAltTest(h, m, c.opt)
		var fe *AltFileError
		if !errors.As(err, &fe) || fe.File != c.file || fe.Err.Line != c.line || !strings.Contains(err.Error(), c.msg) || res != nil {
			t.Errorf("%s: got %v (result %v), want an error in the %s file on line %d saying %q", c.name, err, res, c.file, c.line, c.msg)
		}
	}
	for _, empty := range []string{"", "model,item_id,label\n"} {
		_, err := ReadAltModels(strings.NewReader(empty))
		var ie *analysis.InputError
		if !errors.As(err, &ie) || ie.Line != 1 {
			t.Errorf("models file %q: got %v, want an error on line 1", empty, err)
		}
	}
	// No human has enough items: an error naming the model and the counts.
	h, _ := ReadAltHumans(strings.NewReader("annotator,item_id,label\nA,i1,x\nB,i1,x\n"))
	m, _ := ReadAltModels(strings.NewReader("model,item_id,label\nm,i1,x\n"))
	if _, err := ComputeAltTest(h, m, DefaultAltTestOptions()); err == nil || !strings.Contains(err.Error(), `model "m"`) || !strings.Contains(err.Error(), "most any human has is 1") {
		t.Errorf("thin design: got %v, want an error naming the model and the most items a human has", err)
	}
}

// TestAltTestConstantZScore: under --zscore a human with one label
// throughout is left out with a note; a model with one label is an error
// naming its first line.
func TestAltTestConstantZScore(t *testing.T) {
	var h, m strings.Builder
	h.WriteString("annotator,item_id,label\n")
	m.WriteString("model,item_id,label\n")
	for i := range 30 {
		for k, a := range []string{"A", "B", "C"} {
			h.WriteString(a + ",item" + analysis.Itoa(i) + "," + analysis.Itoa(1+(i+k)%7) + "\n")
		}
		h.WriteString("D,item" + analysis.Itoa(i) + ",5\n")
		m.WriteString("good,item" + analysis.Itoa(i) + "," + analysis.Itoa(1+(i+1)%7) + "\n")
	}
	opt := DefaultAltTestOptions()
	opt.Scoring, opt.ZScore = AltNegRMSE, true
	hr := altRows(t, readH, h.String())
	res, err := ComputeAltTest(hr, altRows(t, readM, m.String()), opt)
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Models["good"]; g.Humans != 3 || !strings.Contains(strings.Join(res.Notes, "\n"), `"D" (line 5)`) {
		t.Errorf("humans tested %d (want 3, D left out), notes %q", g.Humans, res.Notes)
	}
	_, err = ComputeAltTest(hr, altRows(t, readM, "model,item_id,label\nflat,item0,4\nflat,item1,4\n"), opt)
	var fe *AltFileError
	if !errors.As(err, &fe) || fe.File != "models" || fe.Err.Line != 2 || !strings.Contains(err.Error(), `model "flat" gives every item the same label "4"`) {
		t.Errorf("constant model: %v, want an error on line 2 of the models file", err)
	}
}

// TestAltTestNoVerdictOnTwoHumans (docs/statistics.md#when-the-design-is-too-thin):
// the uniform baseline against two experts who disagree on 30 items wins
// against both and would "pass"; with fewer than 3 humans tested there is
// no verdict, the reason says so, and the note says ε should be smaller
// since the humans agree little.
func TestAltTestNoVerdictOnTwoHumans(t *testing.T) {
	var h, m strings.Builder
	h.WriteString("annotator,item_id,label\n")
	m.WriteString("model,item_id,label\n")
	for i := range 30 {
		a, b := "yes", "no"
		if i%3 == 0 {
			b = "yes"
		}
		if i%5 == 0 {
			a = "no"
		}
		item := "i" + analysis.Itoa(i)
		h.WriteString("e1," + item + "," + a + "\ne2," + item + "," + b + "\n")
		m.WriteString("uniform," + item + ",yes\n")
	}
	humans, models := altRows(t, readH, h.String()), altRows(t, readM, m.String())
	opt := DefaultAltTestOptions()
	opt.Epsilon = 0.2
	res, err := ComputeAltTest(humans, models, opt)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Models["uniform"]
	if r.WinningRate < 0.5 {
		t.Fatalf("ω = %v: the case should be one the bare ω would pass", r.WinningRate)
	}
	if r.Passed || r.Verdict != AltNA || r.VerdictReason != "n/a: 2 humans; the test needs 3" {
		t.Errorf("two humans: passed %v, verdict %q (%q), want no verdict", r.Passed, r.Verdict, r.VerdictReason)
	}
	if res.HumanAlpha == nil || *res.HumanAlpha >= AltLowAgreement {
		t.Fatalf("the experts' α %v, want low", res.HumanAlpha)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{"no verdict (n/a: 2 humans; the test needs 3)", "the humans agree little (Krippendorff's α = ", "a smaller ε"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}

	// A third expert, agreeing with the first: a verdict again.
	for i := range 30 {
		item := "i" + analysis.Itoa(i)
		a := "yes"
		if i%5 == 0 {
			a = "no"
		}
		h.WriteString("e3," + item + "," + a + "\n")
	}
	res, err = ComputeAltTest(altRows(t, readH, h.String()), models, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Models["uniform"]; r.Verdict == AltNA || r.VerdictReason != "" || r.Passed != (r.Verdict == AltPass) {
		t.Errorf("three humans: verdict %q (%q), passed %v", r.Verdict, r.VerdictReason, r.Passed)
	}
}

// TestAltTestHumanAlpha: the humans' α the note reads is Krippendorff's,
// nominal on the labels for accuracy and interval (closed form) on the
// numbers for −RMSE, as the core computes it from the data matrix.
func TestAltTestHumanAlpha(t *testing.T) {
	csv := "annotator,item_id,label\n" +
		"A,i1,1\nB,i1,2\nC,i1,1\n" +
		"A,i2,4\nB,i2,5\n" +
		"A,i3,2\nB,i3,2\nC,i3,3\n" +
		"A,i4,7\nC,i4,5\n"
	data := [][]float64{{1, 4, 2, 7}, {2, 5, 2, math.NaN()}, {1, math.NaN(), 3, 5}}
	models := altRows(t, readM, "model,item_id,label\nm,i1,1\nm,i2,4\nm,i3,2\nm,i4,6\n")
	for _, c := range []struct {
		scoring AltScoring
		metric  analysis.Metric
	}{{AltAccuracy, analysis.Nominal}, {AltNegRMSE, analysis.Interval}} {
		opt := AltTestOptions{Scoring: c.scoring, Epsilon: 0.1, Q: 0.05, MinItems: 2, MinHumans: 2}
		res, err := ComputeAltTest(altRows(t, readH, csv), models, opt)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := analysis.KrippendorffAlphaData(data, c.metric)
		if res.HumanAlpha == nil || math.Abs(*res.HumanAlpha-want) > 1e-12 {
			t.Errorf("%v: α %v, want %v", c.scoring, res.HumanAlpha, want)
		}
	}
}
