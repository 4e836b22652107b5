package modelhuman

import (
	"fmt"
	"gonum.org/v1/gonum/stat/distuv"
	"io"
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"slices"
	"strconv"
	"strings"
)

// The alternative annotator test (alt-test) of Calderon, Reichart and Dror
// (ACL 2025): can a model stand in for the human annotators? Definition
// and choices in docs/statistics.md#alt-test.

// AltScoring is how one annotator's label is scored against the other
// humans' labels on an item.
type AltScoring uint8

const (
	// AltAccuracy is the share of the other humans giving the same label
	// (labels compared as strings).
	AltAccuracy AltScoring = iota
	// AltNegRMSE is −√(mean (x − other)²) over the other humans (labels
	// read as numbers).
	AltNegRMSE
)

func (s AltScoring) String() string {
	if s == AltNegRMSE {
		return "neg-rmse"
	}
	return "accuracy"
}

// ParseAltScoring reads "accuracy" or "neg-rmse".
func ParseAltScoring(s string) (AltScoring, bool) {
	switch s {
	case "accuracy":
		return AltAccuracy, true
	case "neg-rmse":
		return AltNegRMSE, true
	}
	return 0, false
}

// The paper's guidance for ε (its discussion of the threshold and its FAQ):
// what an annotator's work costs against the model's.
const (
	AltEpsilonExperts = 0.2  // expert annotators
	AltEpsilonSkilled = 0.15 // skilled annotators (trained students, workers)
	AltEpsilonCrowd   = 0.1  // crowd workers
)

// AltTestOptions are the alt-test's parameters (the CLI's flags).
type AltTestOptions struct {
	Scoring   AltScoring
	Epsilon   float64 // the human's cost-benefit handicap, 0 ≤ ε < 1
	Q         float64 // the false discovery rate of Benjamini–Yekutieli
	MinItems  int     // a human is tested only with at least this many items
	MinHumans int     // an item is used only with at least this many humans
	ZScore    bool    // z-score each annotator and model over their items first
}

// DefaultAltTestOptions are the authors' defaults, with ε for a crowd.
func DefaultAltTestOptions() AltTestOptions {
	return AltTestOptions{Scoring: AltAccuracy, Epsilon: AltEpsilonCrowd, Q: 0.05, MinItems: 30, MinHumans: 2}
}

// Validate checks the options' ranges.
func (o AltTestOptions) Validate() error {
	switch {
	case math.IsNaN(o.Epsilon) || o.Epsilon < 0 || o.Epsilon >= 1:
		return fmt.Errorf("epsilon must be from 0 to below 1 (the paper advises 0.1 for crowd workers, 0.15 for skilled annotators, 0.2 for experts)")
	case math.IsNaN(o.Q) || o.Q <= 0 || o.Q >= 1:
		return fmt.Errorf("q must be above 0 and below 1")
	case o.MinItems < 2:
		return fmt.Errorf("min-items must be at least 2 (a t-test needs two items; the authors advise 30)")
	case o.MinHumans < 2:
		return fmt.Errorf("min-humans must be at least 2 (leave-one-out needs another human)")
	case o.ZScore && o.Scoring != AltNegRMSE:
		return fmt.Errorf("zscore needs the neg-rmse scoring (z-scores of labels compared as strings mean nothing)")
	}
	return nil
}

// AltLabel is one row of an alt-test input file: who (an annotator or a
// model) gave which label to which item, and the file line it came from.
type AltLabel struct {
	Who   string
	Item  string
	Label string
	Line  int
}

// ReadAltHumans reads the humans' file: annotator, item_id, label.
func ReadAltHumans(r io.Reader) ([]AltLabel, error) {
	return readAltLabels(r, "annotator", "human labels")
}

// ReadAltModels reads the models' file: model, item_id, label.
func ReadAltModels(r io.Reader) ([]AltLabel, error) {
	return readAltLabels(r, "model", "model labels")
}

func readAltLabels(r io.Reader, who, what string) ([]AltLabel, error) {
	t, err := analysis.NewInput(r, []string{who, "item_id", "label"})
	if err != nil {
		return nil, err
	}
	return analysis.ReadRows(t, what, func(row []string) (AltLabel, error) {
		if err := t.NonEmpty(who, "item_id", "label"); err != nil {
			return AltLabel{}, err
		}
		return AltLabel{Who: row[0], Item: row[1], Label: row[2], Line: t.Line}, nil
	})
}

