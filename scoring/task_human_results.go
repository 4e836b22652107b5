package scoring

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// HumanResult is a model's answer to one question of a human task — an
// item in a condition (likert), one of the two expert questions, one step
// of a context question, one rated output — with both option orders
// combined: the mean of the two orders' distributions. A question one of
// whose orders has no answer has no result, as in the True/False task.
type HumanResult struct {
	Item      string `json:"item_id"`
	Type      string `json:"item_type,omitempty"`
	Condition string `json:"condition"`
	// Dist is over the canonical options (likert: points 1…k).
	Dist []float64 `json:"dist"`
	// Number is the 1-based canonical option with the highest probability
	// (ties to the lower one), Label its name: the chosen point, yes/no,
	// sufficient/more, or the judgement.
	Number int    `json:"number"`
	Label  string `json:"label"`
	// Mean is Σ i·Dist[i-1], the expected point (likert and the five
	// ratings; for the binary tasks the expected option, 1–2).
	Mean float64 `json:"mean"`
	// ByOrder keeps each order's distribution.
	ByOrder map[Order][]float64 `json:"dist_by_order"`
	// NotAsked marks an expert's cancellation question that the form would
	// not have asked: the model judged the implicature implausible.
	NotAsked bool `json:"not_asked,omitempty"`
}

// AggregateHuman combines the two orders of every question of a human-task
// job. answers are keyed by prompt key; itemType names an item's type
// (or passage kind); order is the items' order. The expert form's
// condition is applied: a cancellation judged where the implicature was
// judged implausible is marked NotAsked and counts for no measure.
func AggregateHuman(task Task, points int, answers map[string]Answer, itemOrder []string, itemType map[string]string) []HumanResult {
	qs, byQ := groupByQuestion(answers, itemOrder)
	labels := OptionLabels(task, points)
	var out []HumanResult
	for _, k := range qs {
		f, r := byQ[k][Forward], byQ[k][Reversed]
		if len(f) == 0 || len(r) == 0 || len(f) != len(r) || len(f) != len(labels) {
			continue
		}
		d := make([]float64, len(f))
		mean := 0.0
		for i := range d {
			d[i] = (f[i] + r[i]) / 2
			mean += float64(i+1) * d[i]
		}
		n := argmax(d) + 1
		out = append(out, HumanResult{Item: k.item, Type: itemType[k.item], Condition: k.q, Dist: d, Number: n,
			Label: labels[n-1], Mean: mean, ByOrder: byQ[k]})
	}
	if task == Expert {
		markNotAsked(out)
	}
	return out
}

// humanQuestion is one question of one item, over both orders.
type humanQuestion struct{ item, q string }

// groupByQuestion gathers the answers' distributions by question and
// order, the questions in the items' order and then questionLess.
func groupByQuestion(answers map[string]Answer, itemOrder []string) ([]humanQuestion, map[humanQuestion]map[Order][]float64) {
	byQ := map[humanQuestion]map[Order][]float64{}
	var qs []humanQuestion
	for key, a := range answers {
		item, q, o, ok := SplitPromptKey(key)
		if !ok || len(a.Dist) == 0 {
			continue
		}
		k := humanQuestion{item, q}
		if byQ[k] == nil {
			byQ[k] = map[Order][]float64{}
			qs = append(qs, k)
		}
		byQ[k][o] = a.Dist
	}
	rank := map[string]int{}
	for i, it := range itemOrder {
		rank[it] = i
	}
	sort.Slice(qs, func(i, j int) bool {
		if qs[i].item != qs[j].item {
			return rank[qs[i].item] < rank[qs[j].item]
		}
		return questionLess(qs[i].q, qs[j].q)
	})
	return qs, byQ
}

// markNotAsked applies the expert form's condition: a cancellation is
// asked only where the implicature was judged plausible.
func markNotAsked(out []HumanResult) {
	plausible := map[string]bool{}
	for _, r := range out {
		if r.Condition == QPlausible {
			plausible[r.Item] = r.Label == "yes"
		}
	}
	for i := range out {
		if out[i].Condition == QCancellation && !plausible[out[i].Item] {
			out[i].NotAsked = true
		}
	}
}

