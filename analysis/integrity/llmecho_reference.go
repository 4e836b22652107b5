package integrity

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"pragmalab/analysis"
)

// LLM-echo against a trusted reference (docs/statistics.md#llm-echo-against-a-reference):
// the humans a participant is compared with are humans the researcher
// trusts (a vetted pilot, a lab panel, an imported file of ratings on the
// same items), never the pool itself, so a pool of mostly agents cannot
// make the agents look like "the other humans".

// EchoTolerance is how far a measure may fall short of a threshold and
// still meet it: "at least 0.25" holds at 0.25 whatever the rounding of
// the arithmetic that produced it.
const EchoTolerance = 1e-9

// atLeast reports x ≥ threshold within EchoTolerance.
func atLeast(x, threshold float64) bool { return x >= threshold-EchoTolerance }

// atMost reports x ≤ threshold within EchoTolerance.
func atMost(x, threshold float64) bool { return x <= threshold+EchoTolerance }

// FitOptions are the thresholds of the reference rule.
type FitOptions struct {
	// MinItems: a participant is assessed against a model on at least
	// this many items the model answered and a reference human rated.
	MinItems int `json:"min_items"`
	// MinFollow: δ, how far the participant follows the model beyond the
	// human-like predictor (1 for a copy, 0 in expectation for an honest
	// rater), must reach this.
	MinFollow float64 `json:"min_follow"`
	// Alpha is the family-wise level over the models: each model's
	// one-sided test of δ > 0 is at Alpha divided by the number of models.
	Alpha float64 `json:"alpha"`
}

// DefaultFitOptions are the thresholds docs/statistics.md#llm-echo-against-a-reference
// justifies by `pragmalab bench integrity`.
func DefaultFitOptions() FitOptions {
	return FitOptions{MinItems: 10, MinFollow: 0.5, Alpha: 0.01}
}

// Validate checks the options; the message names the option.
func (o FitOptions) Validate() error {
	switch {
	case o.MinItems < 4:
		return fmt.Errorf("min-items must be at least 4 against a reference (the fit has 3 parameters), got %d", o.MinItems)
	case !(o.MinFollow > 0 && o.MinFollow <= 1):
		return fmt.Errorf("min-follow must be above 0 and at most 1, got %g", o.MinFollow)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("alpha must be above 0 and below 1, got %g", o.Alpha)
	}
	return nil
}

// FitModel is one participant measured against one model and the
// reference.
type FitModel struct {
	Model string `json:"model"`
	// Items the participant rated that the model answered and at least
	// one reference human (other than the participant) rated.
	Items int `json:"items"`
	// Weight is ŵ, the weight of the model in the reference humans' own
	// ratings beside their peers' mean (0 the model adds nothing to the
	// peers, 1 the peers add nothing to the model); null when the
	// reference cannot tell.
	Weight *float64 `json:"reference_weight"`
	// Follow is δ, the participant's slope on the model's point beyond the
	// human-like predictor ŵ·model + (1 − ŵ)·reference mean; FollowSE its
	// standard error, PValue the one-sided p of δ > 0 (Student's t on
	// items − 3 degrees of freedom). All null when not assessed.
	// FollowT is δ / FollowSE (capped at ±10⁹: an exact copy has no
	// standard error).
	Follow   *float64 `json:"follow"`
	FollowSE *float64 `json:"follow_se"`
	FollowT  *float64 `json:"follow_t"`
	PValue   *float64 `json:"p_value"`
	// ReferenceAssessed counts the reference humans measured the same way
	// (each against the mean of the other reference humans, on at least
	// MinItems items); ReferenceMaxFollow is the largest of their δ, and
	// ReferenceMaxT the largest of their δ / SE: how close, in standard
	// errors, an honest reference rater came to the model. A flag needs
	// FollowT above ReferenceMaxT (the person-fit view: closer to the
	// model than any reference human).
	ReferenceAssessed  int      `json:"reference_assessed"`
	ReferenceMaxFollow *float64 `json:"reference_max_follow"`
	ReferenceMaxT      *float64 `json:"reference_max_t"`
	Flagged            bool     `json:"flagged"`
	// Note says why the model was not assessed ("" when it was).
	Note string `json:"note,omitempty"`
}