// AltFileError is bad input found in one of the two files: File is
// "humans" or "models".
type AltFileError struct {
	File string
	Err  *analysis.InputError
}

func (e *AltFileError) Error() string { return e.File + " file: " + e.Err.Error() }
func (e *AltFileError) Unwrap() error { return e.Err }

// AltTestHuman is one human's test. Items is how many items the human was
// compared on; PValue is the one-sided t-test's; Rejected says whether
// Benjamini–Yekutieli rejected H0 (the model does not do as well as this
// human, up to ε).
type AltTestHuman struct {
	Annotator string  `json:"annotator"`
	Items     int     `json:"items"`
	PValue    float64 `json:"p_value"`
	Rejected  bool    `json:"rejected"`
	// RhoModel is mean(W_m) and RhoHuman mean(W_h) over the human's items.
	RhoModel float64 `json:"-"`
	RhoHuman float64 `json:"-"`
}

// AltTestModel is one model's alt-test: the winning rate ω (the share of
// humans rejected), the advantage probability ρ (the mean over humans of
// mean W_m), passed (ω ≥ 0.5), the humans tested and the items used.
//
// Verdict is "pass", "fail" or "n/a": no verdict with fewer than
// AltMinHumans humans tested, VerdictReason then saying why ("n/a: 2
// humans; the test needs 3"), and Passed false
// (docs/statistics.md#when-the-design-is-too-thin).
type AltTestModel struct {
	WinningRate          float64        `json:"winning_rate"`
	AdvantageProbability float64        `json:"advantage_probability"`
	Passed               bool           `json:"passed"`
	Verdict              string         `json:"verdict"`
	VerdictReason        string         `json:"verdict_reason,omitempty"`
	Humans               int            `json:"humans"`
	Items                int            `json:"items"`
	Epsilon              float64        `json:"epsilon"`
	PerHuman             []AltTestHuman `json:"per_human"`
	// Skipped lists the humans left out for having fewer than MinItems
	// items, with how many they had.
	Skipped []AltSkipped `json:"-"`
}

// AltMinHumans is the fewest humans tested for the alt-test to give a
// verdict: the authors advise at least 3, and with 2 the test only asks
// which of the two the model is closer to.
const AltMinHumans = 3

// AltLowAgreement is the humans' Krippendorff's α below which the output
// says ε should be smaller: Krippendorff's (2004) lowest bound for
// tentative conclusions.
const AltLowAgreement = 0.667

// The alt-test's verdicts.
const (
	AltPass = "pass"
	AltFail = "fail"
	AltNA   = "n/a"
)

// AltSkipped is a human left out of one model's test.
type AltSkipped struct {
	Annotator string
	Items     int
}

// AltTest is the alt-test of every model (docs/formats.md#alt-test-json).
type AltTest struct {
	Models map[string]*AltTestModel `json:"models"`
	// Order lists the models in the order the file first names them.
	Order   []string       `json:"-"`
	Options AltTestOptions `json:"-"`
	// Notes say where the design is thinner than the authors advise.
	Notes []string `json:"-"`
	// HumanAlpha is the humans' own Krippendorff's α on the labels the
	// test reads (nominal for accuracy, interval for −RMSE; z-scored when
	// the test z-scores), nil when undefined; AlphaMetric names the metric.
	HumanAlpha  *float64 `json:"-"`
	AlphaMetric string   `json:"-"`
}

// altData is the input interned: annotators, items and labels as indexes.
type altData struct {
	humans []string
	items  []string
	// byHuman[h] lists the human's answers; byItem[i] the item's.
	byHuman [][]altAnswer
	byItem  [][]altAnswer
	firstLn map[int32]int // first line of each item in the humans' file
	// constant names the humans left out under z-scores for giving every
	// item the same label.
	constant []string
}

type altAnswer struct {
	who, item int32
	label     int32   // interned label (accuracy)
	value     float64 // numeric label (neg-rmse)
}