// questionLess orders the questions of an item: conditions in their usual
// order, plausibility before cancellation, context steps by number,
// outputs by id.
func questionLess(a, b string) bool {
	ra, rb := questionRank(a), questionRank(b)
	if ra != rb {
		return ra < rb
	}
	return a < b
}

func questionRank(q string) int {
	for i, c := range Conditions {
		if string(c) == q {
			return i
		}
	}
	switch q {
	case QPlausible:
		return 0
	case QCancellation:
		return 1
	}
	for _, p := range []string{"step-", "output-"} {
		if n, err := strconv.Atoi(strings.TrimPrefix(q, p)); err == nil && strings.HasPrefix(q, p) {
			return n
		}
	}
	return math.MaxInt32
}

// HumanOrderBias is how much a human-task answer depends on the order of
// the options: over every question answered in both orders, the mean of
// |E_fwd − E_rev| / (k − 1), E being the expected canonical option. For
// two options it is |P(first | forward) − P(first | reversed)|, the
// True/False task's measure; 0 means the order does not matter, 1 that
// the model always picks the same place.
func HumanOrderBias(rs []HumanResult) (mean, maxDiff float64, n int) {
	sum := 0.0
	for _, r := range rs {
		f, b := r.ByOrder[Forward], r.ByOrder[Reversed]
		k := len(f)
		if k < 2 || len(b) != k {
			continue
		}
		ef, eb := 0.0, 0.0
		for i := range f {
			ef += float64(i+1) * f[i]
			eb += float64(i+1) * b[i]
		}
		d := math.Abs(ef-eb) / float64(k-1)
		sum += d
		maxDiff = max(maxDiff, d)
		n++
	}
	if n > 0 {
		mean = sum / float64(n)
	}
	return mean, maxDiff, n
}

// ContextNeeded is a model's answer to each whole context question under
// the survey's rule: the number of preceding sentences at the first step
// it judges sufficient, or −1 when it judged every step up to the last
// one asked (lastStep) "more context needed". A question with a step
// missing before the decisive one has no answer.
func ContextNeeded(rs []HumanResult, lastStep map[string]int) map[string]int {
	steps := map[string]map[int]string{}
	for _, r := range rs {
		n, err := strconv.Atoi(strings.TrimPrefix(r.Condition, "step-"))
		if err != nil {
			continue
		}
		if steps[r.Item] == nil {
			steps[r.Item] = map[int]string{}
		}
		steps[r.Item][n] = r.Label
	}
	out := map[string]int{}
	for item, s := range steps {
		last, known := lastStep[item]
		for n := 0; ; n++ {
			l, ok := s[n]
			if !ok {
				break
			}
			if l == "sufficient" {
				out[item] = n
				break
			}
			if known && n == last {
				out[item] = -1
				break
			}
		}
	}
	return out
}

// HumanMetrics summarise a human-task job (docs/scoring.md#the-humans-own-questions).
type HumanMetrics struct {
	// Questions counts the questions with a result (both orders).
	Questions int `json:"questions"`
	// Counts is how many questions chose each canonical option, per
	// question kind (condition, expert question, "all").
	Counts map[string][]int `json:"counts"`
	// MeanRating is the mean expected point per condition (likert) or of
	// all outputs (explanation-rating).
	MeanRating map[string]float64 `json:"mean_rating,omitempty"`
	// CancellationRecognition (likert): the share of items rated lower
	// with the cancellation than without.
	CancellationRecognition *Share `json:"cancellation_recognition,omitempty"`
	// Plausible and CancellationCorrect (expert): the shares of items
	// judged plausible, and of those whose cancellation is judged correct.
	Plausible           *Share `json:"plausible,omitempty"`
	CancellationCorrect *Share `json:"cancellation_correct,omitempty"`
	// Needed (context): how many questions the model found sufficient with
	// 0, 1, … preceding sentences; the key "not_sufficient" counts those
	// sufficient at no step.
	Needed map[string]int `json:"needed,omitempty"`
	// OrderBias as HumanOrderBias.
	OrderBias OrderBiasSummary `json:"order_bias"`
}

