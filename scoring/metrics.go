package scoring

import (
	"encoding/json"
	"pragmalab/domain"
	"sort"
)

// Share is a proportion hits/n; with n = 0 it has no value and marshals to
// JSON null (as the human toplines do for measures that cannot be computed).
type Share struct {
	Hits int
	N    int
}

// Value returns hits/n, and false when n is 0.
func (s Share) Value() (float64, bool) {
	if s.N == 0 {
		return 0, false
	}
	return float64(s.Hits) / float64(s.N), true
}

// MarshalJSON writes the share as a number, or null when it has no value.
func (s Share) MarshalJSON() ([]byte, error) {
	if v, ok := s.Value(); ok {
		return json.Marshal(v)
	}
	return []byte("null"), nil
}

func (s *Share) add(hit bool) {
	s.N++
	if hit {
		s.Hits++
	}
}

// TFItemResult is a model's P(b) for one item in each condition it has, the
// mean over the two option orders. A condition is absent when either order
// has no answer (an error kept with its prompt).
type TFItemResult struct {
	Key  string                `json:"item_id"`
	Type string                `json:"item_type"`
	P    map[Condition]float64 `json:"p"`
	// ByOrder keeps P(True) of each order for inspection and export.
	ByOrder map[Condition]map[Order]float64 `json:"p_by_order"`
}

// AggregateTF averages each item's two option orders. answers is keyed by
// prompt key (TFPromptKey).
func AggregateTF(items []TFItem, answers map[string]Answer) []TFItemResult {
	out := make([]TFItemResult, 0, len(items))
	for _, it := range items {
		r := TFItemResult{Key: it.Key, Type: it.Type, P: map[Condition]float64{}, ByOrder: map[Condition]map[Order]float64{}}
		for _, c := range Conditions {
			sum, n := 0.0, 0
			for _, o := range Orders {
				if a, ok := answers[TFPromptKey(it.Key, c, o)]; ok {
					if r.ByOrder[c] == nil {
						r.ByOrder[c] = map[Order]float64{}
					}
					r.ByOrder[c][o] = a.PTrue
					sum += a.PTrue
					n++
				}
			}
			if n == len(Orders) {
				r.P[c] = sum / float64(n)
			}
		}
		out = append(out, r)
	}
	return out
}

// TFMetrics are the True/False measures of docs/scoring.md#truefalse-metrics
// for one item type (or all).
//
//   - implicature recognition: P(b|c,u) > 0.5
//   - cancellation recognition: P(b|c,u) > P(b|c,u,u×)
//   - belief update: both of the above
//   - prior control: P(b|c,u) > P(b|∅,∅) — the belief owes something to
//     the context and utterance, not only to what the model believed
//     beforehand (the papers' prior control asks b with no c and no u; an
//     implicature is recognised *as an implicature* only when the utterance
//     raises it above that prior)
//   - negation cancellation: P(b|c,u) > P(b|c,u,u⊥), the cancellation
//     measure with the explicit-negation follow-up
//   - strengthening: P(b|c,u,u+) > P(b|c,u)
//   - unchanged: P(b|c,u,u≈) > 0.5 ⇔ P(b|c,u) > 0.5
//
// Each measure counts only the items having the conditions it compares; N
// gives those counts per measure. MeanP is the mean P(b) per condition.
type TFMetrics struct {
	Items                   int                   `json:"items"`
	ImplicatureRecognition  Share                 `json:"implicature_recognition"`
	CancellationRecognition Share                 `json:"cancellation_recognition"`
	BeliefUpdate            Share                 `json:"belief_update"`
	PriorControl            Share                 `json:"prior_control"`
	NegationCancellation    Share                 `json:"negation_cancellation"`
	Strengthening           Share                 `json:"strengthening"`
	Unchanged               Share                 `json:"unchanged"`
	N                       map[string]int        `json:"n"`
	MeanP                   map[Condition]float64 `json:"mean_p"`
}

// AllTypes is the key of the all-items row of a per-type table.
const AllTypes = "all"

// ComputeTF computes TFMetrics per item type and for all items (key "all").
func ComputeTF(results []TFItemResult) map[string]TFMetrics {
	groups := map[string][]TFItemResult{}
	for _, r := range results {
		groups[r.Type] = append(groups[r.Type], r)
		groups[AllTypes] = append(groups[AllTypes], r)
	}
	out := make(map[string]TFMetrics, len(groups))
	for t, rs := range groups {
		out[t] = tfMetrics(rs)
	}
	return out
}

// tfMeasureOther names, per True/False measure, the condition compared
// with the trigger ("" for implicature recognition, the trigger alone).
var tfMeasureOther = map[string]Condition{
	"implicature_recognition": "", "cancellation_recognition": Cancel, "belief_update": Cancel,
	"prior_control": Prior, "negation_cancellation": Negation, "strengthening": Strengthen, "unchanged": Neutral,
}