// FitResult is one participant's assessment against a trusted reference.
type FitResult struct {
	Participant string `json:"participant_id"`
	// InReference: the participant is one of the reference humans (a
	// trusted participant): measured, never flagged.
	InReference bool       `json:"in_reference"`
	Models      []FitModel `json:"models"`
	Flagged     bool       `json:"flagged"`
	Echoes      string     `json:"echoes"`
	Reason      string     `json:"reason"`
}

// point is one model's answer to an (item, condition) as the
// reference rule uses it: its expected point Σ k·p_k when the models file
// gives the distribution, else its answer.
func (a ModelAnswer) point() float64 {
	if len(a.Dist) == 0 {
		return float64(a.Rating)
	}
	s, tot := 0.0, 0.0
	for k, p := range a.Dist {
		s += float64(k+1) * p
		tot += p
	}
	if tot <= 0 {
		return float64(a.Rating)
	}
	return s / tot
}

// fitRow is one item of one rater: their rating x, the model's point a and
// the reference mean c (without the rater).
type fitRow struct {
	x, a, c float64
	k       int // reference humans in c
}

// LLMEchoReference assesses every participant of ratings against every
// model of answers and the trusted reference humans of reference
// (docs/statistics.md#llm-echo-against-a-reference). A participant who is
// also a reference human (the same id) is measured without their own
// ratings in the reference mean and never flagged. A participant is
// flagged for a model when, on at least MinItems items, δ ≥ MinFollow,
// its one-sided p ≤ Alpha / models, and δ is above every reference
// human's — each within EchoTolerance.
func LLMEchoReference(ratings, reference []EchoRating, answers []ModelAnswer, opt FitOptions) []FitResult {
	d := indexEcho(ratings)
	ref := indexEcho(reference)
	models := indexModels(answers, ModelAnswer.point)
	refs := map[string]bool{}
	for _, r := range ref.participants {
		refs[r] = true
	}
	cal := make([]calib, len(models))
	for i, m := range models {
		cal[i] = calibrate(ref, m, opt)
	}
	alpha := opt.Alpha / float64(max(1, len(models)))
	return assess(d, len(models),
		func(p string, i int) FitModel { return cal[i].measure(d, ref, models[i], p, refs[p], opt, alpha) },
		func(p string, ms []FitModel) FitResult {
			res := FitResult{Participant: p, InReference: refs[p], Models: ms}
			res.decide(opt, alpha)
			return res
		})
}

// calib is what the reference humans show of one model: ŵ (nil when they
// cannot weigh it), and how many of them were measured against it with
// their largest δ and δ / SE.
type calib struct {
	w       *refWeight
	maxRef  *float64
	maxT    *float64
	refSeen int
}

// calibrate measures the reference humans of ref against model m, each
// against the mean of the others.
func calibrate(ref echoData, m modelIndex[float64], opt FitOptions) calib {
	var c calib
	w, ok := referenceWeight(ref, m)
	if !ok {
		return c
	}
	c.w = &w
	for _, r := range ref.participants {
		f := fitOne(refRows(ref, m, r, 2), w)
		if f.Follow == nil || f.Items < opt.MinItems {
			continue
		}
		c.refSeen++
		if c.maxRef == nil || *f.Follow > *c.maxRef {
			v := *f.Follow
			c.maxRef = &v
		}
		if t := tStat(*f.Follow, *f.SE); c.maxT == nil || t > *c.maxT {
			c.maxT = &t
		}
	}
	return c
}

