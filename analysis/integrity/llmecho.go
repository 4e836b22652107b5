// Package integrity asks whether a participant answered like a language
// model or a machine: LLM-echo and the integrity flags.
package integrity

import (
	"fmt"
	"math"
	"pragmalab/analysis"
)

// LLM-echo: Correlated Agreement with a model, after Potato's
// potato/server_utils/cheating_detection.py (llm_echo_signal), adapted to
// Likert ratings. Definition, thresholds and the simulation that set them
// in docs/statistics.md#llm-echo.

// EchoRating is one data rating of a participant (attention checks left
// out by the caller).
type EchoRating struct {
	Participant, Item, Condition string
	Rating                       int
}

// ModelAnswer is one model's rating of an item; an empty Condition
// answers the item in every condition. Line is its line in the models
// file (0 when not read from one).
type ModelAnswer struct {
	Model, Item, Condition string
	Rating                 int
	Line                   int
	// Dist is the model's distribution over the points (p_1 … p_k of a
	// likert job's results), nil when the file gives only the answer.
	Dist []float64
}

// EchoOptions are the thresholds of the LLM-echo flag.
type EchoOptions struct {
	// Points is the scale's number of points (7): a model answer at 1 or
	// Points leaves only one way to differ from it, so such items say
	// nothing about the direction of a difference and are left out of it.
	Points int `json:"points"`
	// MinItems: a participant is assessed against a model only on at
	// least this many items both rated that another human rated too.
	MinItems int `json:"min_items"`
	// MinGap: the agreement with the model must exceed the agreement with
	// the other humans by at least this much.
	MinGap float64 `json:"min_gap"`
	// MinExcess: and exceed the other humans' own agreement with the model
	// on the same items by at least this much, so that a model that
	// predicts people well (better than one noisy person predicts another)
	// does not make every honest participant look like its echo.
	MinExcess float64 `json:"min_excess"`
	// Alpha: the divergences count as independent signal (no echo) when
	// the exact permutation test puts their agreement with the other
	// humans above chance at this level.
	Alpha float64 `json:"alpha"`
}

// DefaultEchoOptions are the thresholds docs/statistics.md#llm-echo
// justifies by simulation.
func DefaultEchoOptions() EchoOptions {
	return EchoOptions{Points: 7, MinItems: 10, MinGap: 0.15, MinExcess: 0.25, Alpha: 0.01}
}

// Validate checks the options; the message names the option.
func (o EchoOptions) Validate() error {
	switch {
	case o.Points < 2 || o.Points > 11:
		return fmt.Errorf("points must be 2–11, got %d", o.Points)
	case o.MinItems < 1:
		return fmt.Errorf("min-items must be at least 1, got %d", o.MinItems)
	case !(o.MinGap > 0 && o.MinGap < 1):
		return fmt.Errorf("min-gap must be above 0 and below 1, got %g", o.MinGap)
	case !(o.MinExcess > 0 && o.MinExcess < 1):
		return fmt.Errorf("min-excess must be above 0 and below 1, got %g", o.MinExcess)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("alpha must be above 0 and below 1, got %g", o.Alpha)
	}
	return nil
}

// EchoModel is one participant measured against one model.
type EchoModel struct {
	Model string `json:"model"`
	// Items the participant and the model both rated, with at least one
	// other human's rating.
	Items int `json:"items"`
	// AgreeModel is the share of those items rated exactly as the model;
	// AgreeHumans the mean over them of the share of the other humans
	// giving exactly the participant's rating; Gap the difference.
	// OthersAgreeModel is the mean over the same items of the share of the
	// other humans rating exactly as the model, Excess AgreeModel minus it.
	AgreeModel       float64 `json:"agree_model"`
	AgreeHumans      float64 `json:"agree_humans"`
	Gap              float64 `json:"gap"`
	OthersAgreeModel float64 `json:"others_agree_model"`
	Excess           float64 `json:"excess"`
	// Divergent counts the items where the participant differs from a
	// model answer inside the scale (not at an end), Pairs the (item,
	// other human) pairs on them where that human differs from the model
	// too. AgreeDivergent is the share of those pairs differing in the same
	// direction, ChanceDivergent its expectation from the two sides'
	// marginals (the permutation mean), PValue the exact one-sided
	// permutation p-value; all three null with no pair.
	Divergent       int      `json:"divergent_items"`
	Pairs           int      `json:"divergent_pairs"`
	AgreeDivergent  *float64 `json:"agree_divergent"`
	ChanceDivergent *float64 `json:"chance_divergent"`
	PValue          *float64 `json:"p_value"`
	Flagged         bool     `json:"flagged"`
}