// ItemHit is one item's verdict on a True/False measure (by its JSON key;
// docs/scoring.md#truefalse-metrics); ok is false when the item lacks a
// condition the measure compares, or the measure is unknown. ComputeTF
// counts these verdicts, and the comparison with the humans reads them per
// item.
func ItemHit(r TFItemResult, measure string) (hit, ok bool) {
	other, known := tfMeasureOther[measure]
	t, hasT := r.P[Trigger]
	if !known || !hasT {
		return false, false
	}
	if other == "" {
		return t > 0.5, true
	}
	x, ok := r.P[other]
	if !ok {
		return false, false
	}
	switch measure {
	case "belief_update":
		return t > 0.5 && t > x, true
	case "strengthening":
		return x > t, true
	case "unchanged":
		return (x > 0.5) == (t > 0.5), true
	}
	return t > x, true // cancellation, prior control, negation
}

func tfMetrics(rs []TFItemResult) TFMetrics {
	m := TFMetrics{Items: len(rs), MeanP: map[Condition]float64{}}
	shares := map[string]*Share{
		"implicature_recognition": &m.ImplicatureRecognition, "cancellation_recognition": &m.CancellationRecognition,
		"belief_update": &m.BeliefUpdate, "prior_control": &m.PriorControl, "negation_cancellation": &m.NegationCancellation,
		"strengthening": &m.Strengthening, "unchanged": &m.Unchanged,
	}
	sums, counts := map[Condition]float64{}, map[Condition]int{}
	for _, r := range rs {
		for c, p := range r.P {
			sums[c] += p
			counts[c]++
		}
		for k, sh := range shares {
			if hit, ok := ItemHit(r, k); ok {
				sh.add(hit)
			}
		}
	}
	for c, s := range sums {
		m.MeanP[c] = s / float64(counts[c])
	}
	m.N = map[string]int{
		"implicature_recognition":  m.ImplicatureRecognition.N,
		"cancellation_recognition": m.CancellationRecognition.N,
		"belief_update":            m.BeliefUpdate.N,
		"prior_control":            m.PriorControl.N,
		"negation_cancellation":    m.NegationCancellation.N,
		"strengthening":            m.Strengthening.N,
		"unchanged":                m.Unchanged.N,
	}
	return m
}

// SortedTypes returns the keys of a per-type table in the papers' order
// (scalar, discourse, synthetic, natural), other types after, "all" last.
func SortedTypes[V any](m map[string]V) []string {
	rank := map[string]int{AllTypes: 100}
	for i, t := range domain.TableTypes {
		rank[t] = i
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, iok := rank[keys[i]]
		rj, jok := rank[keys[j]]
		if !iok {
			ri = 50
		}
		if !jok {
			rj = 50
		}
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// MCPromptKey is the key of an item's multiple-choice prompt.
func MCPromptKey(item string) string { return item + "|mc" }

// MCItemResult is one multiple-choice answer beside its gold letter.
type MCItemResult struct {
	Key       string `json:"item_id"`
	Kind      string `json:"kind"`
	Topic     int    `json:"topic"`
	Gold      string `json:"gold"`
	Predicted string `json:"predicted"`
	Correct   bool   `json:"correct"`
}

// MCMetrics are the measures of docs/scoring.md#multiple-choice-metrics.
// Confusion is gold (rows A–D) × predicted (columns A–D, then X for
// refusals). Hard negatives are items whose distractors share the gold
// topic (topic ≠ −1), easy negatives those drawn from the residual cluster
// (topic = −1).
type MCMetrics struct {
	Items         int       `json:"items"`
	Accuracy      Share     `json:"accuracy"`
	HardNegatives Share     `json:"hard_negatives"`
	EasyNegatives Share     `json:"easy_negatives"`
	Refusals      int       `json:"refusals"`
	Confusion     [4][5]int `json:"confusion"`
}

// ConfusionColumns labels the columns of MCMetrics.Confusion.
var ConfusionColumns = [5]string{"A", "B", "C", "D", Refusal}

// AggregateMC pairs each answered multiple-choice item with its gold
// letter; items without an answer (or without options) are left out.
func AggregateMC(items []MCItem, answers map[string]Answer) []MCItemResult {
	var out []MCItemResult
	for _, it := range items {
		a, ok := answers[MCPromptKey(it.Key)]
		if !ok || !it.HasOptions() {
			continue
		}
		pred := a.Letter
		if !validLetter(pred) {
			pred = Refusal
		}
		out = append(out, MCItemResult{Key: it.Key, Kind: it.Kind, Topic: it.Topic, Gold: it.Answer, Predicted: pred, Correct: pred == it.Answer})
	}
	return out
}

// ComputeMC computes MCMetrics per passage kind and for all items ("all").
func ComputeMC(results []MCItemResult) map[string]MCMetrics {
	out := map[string]MCMetrics{AllTypes: {}}
	for _, r := range results {
		keys := []string{AllTypes}
		if r.Kind != "" && r.Kind != AllTypes {
			keys = append(keys, r.Kind)
		}
		for _, k := range keys {
			m := out[k]
			m.Items++
			m.Accuracy.add(r.Correct)
			if r.Topic == -1 {
				m.EasyNegatives.add(r.Correct)
			} else {
				m.HardNegatives.add(r.Correct)
			}
			col := 4
			if r.Predicted != Refusal {
				col = letterIndex(r.Predicted)
			} else {
				m.Refusals++
			}
			m.Confusion[letterIndex(r.Gold)][col]++
			out[k] = m
		}
	}
	return out
}

func letterIndex(l string) int {
	for i, x := range letters {
		if x == l {
			return i
		}
	}
	return 0
}