// ComputeAltTest runs the alt-test of every model against the humans.
// Bad input is an *AltFileError naming the file and line; a model with no
// human to test is an error naming the model.
func ComputeAltTest(humans, models []AltLabel, opt AltTestOptions) (*AltTest, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if len(humans) == 0 {
		return nil, &AltFileError{"humans", analysis.NoRows("human labels")}
	}
	if len(models) == 0 {
		return nil, &AltFileError{"models", analysis.NoRows("model labels")}
	}
	labels := map[string]int32{}
	d, err := newAltData(humans, labels, opt)
	if err != nil {
		return nil, err
	}
	itemIdx := make(map[string]int32, len(d.items))
	for i, it := range d.items {
		itemIdx[it] = int32(i)
	}
	// The models, each as its answer per item.
	var order []string
	perModel := map[string][]AltLabel{}
	for _, m := range models {
		if _, ok := perModel[m.Who]; !ok {
			order = append(order, m.Who)
		}
		perModel[m.Who] = append(perModel[m.Who], m)
	}
	res := &AltTest{Models: map[string]*AltTestModel{}, Order: order, Options: opt}
	for _, name := range order {
		ans, err := modelAnswers(name, perModel[name], itemIdx, labels, opt)
		if err != nil {
			return nil, err
		}
		mt, err := d.test(ans, opt)
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", name, err)
		}
		res.Models[name] = mt
	}
	res.HumanAlpha, res.AlphaMetric = d.alpha(opt)
	res.Notes = altNotes(res)
	if len(d.constant) > 0 {
		res.Notes = append(res.Notes, "Left out for giving every item the same label (no z-scores): annotators "+strings.Join(d.constant, ", "))
	}
	return res, nil
}

func newAltData(humans []AltLabel, labels map[string]int32, opt AltTestOptions) (*altData, error) {
	d := &altData{firstLn: map[int32]int{}}
	hIdx, iIdx := map[string]int32{}, map[string]int32{}
	seen := map[[2]int32]int{}
	var firstLine []int
	for _, h := range humans {
		hi := toplines.Intern(hIdx, &d.humans, h.Who)
		if int(hi) == len(d.byHuman) {
			d.byHuman = append(d.byHuman, nil)
			firstLine = append(firstLine, h.Line)
		}
		ii := toplines.Intern(iIdx, &d.items, h.Item)
		if int(ii) == len(d.byItem) {
			d.byItem = append(d.byItem, nil)
			d.firstLn[ii] = h.Line
		}
		if ln, dup := seen[[2]int32{hi, ii}]; dup {
			return nil, &AltFileError{"humans", &analysis.InputError{Line: h.Line, Column: "item_id",
				Msg: fmt.Sprintf("annotator %q labels item %q twice (first on line %d)", h.Who, h.Item, ln)}}
		}
		seen[[2]int32{hi, ii}] = h.Line
		a, err := altValue(h, labels, opt, "humans")
		if err != nil {
			return nil, err
		}
		a.who, a.item = hi, ii
		d.byHuman[hi] = append(d.byHuman[hi], a)
		d.byItem[ii] = append(d.byItem[ii], a)
	}
	for i, ans := range d.byItem {
		if len(ans) == 1 {
			return nil, &AltFileError{"humans", &analysis.InputError{Line: d.firstLn[int32(i)], Column: "item_id",
				Msg: fmt.Sprintf("item %q has one human (%q): leaving that human out leaves nobody to compare with; remove the item or add another annotator's label", d.items[i], d.humans[ans[0].who])}}
		}
	}
	if opt.ZScore {
		// A human with one label throughout has no z-scores: left out, as
		// the crowd's constant raters are (docs/statistics.md#z-scores).
		for h, ans := range d.byHuman {
			if !zscoreAnswers(ans) {
				d.constant = append(d.constant, fmt.Sprintf("%q (line %d)", d.humans[h], firstLine[h]))
				d.byHuman[h] = nil
			}
		}
		// byItem holds copies: refresh them from the z-scored byHuman.
		for i := range d.byItem {
			d.byItem[i] = d.byItem[i][:0]
		}
		for _, ans := range d.byHuman {
			for _, a := range ans {
				d.byItem[a.item] = append(d.byItem[a.item], a)
			}
		}
	}
	return d, nil
}

// altValue reads a row's label: interned, and as a number for neg-rmse.
func altValue(l AltLabel, labels map[string]int32, opt AltTestOptions, file string) (altAnswer, error) {
	a := altAnswer{label: internLabel(labels, l.Label)}
	if opt.Scoring == AltNegRMSE {
		v, err := strconv.ParseFloat(l.Label, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return a, &AltFileError{file, &analysis.InputError{Line: l.Line, Column: "label",
				Msg: fmt.Sprintf("%q is not a number (the neg-rmse scoring reads labels as numbers; use --scoring accuracy for categories)", l.Label)}}
		}
		a.value = v
	}
	return a, nil
}

func internLabel(labels map[string]int32, s string) int32 {
	if i, ok := labels[s]; ok {
		return i
	}
	i := int32(len(labels))
	labels[s] = i
	return i
}