// measure is participant p of the pool d against model m, calibrated by
// c; inReference participants are measured but never flagged, alpha is
// each model's share of opt.Alpha.
func (c calib) measure(d, ref echoData, m modelIndex[float64], p string, inReference bool, opt FitOptions, alpha float64) FitModel {
	fm := FitModel{Model: m.name, ReferenceAssessed: c.refSeen, ReferenceMaxFollow: c.maxRef, ReferenceMaxT: c.maxT}
	rows := poolRows(d, ref, m, p)
	fm.Items = len(rows)
	if c.w != nil {
		v := c.w.w
		fm.Weight = &v
	}
	switch {
	case c.w == nil:
		fm.Note = "the reference humans' ratings cannot weigh this model against each other (fewer than 2 reference humans on its items, or no spread)"
	case len(rows) < opt.MinItems:
		fm.Note = fmt.Sprintf("fewer than %d items rated by the model and a reference human", opt.MinItems)
	default:
		f := fitOne(rows, *c.w)
		fm.Follow, fm.FollowSE, fm.PValue, fm.Note = f.Follow, f.SE, f.PValue, f.Note
		if f.Follow != nil {
			t := tStat(*f.Follow, *f.SE)
			fm.FollowT = &t
		}
		fm.Flagged = !inReference && fm.Follow != nil && atLeast(*fm.Follow, opt.MinFollow) &&
			atMost(*fm.PValue, alpha) && (fm.ReferenceMaxT == nil || *fm.FollowT > *fm.ReferenceMaxT+EchoTolerance)
	}
	return fm
}

func (res *FitResult) decide(opt FitOptions, alpha float64) {
	var best *FitModel
	assessed := 0
	for i := range res.Models {
		m := &res.Models[i]
		if m.Follow != nil {
			assessed++
		}
		if m.Flagged && (best == nil || *m.Follow > *best.Follow) {
			best = m
		}
	}
	switch {
	case best != nil:
		res.Flagged, res.Echoes = true, best.Model
		res.Reason = fmt.Sprintf("follows %s beyond the trusted humans on %d items: δ = %.2f (a copy 1, an honest rater 0), %s standard errors above 0 where no reference human reaches %s, p = %s",
			best.Model, best.Items, *best.Follow, fitT(*best.FollowT), fitFmt(best.ReferenceMaxT), fmtP(*best.PValue))
	case res.InReference:
		res.Reason = "a reference human: measured, not flagged"
	case assessed == 0:
		res.Reason = fmt.Sprintf("not assessed: fewer than %d items rated by a model and a reference human, or a reference that cannot weigh the models", opt.MinItems)
	default:
		res.Reason = fmt.Sprintf("no model's answers explain the ratings beyond what the trusted humans' do (δ below %.2f, p above %s, or δ / SE not above every reference human's)", opt.MinFollow, fmtP(alpha))
	}
}

func fitFmt(v *float64) string {
	if v == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.2f", *v)
}