// EchoResult is one participant's LLM-echo assessment against every model.
type EchoResult struct {
	Participant string      `json:"participant_id"`
	Models      []EchoModel `json:"models"`
	Flagged     bool        `json:"flagged"`
	// Echoes is the flagged model with the largest gap ("" when none).
	Echoes string `json:"echoes"`
	// Reason says why in one sentence: the flag's evidence, or why the
	// participant was not assessed.
	Reason string `json:"reason"`
}

// echoKey is an (item, condition) pair.
type echoKey struct{ item, cond string }

// echoData indexes the ratings: each (item, condition)'s raters and each
// participant's ratings, in first-seen order.
type echoData struct {
	byKey        map[echoKey]map[string]int
	participants []string
	ratings      map[string][]EchoRating
}

func indexEcho(ratings []EchoRating) echoData {
	d := echoData{byKey: map[echoKey]map[string]int{}, ratings: map[string][]EchoRating{}}
	for _, r := range ratings {
		k := echoKey{r.Item, r.Condition}
		if d.byKey[k] == nil {
			d.byKey[k] = map[string]int{}
		}
		d.byKey[k][r.Participant] = r.Rating
		if _, ok := d.ratings[r.Participant]; !ok {
			d.participants = append(d.participants, r.Participant)
		}
		d.ratings[r.Participant] = append(d.ratings[r.Participant], r)
	}
	return d
}

// modelIndex is one model's answers by (item, condition), each as the
// rule reads it (the pool rule its rating, the reference rule its point);
// condition "" answers every condition of the item.
type modelIndex[V any] struct {
	name    string
	answers map[echoKey]V
}

func (m modelIndex[V]) answer(k echoKey) (V, bool) {
	if v, ok := m.answers[k]; ok {
		return v, true
	}
	v, ok := m.answers[echoKey{k.item, ""}]
	return v, ok
}

// indexModels groups answers by model, in the order first named, each
// answer as value reads it.
func indexModels[V any](answers []ModelAnswer, value func(ModelAnswer) V) []modelIndex[V] {
	var out []modelIndex[V]
	pos := map[string]int{}
	for _, a := range answers {
		i, ok := pos[a.Model]
		if !ok {
			i = len(out)
			pos[a.Model] = i
			out = append(out, modelIndex[V]{name: a.Model, answers: map[echoKey]V{}})
		}
		out[i].answers[echoKey{a.Item, a.Condition}] = value(a)
	}
	return out
}

// rating is the answer as the pool rule reads it.
func (a ModelAnswer) rating() int { return a.Rating }

// assess is the frame both LLM-echo rules share: every participant of d,
// in the order the ratings first name them, is measured against each of
// n models, and summed up by result.
func assess[M, R any](d echoData, n int, measure func(p string, model int) M, result func(p string, ms []M) R) []R {
	out := make([]R, 0, len(d.participants))
	for _, p := range d.participants {
		var ms []M
		for i := range n {
			ms = append(ms, measure(p, i))
		}
		out = append(out, result(p, ms))
	}
	return out
}

// ModelsMatchingNothing returns the models none of whose answers is an
// (item, condition) of the ratings, in the order first named: such a
// model is usually a wrong file or mistyped ids.
func ModelsMatchingNothing(ratings []EchoRating, answers []ModelAnswer) []string {
	d := indexEcho(ratings)
	items := map[string]bool{}
	for k := range d.byKey {
		items[k.item] = true
	}
	var out []string
	for _, m := range indexModels(answers, ModelAnswer.rating) {
		hit := false
		for k := range m.answers {
			if (k.cond == "" && items[k.item]) || d.byKey[k] != nil {
				hit = true
				break
			}
		}
		if !hit {
			out = append(out, m.name)
		}
	}
	return out
}

