package modelhuman

import (
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"strings"
	"testing"
)

// TestSplitHalfKnownReliability: item true scores T ~ N(0, 1), each of k
// raters adds noise e ~ N(0, σ²): the mean of k ratings has reliability
// 1 / (1 + σ²/k). The split-half estimate lands on it.
func TestSplitHalfKnownReliability(t *testing.T) {
	for _, c := range []struct {
		k     int
		sigma float64
	}{{8, 2}, {6, 1}, {10, 3}} {
		rng := analysis.NewRand(uint64(c.k))
		var units [][]float64
		for range 2000 {
			tr := rng.NormFloat64()
			var u []float64
			for range c.k {
				u = append(u, tr+c.sigma*rng.NormFloat64())
			}
			units = append(units, u)
		}
		want := 1 / (1 + c.sigma*c.sigma/float64(c.k))
		sh := SplitHalfReliability(units, 200, 1)
		if sh.Reliability == nil || math.Abs(*sh.Reliability-want) > 0.03 || sh.CI[0] > *sh.Reliability || sh.CI[1] < *sh.Reliability {
			t.Errorf("k %d σ %v: reliability %v %v, want %.3f ± 0.03", c.k, c.sigma, sh.Reliability, sh.CI, want)
		}
		// The halves' own correlation is the reliability of k/2 raters.
		half := 1 / (1 + c.sigma*c.sigma/float64(c.k/2))
		if math.Abs(*sh.R-half) > 0.03 {
			t.Errorf("k %d σ %v: half r %v, want %.3f", c.k, c.sigma, *sh.R, half)
		}
	}
	if SpearmanBrown(0.5) != 2.0/3 {
		t.Errorf("Spearman–Brown of 0.5: %v, want 2/3", SpearmanBrown(0.5))
	}
}

// TestSplitHalfOfHalvesThatDisagree: when the halves' means correlate
// negatively there is no reliability to correct, and Spearman–Brown's
// 2r/(1 + r) would print one below −1 (−4 at a mean r of −0.64, as a
// judgement study's page once did): the reliability is undefined, with a
// note saying why (docs/statistics.md#split-half-reliability).
func TestSplitHalfOfHalvesThatDisagree(t *testing.T) {
	// Each unit's two raters sit on either side of 0, further apart from
	// unit to unit: whichever way a split falls, the halves' means
	// correlate at exactly −1.
	var units [][]float64
	for i := range 6 {
		units = append(units, []float64{float64(i + 1), -float64(i + 1)})
	}
	sh := SplitHalfReliability(units, 50, 1)
	if sh.R == nil || *sh.R > -0.99 {
		t.Fatalf("half r %v, want −1", sh.R)
	}
	if sh.Reliability != nil || sh.CI != nil || !strings.Contains(sh.Note, "do not agree") {
		t.Errorf("halves that disagree: reliability %v %v, note %q; want none, with a note", sh.Reliability, sh.CI, sh.Note)
	}
	// Halves that agree still get theirs.
	ok := SplitHalfReliability([][]float64{{1, 1.1}, {2, 2.2}, {3, 2.9}, {4, 4.1}}, 50, 1)
	if ok.Reliability == nil || *ok.Reliability < 0.9 || ok.Note != "" {
		t.Errorf("halves that agree: %+v", ok)
	}
}

func TestCorrelationCeiling(t *testing.T) {
	r, rel := 0.6, 0.81
	c := NewCorrelationCeiling(&r, &rel)
	if math.Abs(*c.Ceiling-0.9) > 1e-12 || math.Abs(*c.Share-2.0/3) > 1e-12 {
		t.Errorf("ceiling %v share %v, want 0.9 and 2/3", *c.Ceiling, *c.Share)
	}
	neg := -0.1
	if c := NewCorrelationCeiling(&r, &neg); c.Ceiling != nil || c.Share != nil {
		t.Errorf("a negative reliability has a ceiling: %+v", c)
	}
}