func fmtP(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

// poolRows are participant p's rows against model m: each item p rated
// that m answered and at least one reference human other than p rated.
func poolRows(d, ref echoData, m modelIndex[float64], p string) []fitRow {
	var rows []fitRow
	for _, r := range d.ratings[p] {
		k := echoKey{r.Item, r.Condition}
		a, ok := m.answer(k)
		if !ok {
			continue
		}
		c, n := refMean(ref.byKey[k], p)
		if n < 1 {
			continue
		}
		rows = append(rows, fitRow{x: float64(r.Rating), a: a, c: c, k: n})
	}
	return rows
}

// refRows are reference human r's rows against model m: the items with at
// least minRefs reference humans in all (r and minRefs − 1 others).
func refRows(ref echoData, m modelIndex[float64], r string, minRefs int) []fitRow {
	var rows []fitRow
	for _, er := range ref.ratings[r] {
		k := echoKey{er.Item, er.Condition}
		a, ok := m.answer(k)
		if !ok {
			continue
		}
		c, n := refMean(ref.byKey[k], r)
		if n < minRefs-1 {
			continue
		}
		rows = append(rows, fitRow{x: float64(er.Rating), a: a, c: c, k: n})
	}
	return rows
}

// refMean is the mean of the reference ratings of one (item, condition)
// without rater skip, and how many there are.
func refMean(raters map[string]int, skip string) (float64, int) {
	s, n := 0, 0
	for q, v := range raters {
		if q != skip {
			s += v
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(s) / float64(n), n
}

// referenceWeight estimates ŵ for model m from the reference humans: the
// pooled within-rater least squares of each reference human's rating on
// the model's point and the mean of the other reference humans (on the
// items at least two reference humans rated), ŵ = β_model / (β_model +
// β_peers), clamped to [0, 1]. It fails when the slopes do not sum to a
// positive number (the reference follows neither) or the design is
// singular.
func referenceWeight(ref echoData, m modelIndex[float64]) (refWeight, bool) {
	var saa, scc, sac, sax, scx float64
	n, ks := 0, 0
	for _, r := range ref.participants {
		rows := refRows(ref, m, r, 2)
		if len(rows) < 2 {
			continue
		}
		var mx, ma, mc float64
		for _, f := range rows {
			mx += f.x
			ma += f.a
			mc += f.c
		}
		k := float64(len(rows))
		mx, ma, mc = mx/k, ma/k, mc/k
		for _, f := range rows {
			x, a, c := f.x-mx, f.a-ma, f.c-mc
			saa += a * a
			scc += c * c
			sac += a * c
			sax += a * x
			scx += c * x
			ks += f.k
		}
		n += len(rows)
	}
	det := saa*scc - sac*sac
	if n < 4 || !(det > 1e-9*saa*scc) {
		return refWeight{}, false
	}
	ba := (scc*sax - sac*scx) / det
	bc := (saa*scx - sac*sax) / det
	if !(ba+bc > 0) {
		return refWeight{}, false
	}
	return refWeight{w: math.Max(0, math.Min(1, ba/(ba+bc))), k: float64(ks) / float64(n)}, true
}

// refWeight is ŵ as the reference humans show it, each against the mean
// of k others on average. A participant of the pool is compared with the
// mean of all the reference humans, which is more precise than a
// reference human's mean of the others, so ŵ is a little more than the
// weight of the best human-like predictor for them: the test leans
// towards not flagging. (Rescaling ŵ to the pool's k by the precisions
// gained a tenth of detection at moderate model noise, and raised the
// honest raters' false flags past 2 % on the bench's generators: not
// used.)
type refWeight struct{ w, k float64 }

// fit is one rater's regression x = β₀ + γ·z + δ·a, z = ŵ·a + (1 − ŵ)·c.
type fit struct {
	Items              int
	Follow, SE, PValue *float64
	Note               string
}

// fitOne fits δ and its one-sided test on rows with weights w.
func fitOne(rows []fitRow, w refWeight) fit {
	f := fit{Items: len(rows)}
	n := float64(len(rows))
	if len(rows) < 4 {
		f.Note = "fewer than 4 items"
		return f
	}
	var mx, ma, mz float64
	z := make([]float64, len(rows))
	for i, r := range rows {
		z[i] = w.w*r.a + (1-w.w)*r.c
		mx += r.x
		ma += r.a
		mz += z[i]
	}
	mx, ma, mz = mx/n, ma/n, mz/n
	var szz, saa, sza, szx, sax, sxx float64
	for i, r := range rows {
		x, a, zz := r.x-mx, r.a-ma, z[i]-mz
		szz += zz * zz
		saa += a * a
		sza += zz * a
		szx += zz * x
		sax += a * x
		sxx += x * x
	}
	det := szz*saa - sza*sza
	// The model's point and the human-like predictor must differ on the
	// items beyond rounding: with ŵ = 1, or a reference that equals the
	// model, nothing tells a copy from an honest rater.
	if !(det > 1e-6*szz*saa) || saa == 0 {
		f.Note = "the model's answers and the trusted humans' mean do not differ enough on these items to tell following one from the other"
		return f
	}
	delta := (szz*sax - sza*szx) / det
	gamma := (saa*szx - sza*sax) / det
	rss := math.Max(0, sxx-gamma*szx-delta*sax)
	df := n - 3
	se := math.Sqrt(rss / df * szz / det)
	var p float64
	switch {
	case se > 1e-12:
		p = 1 - distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(delta/se)
	case delta > 0:
		p = 0 // an exact fit on the model: a copy
	default:
		p = 1
	}
	f.Follow, f.SE, f.PValue = &delta, &se, &p
	return f
}

// FitReferenceIDs lists the reference humans of reference, in first-seen
// order.
func FitReferenceIDs(reference []EchoRating) []string {
	return slices.Clone(indexEcho(reference).participants)
}

// probColumns are the positions of p_1 … p_points in a models file's
// header (nil when it has none of them).
func probColumns(header []string, points int) ([]int, error) {
	pos := make([]int, points)
	found := 0
	for k := range pos {
		pos[k] = slices.Index(header, "p_"+strconv.Itoa(k+1))
		if pos[k] >= 0 {
			found++
		}
	}
	switch {
	case found == 0:
		return nil, nil
	case found < points:
		missing := slices.Index(pos, -1) + 1
		return nil, &analysis.InputError{Line: 1, Column: "p_" + strconv.Itoa(missing), Msg: fmt.Sprintf("missing column in the header: a distribution needs p_1 … p_%d (the scale's points)", points)}
	}
	return pos, nil
}

// rowDist reads one row's distribution over the points: every p_k empty
// or 0 (no distribution: the answer alone is used) or every one a number from
// 0 to 1, summing to 1 within 0.01 (the mean of two orders' rounded
// probabilities).
func rowDist(rec []string, pos []int, header []string, line int) ([]float64, error) {
	if pos == nil {
		return nil, nil
	}
	d := make([]float64, len(pos))
	empty, sum := 0, 0.0
	for k, p := range pos {
		f := strings.TrimSpace(rec[p])
		if f == "" {
			empty++
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return nil, &analysis.InputError{Line: line, Column: header[p], Msg: fmt.Sprintf("probability %q is not a number from 0 to 1", f)}
		}
		d[k] = v
		sum += v
	}
	switch {
	case empty == len(pos) || (empty == 0 && sum == 0):
		return nil, nil
	case empty > 0:
		return nil, &analysis.InputError{Line: line, Column: header[pos[slices.IndexFunc(pos, func(p int) bool { return strings.TrimSpace(rec[p]) == "" })]], Msg: "empty probability beside others: give every p_k or none"}
	case math.Abs(sum-1) > 0.01:
		return nil, &analysis.InputError{Line: line, Column: header[pos[0]], Msg: fmt.Sprintf("the probabilities p_1 … p_%d sum to %.4g, not 1", len(pos), sum)}
	}
	return d, nil
}

// referenceFits runs the reference rule when opt has a reference and
// there are models.
func referenceFits(data []EchoRating, answers []ModelAnswer, opt IntegrityOptions) map[string]*FitResult {
	out := map[string]*FitResult{}
	if len(answers) == 0 || len(opt.Reference) == 0 {
		return out
	}
	res := LLMEchoReference(data, opt.Reference, answers, opt.Fit)
	for i := range res {
		out[res[i].Participant] = &res[i]
	}
	return out
}

// Assessed reports whether any model was measured against the reference.
func (r *FitResult) Assessed() bool {
	for _, m := range r.Models {
		if m.Follow != nil {
			return true
		}
	}
	return false
}

// Assessed reports whether any model had the items to be measured.
func (e *EchoResult) Assessed(opt EchoOptions) bool {
	for _, m := range e.Models {
		if m.Items >= opt.MinItems {
			return true
		}
	}
	return false
}

// Closest is the model echoed, else the assessed model with the largest δ;
// nil when none was assessed.
func (r *FitResult) Closest() *FitModel {
	if r == nil {
		return nil
	}
	var best *FitModel
	for i := range r.Models {
		m := &r.Models[i]
		if m.Follow == nil {
			continue
		}
		if m.Model == r.Echoes {
			return m
		}
		if best == nil || *m.Follow > *best.Follow {
			best = m
		}
	}
	return best
}

// tStat is δ / se, capped at ±10⁹ (an exact fit has se 0).
func tStat(delta, se float64) float64 {
	const cap = 1e9
	if se <= 0 || math.Abs(delta) >= cap*se {
		if delta > 0 {
			return cap
		}
		if delta < 0 {
			return -cap
		}
		return 0
	}
	return delta / se
}

func fitT(t float64) string {
	if t >= 1e9 {
		return "infinitely many (an exact copy)"
	}
	return fmt.Sprintf("%.1f", t)
}
