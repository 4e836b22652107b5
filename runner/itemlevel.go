package runner

import (
	"math"

	"pragmalab/analysis/toplines"
	"pragmalab/scoring"
)

// OrderBias summarises how much a model's answer depends on which option
// is lettered A: over every item and condition asked in both orders, the
// mean of |P(True | True first) − P(True | False first)|. An unbiased
// model scores 0; one that always picks A scores 1.
type OrderBias struct {
	Mean *float64 `json:"mean_abs_difference"`
	Max  *float64 `json:"max_abs_difference"`
	N    int      `json:"n"` // item × condition pairs with both orders
}

// OrderBias computes the option-order bias of a True/False job.
func (r *Results) OrderBias() OrderBias {
	var b OrderBias
	sum, mx := 0.0, 0.0
	for _, it := range r.TF {
		for _, byOrder := range it.ByOrder {
			tf, ok1 := byOrder[scoring.TrueFirst]
			ft, ok2 := byOrder[scoring.FalseFirst]
			if !ok1 || !ok2 {
				continue
			}
			d := math.Abs(tf - ft)
			sum += d
			mx = max(mx, d)
			b.N++
		}
	}
	if b.N > 0 {
		m := sum / float64(b.N)
		b.Mean, b.Max = &m, &mx
	}
	return b
}

// HumanCorrelation is the item-level agreement of a model's P(b) with the
// humans' mean z-score.
type HumanCorrelation struct {
	// Trigger pairs items in the trigger condition (c, u): one point per
	// item, the papers' item-level correlation.
	Trigger toplines.Correlation `json:"trigger"`
	// Conditions pairs every item × condition both have (trigger, cancel,
	// negation, strengthen, neutral; humans were not asked the prior).
	Conditions toplines.Correlation `json:"all_conditions"`
}

// humanConditions maps the True/False conditions humans rated to the
// ratings file's.
var humanConditions = map[scoring.Condition]toplines.Condition{
	scoring.Trigger: toplines.Trigger, scoring.Cancel: toplines.Cancel, scoring.Negation: toplines.Negation,
	scoring.Strengthen: toplines.Strengthen, scoring.Neutral: toplines.Neutral,
}

// CorrelateWithHumans pairs the model's P(b) per item (mean of both
// orders) with the human mean z of the same item and condition. human may
// be nil (no crowd study): the correlations are then empty.
func (r *Results) CorrelateWithHumans(human *toplines.Toplines) HumanCorrelation {
	var hc HumanCorrelation
	if human == nil {
		return hc
	}
	z := make(map[string]*toplines.ItemMeans, len(human.Items))
	for i := range human.Items {
		z[human.Items[i].ID] = &human.Items[i]
	}
	var tx, ty, ax, ay []float64
	for _, it := range r.TF {
		m := z[it.Key]
		if m == nil {
			continue
		}
		for _, c := range scoring.Conditions {
			hcnd, rated := humanConditions[c]
			p, ok := it.P[c]
			if !rated || !ok || !m.Has(hcnd) {
				continue
			}
			ax, ay = append(ax, p), append(ay, m.MeanZ[hcnd])
			if c == scoring.Trigger {
				tx, ty = append(tx, p), append(ty, m.MeanZ[hcnd])
			}
		}
	}
	hc.Trigger, hc.Conditions = toplines.Correlate(tx, ty), toplines.Correlate(ax, ay)
	return hc
}