// zscoreAnswers z-scores the values with their mean and population SD
// (as docs/statistics.md#z-scores does for the crowd). Constant values have
// no SD: ok is false and the values are left as they are.
func zscoreAnswers(ans []altAnswer) (ok bool) {
	var s, s2 float64
	for _, a := range ans {
		s += a.value
		s2 += a.value * a.value
	}
	n := float64(len(ans))
	m := s / n
	sd := math.Sqrt(max(0, s2/n-m*m))
	if sd <= 1e-12*max(1, math.Abs(m)) {
		return false
	}
	for i := range ans {
		ans[i].value = (ans[i].value - m) / sd
	}
	return true
}

// modelAnswers is a model's answer per item index (-1 label: none).
func modelAnswers(name string, rows []AltLabel, itemIdx map[string]int32, labels map[string]int32, opt AltTestOptions) ([]altAnswer, error) {
	ans := make([]altAnswer, len(itemIdx))
	has := make([]int, len(itemIdx)) // line of the answer, 0: none
	var own []altAnswer
	var ownIdx []int32
	matched := 0
	for _, r := range rows {
		a, err := altValue(r, labels, opt, "models")
		if err != nil {
			return nil, err
		}
		i, ok := itemIdx[r.Item]
		if !ok {
			own = append(own, a) // z-scores use every item the model answered
			ownIdx = append(ownIdx, -1)
			continue
		}
		if has[i] != 0 {
			return nil, &AltFileError{"models", &analysis.InputError{Line: r.Line, Column: "item_id",
				Msg: fmt.Sprintf("model %q labels item %q twice (first on line %d)", name, r.Item, has[i])}}
		}
		has[i] = r.Line
		matched++
		own = append(own, a)
		ownIdx = append(ownIdx, i)
	}
	if matched == 0 {
		return nil, &AltFileError{"models", &analysis.InputError{Line: rows[0].Line, Column: "item_id",
			Msg: fmt.Sprintf("model %q labels %d items, none of them an item of the humans' file (are the item ids the same?)", name, len(rows))}}
	}
	// A model with one label throughout cannot be z-scored; setting its
	// z-scores to 0 would make it predict every human's own mean, a strong
	// −RMSE baseline it did not earn.
	if opt.ZScore && !zscoreAnswers(own) {
		return nil, &AltFileError{"models", &analysis.InputError{Line: rows[0].Line, Column: "label",
			Msg: fmt.Sprintf("model %q gives every item the same label %q: it has no z-scores (drop --zscore, or the model)", name, rows[0].Label)}}
	}
	for i := range ans {
		ans[i].label = -1
	}
	for k, a := range own {
		if ownIdx[k] >= 0 {
			ans[ownIdx[k]] = a
		}
	}
	return ans, nil
}

// altItem is what scoring against "the other humans" needs of an item,
// so leaving one human out costs O(1): label counts for accuracy, the
// sums of values and squares for neg-rmse.
type altItem struct {
	n      int
	counts map[int32]int
	s1, s2 float64
}

func (d *altData) itemStats(opt AltTestOptions) []altItem {
	st := make([]altItem, len(d.byItem))
	for i, ans := range d.byItem {
		it := altItem{n: len(ans)}
		if opt.Scoring == AltAccuracy {
			it.counts = make(map[int32]int, 4)
		}
		for _, a := range ans {
			if it.counts != nil {
				it.counts[a.label]++
			}
			it.s1 += a.value
			it.s2 += a.value * a.value
		}
		st[i] = it
	}
	return st
}

// score is the alignment of answer x with item it's humans other than
// the one who answered left.
func (it *altItem) score(x, left altAnswer, opt AltTestOptions) float64 {
	k := float64(it.n - 1)
	if opt.Scoring == AltAccuracy {
		same := it.counts[x.label]
		if left.label == x.label {
			same--
		}
		return float64(same) / k
	}
	a := it.s1 - left.value
	b := it.s2 - left.value*left.value
	mse := (b - 2*x.value*a + k*x.value*x.value) / k
	return -math.Sqrt(max(0, mse))
}