// LLMEcho assesses every participant of ratings against every model of
// answers (docs/statistics.md#llm-echo). Participants come in the order
// the ratings first name them. A participant is flagged for a model when
// (1) they agree with its answers at least MinGap more than with the other
// humans and (2) on the items where they differ from it, the direction of
// their difference agrees with the other humans' no more than chance: the
// exact permutation test does not reject chance at Alpha (or there is no
// such item to test, as for a perfect copy).
func LLMEcho(ratings []EchoRating, answers []ModelAnswer, opt EchoOptions) []EchoResult {
	d := indexEcho(ratings)
	models := indexModels(answers, ModelAnswer.rating)
	return assess(d, len(models),
		func(p string, i int) EchoModel { return echoAgainst(d, p, models[i], opt) },
		func(p string, ms []EchoModel) EchoResult {
			res := EchoResult{Participant: p, Models: ms}
			res.decide(opt)
			return res
		})
}

// decide sets the flag, the echoed model and the reason.
func (res *EchoResult) decide(opt EchoOptions) {
	var best *EchoModel
	assessed := 0
	for i := range res.Models {
		m := &res.Models[i]
		if m.Items >= opt.MinItems {
			assessed++
		}
		if m.Flagged && (best == nil || m.Gap > best.Gap) {
			best = m
		}
	}
	switch {
	case best != nil:
		res.Flagged, res.Echoes = true, best.Model
		res.Reason = fmt.Sprintf("agrees with %s on %.0f%% of %d items against %.0f%% with the other humans, %s",
			best.Model, 100*best.AgreeModel, best.Items, 100*best.AgreeHumans, divergenceText(best))
	case assessed == 0:
		res.Reason = fmt.Sprintf("not assessed: fewer than %d items rated by a model and another human", opt.MinItems)
	default:
		res.Reason = "no model's answers explain the ratings better than the other humans' do"
	}
}

func divergenceText(m *EchoModel) string {
	if m.PValue == nil {
		return "and never differs from it where a difference could be compared with the humans"
	}
	return fmt.Sprintf("and where it differs, goes the humans' way %.0f%% of the time against %.0f%% by chance (p = %.2f)",
		100**m.AgreeDivergent, 100**m.ChanceDivergent, *m.PValue)
}

// echoAgainst measures participant p against model m.
func echoAgainst(d echoData, p string, m modelIndex[int], opt EchoOptions) EchoModel {
	res := EchoModel{Model: m.name}
	var agreeModel, agreeHumans, othersModel float64
	var div []divergence
	for _, r := range d.ratings[p] {
		k := echoKey{r.Item, r.Condition}
		mv, ok := m.answer(k)
		raters := d.byKey[k]
		if !ok || len(raters) < 2 {
			continue
		}
		res.Items++
		if r.Rating == mv {
			agreeModel++
		}
		same, onModel, dv := othersOn(raters, p, r.Rating, mv)
		agreeHumans += same
		othersModel += onModel
		if r.Rating != mv && mv > 1 && mv < opt.Points {
			dv.up = r.Rating > mv
			div = append(div, dv)
		}
	}
	if res.Items == 0 {
		return res
	}
	n := float64(res.Items)
	res.AgreeModel, res.AgreeHumans, res.OthersAgreeModel = agreeModel/n, agreeHumans/n, othersModel/n
	res.Gap = res.AgreeModel - res.AgreeHumans
	res.Excess = res.AgreeModel - res.OthersAgreeModel
	res.Divergent = len(div)
	res.divergence(div)
	// Thresholds within EchoTolerance: "at least 0.25" holds at 0.25
	// whatever the rounding of the shares' arithmetic.
	res.Flagged = res.Items >= opt.MinItems && atLeast(res.Gap, opt.MinGap) && atLeast(res.Excess, opt.MinExcess) &&
		(res.PValue == nil || *res.PValue > opt.Alpha+EchoTolerance)
	return res
}