// OrderBiasSummary is HumanOrderBias for JSON.
type OrderBiasSummary struct {
	Mean *float64 `json:"mean_abs_difference"`
	Max  *float64 `json:"max_abs_difference"`
	N    int      `json:"n"`
}

// ComputeHuman computes a human-task job's metrics from its results.
//
// lastStep gives each context question's last step asked (nil for the
// other tasks).
func ComputeHuman(task Task, points int, rs []HumanResult, lastStep map[string]int) HumanMetrics {
	k := len(OptionLabels(task, points))
	m := HumanMetrics{Counts: map[string][]int{}}
	count := func(q string, n int) {
		if m.Counts[q] == nil {
			m.Counts[q] = make([]int, k)
		}
		m.Counts[q][n-1]++
	}
	sums, ns := map[string]float64{}, map[string]int{}
	byItem := map[string]map[string]HumanResult{}
	for _, r := range rs {
		if r.NotAsked {
			continue
		}
		m.Questions++
		q := r.Condition
		if task == ContextTask || task == ExplanationRating {
			q = AllTypes
		}
		count(q, r.Number)
		if task == Likert || task == ExplanationRating {
			sums[q] += r.Mean
			ns[q]++
		}
		if byItem[r.Item] == nil {
			byItem[r.Item] = map[string]HumanResult{}
		}
		byItem[r.Item][r.Condition] = r
	}
	if len(sums) > 0 {
		m.MeanRating = map[string]float64{}
		for q, s := range sums {
			m.MeanRating[q] = s / float64(ns[q])
		}
	}
	switch task {
	case Likert:
		// Only items asked with and without the cancellation have it: a
		// judgement study's own conditions are not trigger and cancel.
		if s := cancellationRecognition(byItem); s.N > 0 {
			m.CancellationRecognition = s
		}
	case Expert:
		m.Plausible, m.CancellationCorrect = expertShares(byItem)
	case ContextTask:
		m.Needed = neededCounts(rs, lastStep)
	}
	mean, mx, n := HumanOrderBias(rs)
	m.OrderBias.N = n
	if n > 0 {
		m.OrderBias.Mean, m.OrderBias.Max = &mean, &mx
	}
	return m
}

// cancellationRecognition (likert) is the share of items rated lower with
// the cancellation than without, over the items with both.
func cancellationRecognition(byItem map[string]map[string]HumanResult) *Share {
	var s Share
	for _, qs := range byItem {
		t, ok1 := qs[string(Trigger)]
		c, ok2 := qs[string(Cancel)]
		if ok1 && ok2 {
			s.add(c.Mean < t.Mean)
		}
	}
	return &s
}

// expertShares (expert) are the shares of items judged plausible and of
// those whose cancellation is judged correct.
func expertShares(byItem map[string]map[string]HumanResult) (plausible, cancellation *Share) {
	var p, c Share
	for _, qs := range byItem {
		if r, ok := qs[QPlausible]; ok {
			p.add(r.Label == "yes")
		}
		if r, ok := qs[QCancellation]; ok {
			c.add(r.Label == "yes")
		}
	}
	return &p, &c
}

// neededCounts (context) counts the questions by the number of sentences
// the model needed, "not_sufficient" for those sufficient at no step.
func neededCounts(rs []HumanResult, lastStep map[string]int) map[string]int {
	needed := map[string]int{}
	for _, n := range ContextNeeded(rs, lastStep) {
		if n < 0 {
			needed["not_sufficient"]++
		} else {
			needed[strconv.Itoa(n)]++
		}
	}
	return needed
}