// test runs one model's alt-test.
func (d *altData) test(model []altAnswer, opt AltTestOptions) (*AltTestModel, error) {
	st := d.itemStats(opt)
	keep := make([]bool, len(d.items))
	kept := 0
	for i := range keep {
		keep[i] = model[i].label >= 0 && st[i].n >= opt.MinHumans
		if keep[i] {
			kept++
		}
	}
	mt := &AltTestModel{Items: kept, Epsilon: opt.Epsilon}
	most := 0
	var dd []float64
	for h, ans := range d.byHuman {
		dd = dd[:0]
		var wm, wh float64
		for _, a := range ans {
			if !keep[a.item] {
				continue
			}
			it := &st[a.item]
			sh := it.score(a, a, opt)
			sm := it.score(model[a.item], a, opt)
			hw, mw := altWins(sh, sm)
			wh += hw
			wm += mw
			dd = append(dd, hw-mw)
		}
		most = max(most, len(dd))
		if len(dd) < opt.MinItems {
			mt.Skipped = append(mt.Skipped, AltSkipped{d.humans[h], len(dd)})
			continue
		}
		n := float64(len(dd))
		mt.PerHuman = append(mt.PerHuman, AltTestHuman{
			Annotator: d.humans[h], Items: len(dd), PValue: altTTestLess(dd, opt.Epsilon),
			RhoModel: wm / n, RhoHuman: wh / n,
		})
	}
	if len(mt.PerHuman) == 0 {
		return nil, fmt.Errorf("no human can be tested: the test needs a human with at least %d items (--min-items) among the %d items that have at least %d humans (--min-humans) and an answer from the model; the most any human has is %d",
			opt.MinItems, kept, opt.MinHumans, most)
	}
	ps := make([]float64, len(mt.PerHuman))
	for i, h := range mt.PerHuman {
		ps[i] = h.PValue
	}
	rej := BenjaminiYekutieli(ps, opt.Q)
	var rho float64
	nrej := 0
	for i := range mt.PerHuman {
		mt.PerHuman[i].Rejected = rej[i]
		if rej[i] {
			nrej++
		}
		rho += mt.PerHuman[i].RhoModel
	}
	mt.Humans = len(mt.PerHuman)
	mt.WinningRate = float64(nrej) / float64(mt.Humans)
	mt.AdvantageProbability = rho / float64(mt.Humans)
	mt.Passed, mt.Verdict = mt.WinningRate >= 0.5, AltFail
	if mt.Passed {
		mt.Verdict = AltPass
	}
	if mt.Humans < AltMinHumans {
		mt.Passed, mt.Verdict = false, AltNA
		mt.VerdictReason = fmt.Sprintf("n/a: %d %s; the test needs %d", mt.Humans, plural(mt.Humans, "human", "humans"), AltMinHumans)
	}
	return mt, nil
}

// altWins gives W_h and W_m: each 1 when its score is at least the other's,
// so a tie is a win for both. Scores equal up to rounding (10⁻¹² relative)
// are a tie: two labels at the same distance from the others must not be
// decided by the last bit of a sum.
func altWins(sh, sm float64) (wh, wm float64) {
	if math.Abs(sh-sm) <= 1e-12*max(1, math.Abs(sh), math.Abs(sm)) {
		return 1, 1
	}
	if sh > sm {
		return 1, 0
	}
	return 0, 1
}

// altTTestLess is the p-value of the one-sided one-sample t-test of
// H0: mean(d) ≥ ε against H1: mean(d) < ε. With no variance (every d the
// same) the test statistic is ±∞: p is 0 when the mean is below ε and 1
// otherwise.
func altTTestLess(d []float64, eps float64) float64 {
	n := float64(len(d))
	var s float64
	for _, x := range d {
		s += x
	}
	m := s / n
	var ss float64
	for _, x := range d {
		ss += (x - m) * (x - m)
	}
	sd := math.Sqrt(ss / (n - 1))
	if sd == 0 {
		if m < eps {
			return 0
		}
		return 1
	}
	t := (m - eps) / (sd / math.Sqrt(n))
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.CDF(t)
}

// BenjaminiYekutieli says which of the hypotheses with p-values ps are
// rejected at false discovery rate q under arbitrary dependence
// (Benjamini & Yekutieli 2001): with the p-values sorted, p₍₁₎ ≤ … ≤ p₍ₘ₎,
// reject the k smallest for the largest k with p₍ₖ₎ ≤ k·q / (m·Σᵢ₌₁ᵐ 1/i).
// Tied p-values are rejected together: a step-up procedure cannot split them.
func BenjaminiYekutieli(ps []float64, q float64) []bool {
	m := len(ps)
	out := make([]bool, m)
	if m == 0 {
		return out
	}
	var hm float64
	for i := 1; i <= m; i++ {
		hm += 1 / float64(i)
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case ps[a] < ps[b]:
			return -1
		case ps[a] > ps[b]:
			return 1
		}
		return 0
	})
	k := 0
	for r, i := range idx {
		if ps[i] <= float64(r+1)*q/(float64(m)*hm) {
			k = r + 1
		}
	}
	for _, i := range idx[:k] {
		out[i] = true
	}
	return out
}