// TestCrowdReliability: α per condition and pooled as the reference
// KrippendorffAlphaData computes it from the same data laid out by hand.
func TestCrowdReliability(t *testing.T) {
	// trigger: two units on which all three raters agree (7 and 6);
	// cancel: raters disagree.
	rows := []CrowdRating{
		{Participant: "p1", Item: "a", Condition: "trigger", Rating: 7}, {Participant: "p2", Item: "a", Condition: "trigger", Rating: 7}, {Participant: "p3", Item: "a", Condition: "trigger", Rating: 7},
		{Participant: "p1", Item: "b", Condition: "trigger", Rating: 6}, {Participant: "p2", Item: "b", Condition: "trigger", Rating: 6}, {Participant: "p3", Item: "b", Condition: "trigger", Rating: 6},
		{Participant: "p1", Item: "a", Condition: "cancel", Rating: 1}, {Participant: "p2", Item: "a", Condition: "cancel", Rating: 4}, {Participant: "p3", Item: "a", Condition: "cancel", Rating: 2},
		{Participant: "p1", Item: "b", Condition: "cancel", Rating: 3}, {Participant: "p2", Item: "b", Condition: "cancel", Rating: 2}, {Participant: "p3", Item: "b", Condition: "cancel", Rating: 5},
	}
	opt := DefaultReliabilityOptions()
	opt.Bootstrap.Replicates = 200
	c, err := ComputeCrowdReliability(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Observers × units (a-trigger, b-trigger, a-cancel, b-cancel).
	data := [][]float64{{7, 6, 1, 3}, {7, 6, 4, 2}, {7, 6, 2, 5}}
	cancel := [][]float64{{1, 3}, {4, 2}, {2, 5}}
	wantAll, _ := analysis.KrippendorffAlphaData(data, analysis.Interval)
	wantCancel, _ := analysis.KrippendorffAlphaData(cancel, analysis.Ordinal)
	if len(c.Alpha) != 3 || c.Alpha[0].Condition != "trigger" || c.Alpha[2].Condition != "all" {
		t.Fatalf("alpha rows %+v", c.Alpha)
	}
	if *c.Alpha[0].Interval != 1 || math.Abs(*c.Alpha[2].Interval-wantAll) > 1e-12 || math.Abs(*c.Alpha[1].Ordinal-wantCancel) > 1e-12 {
		t.Errorf("α trigger %v (want 1), all %v (want %v), cancel ordinal %v (want %v)", *c.Alpha[0].Interval, *c.Alpha[2].Interval, wantAll, *c.Alpha[1].Ordinal, wantCancel)
	}
	if c.Alpha[2].Units != 4 || c.Alpha[2].Ratings != 12 || c.Alpha[2].IntervalCI == nil {
		t.Errorf("pooled: %+v", c.Alpha[2])
	}
	if _, err := ComputeCrowdReliability([]CrowdRating{{Participant: "p", Item: "a", Condition: "trigger", Rating: 9}}, opt); err == nil {
		t.Error("rating 9 accepted on a 7-point scale")
	}
}

// TestExpertReplacementByHand: experts A = (1,1,0,0), B = (1,1,0,1), the
// model = A. Nominal α(A, B): coincidences o₁₁ = 4, o₀₀ = 2, o₀₁ = o₁₀ = 1,
// n₁ = 5, n₀ = 3, n = 8: α = 1 − 7·2/(2·5·3) = 8/15. The model in A's place
// changes nothing (ΔA 0); in B's, the two agree fully (α 1, ΔA 7/15);
// mean ΔA 7/30.
func TestExpertReplacementByHand(t *testing.T) {
	data := [][]float64{{1, 1, 0, 0}, {1, 1, 0, 1}}
	r, err := ComputeExpertReplacement([]string{"A", "B"}, data, []float64{1, 1, 0, 0}, analysis.Nominal, analysis.Bootstrap{Replicates: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(*r.Alpha-8.0/15) > 1e-12 || math.Abs(*r.PerExpert[0].DeltaA) > 1e-12 || math.Abs(*r.PerExpert[1].DeltaA-7.0/15) > 1e-12 || math.Abs(*r.DeltaA-7.0/30) > 1e-12 {
		t.Errorf("α %v, ΔA per expert %v %v, mean %v; want 8/15, 0, 7/15, 7/30", *r.Alpha, *r.PerExpert[0].DeltaA, *r.PerExpert[1].DeltaA, *r.DeltaA)
	}
	// Four units are too few for an interval (most replicates have no
	// variation); the pattern ten times over has one, holding ΔA.
	var big [][]float64
	var model []float64
	for e := range data {
		var row []float64
		for range 10 {
			row = append(row, data[e]...)
		}
		big = append(big, row)
	}
	for range 10 {
		model = append(model, 1, 1, 0, 0)
	}
	r, err = ComputeExpertReplacement([]string{"A", "B"}, big, model, analysis.Nominal, analysis.Bootstrap{Replicates: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.DeltaACI == nil || r.DeltaACI[0] > *r.DeltaA || r.DeltaACI[1] < *r.DeltaA || r.DeltaACI[0] <= 0 {
		t.Errorf("ΔA interval %v does not hold %v above 0", r.DeltaACI, *r.DeltaA)
	}
	if _, err := ComputeExpertReplacement([]string{"A"}, data[:1], []float64{1, 1, 0, 0}, analysis.Nominal, analysis.Bootstrap{}); err == nil {
		t.Error("one expert accepted")
	}
}

// TestModelHumanCorrelationCeiling: a model that knows each item's true
// score reaches the whole ceiling (share ≈ 1); one that guesses, none.
func TestModelHumanCorrelationCeiling(t *testing.T) {
	rng := analysis.NewRand(11)
	var rows []CrowdRating
	truth, noise := map[UnitKey]float64{}, map[UnitKey]float64{}
	for i := range 600 {
		k := UnitKey{Item: "it" + analysis.Itoa(i), Condition: "trigger"}
		tr := rng.NormFloat64()
		truth[k], noise[k] = tr, rng.NormFloat64()
		for p := range 6 {
			v := int(math.Round(4 + 0.8*tr + 1.2*rng.NormFloat64()))
			rows = append(rows, CrowdRating{Participant: "p" + analysis.Itoa(p), Item: k.Item, Condition: k.Condition, Rating: max(1, min(7, v))})
		}
	}
	knows, err := ComputeModelHumanCorrelation(rows, truth, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	guesses, _ := ComputeModelHumanCorrelation(rows, noise, 200, 1)
	t.Logf("knowing: r %.3f, ceiling %.3f, share %.3f; guessing: share %.3f", *knows.R, *knows.Ceiling, *knows.Share, *guesses.Share)
	if knows.Units != 600 || math.Abs(*knows.Share-1) > 0.08 || math.Abs(*guesses.Share) > 0.15 {
		t.Errorf("knowing model: r %v ceiling %v share %v (want ≈ 1); guessing: share %v (want ≈ 0)", *knows.R, *knows.Ceiling, *knows.Share, *guesses.Share)
	}
	// The distributions' units gather the same ratings.
	model := map[UnitKey][]float64{}
	for k := range truth {
		model[k] = []float64{0, 0, 0, 1, 0, 0, 0}
	}
	units, err := DistUnitsFromRatings(rows, model)
	if err != nil || len(units) != 600 || len(units[0].Human) != 6 {
		t.Errorf("units %d (first with %d ratings), %v; want 600 of 6", len(units), len(units[0].Human), err)
	}
	delete(model, UnitKey{Item: "it5", Condition: "trigger"})
	if _, err := DistUnitsFromRatings(rows, model); err == nil || !strings.Contains(err.Error(), `item "it5"`) {
		t.Errorf("a unit without a model distribution: %v", err)
	}
}

// TestCrowdRatingsOf: the reliability's rows leave out attention checks and
// the participants the toplines excluded.
func TestCrowdRatingsOf(t *testing.T) {
	rs, err := toplines.ReadRatings(strings.NewReader("participant_id,batch_id,item_id,item_type,condition,rating,check\n" +
		"p1,B1,s1,scalar,trigger,6,\np1,B1,s2,scalar,cancel,2,\np1,B1,c1,,trigger,6,high\n" +
		"p2,B1,s2,scalar,trigger,7,\np2,B1,s1,scalar,cancel,3,\n"))
	if err != nil {
		t.Fatal(err)
	}
	opt := toplines.DefaultOptions()
	opt.Exclude = []string{"p2"}
	rows := CrowdRatingsOf(rs, toplines.ComputeToplines(rs, opt))
	if len(rows) != 2 || rows[0] != (CrowdRating{Participant: "p1", Item: "s1", Condition: "trigger", Rating: 6}) || rows[1] != (CrowdRating{Participant: "p1", Item: "s2", Condition: "cancel", Rating: 2}) {
		t.Errorf("rows %+v, want p1's two item ratings", rows)
	}
}

// BenchmarkCrowdReliability: the paper's crowd (271 items in two
// conditions, 5 raters each: 2,710 ratings), α with 2,000 bootstrap
// replicates and 1,000 split-half splits.
func BenchmarkCrowdReliability(b *testing.B) {
	rng := analysis.NewRand(1)
	var rows []CrowdRating
	for i := range 271 {
		for c, cond := range []string{"trigger", "cancel"} {
			for p := range 5 {
				rows = append(rows, CrowdRating{Participant: "p" + analysis.Itoa(p+5*((i+c)%18)), Item: "it" + analysis.Itoa(i), Condition: cond, Rating: 1 + rng.IntN(7)})
			}
		}
	}
	for b.Loop() {
		if _, err := ComputeCrowdReliability(rows, DefaultReliabilityOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCoincidencesMatchKrippendorff: the bootstrap's shortcut gives the α
// of krippendorffWeighted for any weights and every metric.
func TestCoincidencesMatchKrippendorff(t *testing.T) {
	rng := analysis.NewRand(5)
	counts := make([][]int, 60)
	for u := range counts {
		counts[u] = make([]int, 7)
		for range 1 + rng.IntN(6) {
			counts[u][rng.IntN(7)]++
		}
	}
	values := []float64{1, 2, 3, 4, 5, 6, 7}
	co := NewCoincidences(counts)
	o := make([]float64, 49)
	w := make([]int32, len(counts))
	for range 50 {
		for u := range w {
			w[u] = int32(rng.IntN(3))
		}
		co.Sum(w, o)
		for _, m := range []analysis.Metric{analysis.Nominal, analysis.Ordinal, analysis.Interval} {
			want, ok1 := analysis.KrippendorffWeighted(counts, w, m, values)
			got, ok2 := AlphaFromCoincidences(o, 7, m, values)
			if ok1 != ok2 || (ok1 && math.Abs(got-want) > 1e-12) {
				t.Fatalf("metric %d: %v %v, want %v %v", m, got, ok2, want, ok1)
			}
		}
	}
}

// TestCrowdCalibration: the human share is the share rating above the
// midpoint (4 on 1–7 is not above); units without a model P(True) are
// left out.
func TestCrowdCalibration(t *testing.T) {
	rows := []CrowdRating{
		{Participant: "p1", Item: "a", Condition: "trigger", Rating: 7}, {Participant: "p2", Item: "a", Condition: "trigger", Rating: 4}, {Participant: "p3", Item: "a", Condition: "trigger", Rating: 5}, {Participant: "p4", Item: "a", Condition: "trigger", Rating: 1},
		{Participant: "p1", Item: "b", Condition: "trigger", Rating: 2}, {Participant: "p2", Item: "b", Condition: "trigger", Rating: 6},
		{Participant: "p1", Item: "c", Condition: "trigger", Rating: 7},
	}
	model := map[UnitKey]float64{{Item: "a", Condition: "trigger"}: 0.55, {Item: "b", Condition: "trigger"}: 0.95}
	c, err := CrowdCalibration(rows, 7, model, 10, analysis.Bootstrap{})
	if err != nil {
		t.Fatal(err)
	}
	// a: share 2/4 at p 0.55; b: share 1/2 at p 0.95: ECE = ½·0.05 + ½·0.45.
	if c.Items != 2 || math.Abs(*c.ECE-0.25) > 1e-12 {
		t.Errorf("items %d ECE %v, want 2 and 0.25", c.Items, *c.ECE)
	}
	if _, err := CrowdCalibration(rows, 7, map[UnitKey]float64{{Item: "z", Condition: "cancel"}: 0.5}, 10, analysis.Bootstrap{}); err == nil {
		t.Error("no shared unit accepted")
	}
}

// TestCrowdAlphaLeavesOutConstantRaters (docs/statistics.md#crowd-krippendorffs-alpha):
// a participant who rates every item the same is left out of α as of the
// split-half reliability and the toplines: α with the constant rater is
// α of the others, and the rater is listed once.
func TestCrowdAlphaLeavesOutConstantRaters(t *testing.T) {
	rng := analysis.NewRand(3)
	var others []CrowdRating
	for i := range 20 {
		item := "i" + analysis.Itoa(i)
		for p := range 4 {
			r := 1 + (i*3+p+rng.IntN(2))%7
			others = append(others, CrowdRating{Participant: "p" + analysis.Itoa(p), Item: item, Condition: "trigger", Rating: r})
		}
	}
	with := append([]CrowdRating(nil), others...)
	for i := range 20 {
		with = append(with, CrowdRating{Participant: "constant", Item: "i" + analysis.Itoa(i), Condition: "trigger", Rating: 4})
	}
	opt := DefaultReliabilityOptions()
	opt.Bootstrap.Replicates = 0
	a, err := ComputeCrowdReliability(with, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ComputeCrowdReliability(others, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.ZeroVariance) != 1 || a.ZeroVariance[0] != "constant" {
		t.Errorf("zero variance: %v", a.ZeroVariance)
	}
	if *a.Alpha[0].Interval != *b.Alpha[0].Interval || *a.Alpha[0].Ordinal != *b.Alpha[0].Ordinal || a.Alpha[0].Ratings != b.Alpha[0].Ratings {
		t.Errorf("α with the constant rater %+v, without %+v: want the same", a.Alpha[0], b.Alpha[0])
	}
}
