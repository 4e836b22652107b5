package modelhuman

import (
	"fmt"
	"math"
	"pragmalab/analysis"
	"slices"
)

// ExpertReplacement is ΔA for a model among expert annotators: how
// Krippendorff's α of the experts changes when the model's judgements
// replace one expert's, each expert in turn
// (docs/statistics.md#expert-replacement).
type ExpertReplacement struct {
	Metric string   `json:"metric"`
	Units  int      `json:"units"`
	Alpha  *float64 `json:"alpha_experts"`
	// PerExpert is α with the model in place of each expert and the change.
	PerExpert []ReplacedExpert `json:"per_expert"`
	// DeltaA is the mean change over the experts, with its 95 % percentile
	// bootstrap interval over units.
	DeltaA   *float64     `json:"delta_a"`
	DeltaACI *analysis.CI `json:"delta_a_ci95"`
}

// ReplacedExpert is α with the model in one expert's place.
type ReplacedExpert struct {
	Expert  string   `json:"expert"`
	Alpha   *float64 `json:"alpha"`
	DeltaA  *float64 `json:"delta_a"`
	Replace int      `json:"units_replaced"`
}

var metricNames = map[analysis.Metric]string{analysis.Nominal: "nominal", analysis.Ordinal: "ordinal", analysis.Interval: "interval"}

// ComputeExpertReplacement computes ΔA from data[expert][unit] (NaN where
// an expert did not judge a unit) and the model's judgement per unit (NaN
// where it gave none). The model takes the expert's place on the units the
// expert judged. Values are categories (sorted numerically for the
// ordinal and interval metrics).
func ComputeExpertReplacement(experts []string, data [][]float64, model []float64, m analysis.Metric, bs analysis.Bootstrap) (*ExpertReplacement, error) {
	if len(experts) < 2 || len(data) != len(experts) {
		return nil, fmt.Errorf("expert replacement: at least 2 experts, one row of judgements each")
	}
	n := len(model)
	for e, row := range data {
		if len(row) != n {
			return nil, fmt.Errorf("expert replacement: expert %q has %d units, the model %d", experts[e], len(row), n)
		}
	}
	vals := judgedValues(append(slices.Clone(data), model))
	base := unitCounts(data, n, vals)
	res := &ExpertReplacement{Metric: metricNames[m], Units: n}
	if a, ok := analysis.KrippendorffAlpha(base, m, vals); ok {
		res.Alpha = &a
	}
	var reps [][][]int
	for e := range experts {
		rows, k := replaceExpert(data, e, model)
		c := unitCounts(rows, n, vals)
		reps = append(reps, c)
		re := ReplacedExpert{Expert: experts[e], Replace: k}
		if a, ok := analysis.KrippendorffAlpha(c, m, vals); ok {
			re.Alpha = &a
			if res.Alpha != nil {
				re.DeltaA = analysis.Num(a - *res.Alpha)
			}
		}
		res.PerExpert = append(res.PerExpert, re)
	}
	delta := func(w []int32) float64 { return meanDeltaAlpha(base, reps, w, m, vals) }
	res.DeltaA = analysis.Num(delta(nil))
	if B := bs.Replicates; B > 0 && res.DeltaA != nil && n > 1 {
		rng := analysis.NewRand(bs.Seed)
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		w := make([]int32, n)
		vs := make([]float64, B)
		for b := range B {
			analysis.DrawStrata(rng, [][]int{all}, w)
			vs[b] = delta(w)
		}
		res.DeltaACI = analysis.WithPoint(analysis.PercentileCI(res.DeltaA, vs), res.DeltaA)
	}
	return res, nil
}

// judgedValues are the distinct values judged in rows, sorted.
func judgedValues(rows [][]float64) []float64 {
	var vals []float64
	for _, row := range rows {
		for _, v := range row {
			if !math.IsNaN(v) && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	slices.Sort(vals)
	return vals
}

// unitCounts counts, for each of the n units, the judgements of rows per
// value of vals.
func unitCounts(rows [][]float64, n int, vals []float64) [][]int {
	c := make([][]int, n)
	for u := range c {
		c[u] = make([]int, len(vals))
		for _, row := range rows {
			if v := row[u]; !math.IsNaN(v) {
				c[u][slices.Index(vals, v)]++
			}
		}
	}
	return c
}

// replaceExpert puts the model in expert e's place on the units e judged;
// k counts those the model judged too.
func replaceExpert(data [][]float64, e int, model []float64) (rows [][]float64, k int) {
	rows = slices.Clone(data)
	swapped := make([]float64, len(model))
	for u := range model {
		swapped[u] = math.NaN()
		if !math.IsNaN(data[e][u]) {
			swapped[u] = model[u]
			if !math.IsNaN(model[u]) {
				k++
			}
		}
	}
	rows[e] = swapped
	return rows, k
}

// meanDeltaAlpha is ΔA with the units weighted by w (nil: once each): the
// mean over the replacements of their α less the experts' own; NaN when
// an α is undefined.
func meanDeltaAlpha(base [][]int, reps [][][]int, w []int32, m analysis.Metric, vals []float64) float64 {
	a0, ok := analysis.KrippendorffWeighted(base, w, m, vals)
	if !ok {
		return math.NaN()
	}
	var s float64
	for _, c := range reps {
		a, ok := analysis.KrippendorffWeighted(c, w, m, vals)
		if !ok {
			return math.NaN()
		}
		s += a - a0
	}
	return s / float64(len(reps))
}