// altNotes says where the design is thinner than the authors advise:
// fewer than 3 humans (with two, the test only asks which of the two the
// model is closer to) or humans with fewer than 30 items (the t-test's
// normal approximation).
func altNotes(res *AltTest) []string {
	var notes []string
	for _, name := range res.Order {
		m := res.Models[name]
		if m.Humans < AltMinHumans {
			notes = append(notes, fmt.Sprintf("%s: no verdict (%s): the authors advise at least %d humans (with 2 the test asks only which one the model is closer to)", name, m.VerdictReason, AltMinHumans))
		}
		if len(m.Skipped) > 0 {
			var who []string
			for i, sk := range m.Skipped {
				if i == 10 {
					who = append(who, fmt.Sprintf("and %d more", len(m.Skipped)-10))
					break
				}
				who = append(who, fmt.Sprintf("%s (%d)", sk.Annotator, sk.Items))
			}
			notes = append(notes, fmt.Sprintf("%s: %d humans left out for having fewer than %d usable items: %s", name, len(m.Skipped), res.Options.MinItems, strings.Join(who, ", ")))
		}
		if res.Options.MinItems < 30 {
			notes = append(notes, fmt.Sprintf("%s: humans with fewer than 30 items are tested (--min-items %d); the authors advise 30 for the t-test and a Wilcoxon signed-rank test below that", name, res.Options.MinItems))
			break
		}
	}
	if a := res.HumanAlpha; a != nil && *a < AltLowAgreement {
		notes = append(notes, fmt.Sprintf("the humans agree little (Krippendorff's α = %s, %s, below %s): the authors advise a smaller ε when the humans' own agreement is low, so a model passes less easily where the humans are no standard", analysis.Fixed(*a, 2), res.AlphaMetric, analysis.Fixed(AltLowAgreement, 3)))
	}
	return notes
}

// alpha is the humans' Krippendorff's α on the labels as the test reads
// them: nominal on the labels for accuracy, interval on the numbers (the
// z-scores under ZScore) for −RMSE. Humans left out under z-scores are
// left out here too.
func (d *altData) alpha(opt AltTestOptions) (*float64, string) {
	if opt.Scoring == AltNegRMSE {
		return d.intervalAlpha(), "interval"
	}
	var nlabels int32
	for _, ans := range d.byHuman {
		for _, a := range ans {
			nlabels = max(nlabels, a.label+1)
		}
	}
	counts := make([][]int, len(d.items))
	for u := range counts {
		counts[u] = make([]int, nlabels)
	}
	for _, ans := range d.byHuman {
		for _, a := range ans {
			counts[a.item][a.label]++
		}
	}
	a, ok := analysis.KrippendorffAlpha(counts, analysis.Nominal, nil)
	if !ok {
		return nil, "nominal"
	}
	return analysis.Num(a), "nominal"
}

// intervalAlpha is Krippendorff's interval α of the humans' numbers in
// closed form, O(labels): over the pairable values (units with at least
// two), α = 1 − (n − 1)·Σᵤ Sᵤ/(mᵤ − 1) / S, where Sᵤ = Σ_{i≠j in u}
// (vᵢ − vⱼ)² = 2(mᵤΣv² − (Σv)²) and S the same over all n values — the
// coincidence-matrix form without a category per distinct z-score.
func (d *altData) intervalAlpha() *float64 {
	type sums struct{ m, s, s2 float64 }
	units := make([]sums, len(d.items))
	for _, ans := range d.byHuman {
		for _, a := range ans {
			u := &units[a.item]
			u.m++
			u.s += a.value
			u.s2 += a.value * a.value
		}
	}
	var all sums
	var do float64
	for _, u := range units {
		if u.m < 2 {
			continue
		}
		do += 2 * (u.m*u.s2 - u.s*u.s) / (u.m - 1)
		all.m += u.m
		all.s += u.s
		all.s2 += u.s2
	}
	de := 2 * (all.m*all.s2 - all.s*all.s)
	if all.m <= 1 || !(de > 0) {
		return nil
	}
	return analysis.Num(1 - (all.m-1)*do/de)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