// othersOn describes the humans other than p on one item: the share giving
// p's rating x, the share giving the model's answer mv, and how many are
// on each side of it.
func othersOn(raters map[string]int, p string, x, mv int) (same, onModel float64, dv divergence) {
	for q, y := range raters {
		if q == p {
			continue
		}
		if y == x {
			same++
		}
		switch {
		case y == mv:
			onModel++
		case y > mv:
			dv.above++
		default:
			dv.below++
		}
	}
	n := float64(len(raters) - 1)
	return same / n, onModel / n, dv
}

// divergence is one item where the participant differs from the model:
// up is their side of it, above and below count the other humans on each
// side.
type divergence struct {
	up           bool
	above, below int
}

// divergence fills the agreement of the participant's directions of
// difference with the other humans' and its exact permutation test: under
// chance the participant's ups are spread over their divergent items at
// random, keeping how many there are (the marginals of both sides).
func (res *EchoModel) divergence(div []divergence) {
	pairs, agree, ups := 0, 0, 0
	w := make([]int, len(div))
	for i, dv := range div {
		pairs += dv.above + dv.below
		w[i] = dv.above - dv.below
		if dv.up {
			agree += dv.above
			ups++
		} else {
			agree += dv.below
		}
	}
	res.Pairs = pairs
	if pairs == 0 {
		return
	}
	// agree = Σ_below + Σ_{ups} w_i: the statistic is the sum of w over a
	// random subset of ups items.
	base := agree
	for i := range div {
		if div[i].up {
			base -= w[i]
		}
	}
	mean, p := permutationTail(w, ups, agree-base)
	r := float64(agree) / float64(pairs)
	c := (float64(base) + mean) / float64(pairs)
	res.AgreeDivergent, res.ChanceDivergent, res.PValue = &r, &c, &p
}

// exactCells bounds the exact permutation recursion (its table of
// chosen-count × sum cells); beyond it, as only with hundreds of humans
// per item, the normal approximation is used.
const exactCells = 1 << 22

// permutationTail returns, for S the sum of w over a subset of k of its
// elements drawn uniformly at random, E[S] and P(S ≥ obs): exactly, by a
// recursion over the elements in the probabilities of sequential sampling
// without replacement (nothing overflows however many items), or, past
// exactCells, by the normal approximation with the finite-population
// variance and a continuity correction.
func permutationTail(w []int, k, obs int) (mean, tail float64) {
	n := len(w)
	lo, hi := 0, 0
	for _, v := range w {
		lo += min(v, 0)
		hi += max(v, 0)
	}
	width := hi - lo + 1
	if (k+1)*width > exactCells {
		return normalTail(w, k, obs)
	}
	// prob[j][s-lo]: P(j chosen among the elements seen, sum s).
	prob := make([][]float64, k+1)
	for j := range prob {
		prob[j] = make([]float64, width)
	}
	prob[0][-lo] = 1
	for i, v := range w {
		for j := min(i, k); j >= 0; j-- {
			// Among the n−i elements left, k−j must still be chosen.
			pick := float64(k-j) / float64(n-i)
			row := prob[j]
			for s, q := range row {
				if q == 0 {
					continue
				}
				if pick > 0 {
					prob[j+1][s+v] += q * pick
				}
				row[s] = q * (1 - pick)
			}
		}
	}
	for s, q := range prob[k] {
		sum := s + lo
		mean += q * float64(sum)
		if sum >= obs {
			tail += q
		}
	}
	return mean, math.Min(1, tail)
}

// normalTail is permutationTail's normal approximation: E[S] = k·w̄ and
// Var S = k·σ²·(n − k)/(n − 1), σ² the population variance of w.
func normalTail(w []int, k, obs int) (mean, tail float64) {
	n := float64(len(w))
	var sum, ss float64
	for _, v := range w {
		sum += float64(v)
	}
	bar := sum / n
	for _, v := range w {
		ss += (float64(v) - bar) * (float64(v) - bar)
	}
	mean = float64(k) * bar
	sd := 0.0
	if len(w) > 1 {
		sd = math.Sqrt(float64(k) * ss / n * (n - float64(k)) / (n - 1))
	}
	if sd == 0 { // S is the same for every subset
		if float64(obs) <= mean {
			return mean, 1
		}
		return mean, 0
	}
	return mean, 1 - analysis.NormCDF((float64(obs)-0.5-mean)/sd)
}
