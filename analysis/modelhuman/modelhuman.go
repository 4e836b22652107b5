// Package modelhuman sets models against humans: the alt-test, the
// distributions against the human ceiling, calibration, the crowd's
// reliability, expert replacement and the ratings of models' explanations.
package modelhuman

import (
	"fmt"
	"math"
	"pragmalab/analysis/toplines"
	"slices"
)

// UnitKey names an item × condition.
type UnitKey struct {
	Item      string
	Condition string
}

// DistUnitsFromRatings gathers the crowd's ratings per item × condition
// beside the model's distribution over the points for that unit, in the
// order the ratings first name the units. A unit the model has no
// distribution for is an error naming it; model units no human rated are
// ignored.
func DistUnitsFromRatings(rows []CrowdRating, model map[UnitKey][]float64) ([]DistUnit, error) {
	idx := map[UnitKey]int{}
	var units []DistUnit
	for _, r := range rows {
		k := UnitKey{r.Item, r.Condition}
		i, ok := idx[k]
		if !ok {
			q, has := model[k]
			if !has {
				return nil, fmt.Errorf("distributions: the model has no distribution for item %q, condition %q", r.Item, r.Condition)
			}
			i = len(units)
			idx[k] = i
			units = append(units, DistUnit{Item: r.Item, Condition: r.Condition, Model: q})
		}
		units[i].Human = append(units[i].Human, r.Rating)
	}
	return units, nil
}

// ModelHumanCorrelation is the Pearson correlation between a model's score
// per item × condition (its expected rating, P(True), …) and the crowd's
// mean z-score there, beside the crowd's correlation ceiling
// (docs/statistics.md#correlation-ceiling): √ of the split-half
// reliability of the same units' means.
type ModelHumanCorrelation struct {
	Units int `json:"units"`
	CorrelationCeiling
	SplitHalf SplitHalf `json:"split_half"`
}

// ComputeModelHumanCorrelation correlates model scores with the crowd's
// item means on the units both have (at least 2 raters each), with the
// ceiling from splits random half-splits.
func ComputeModelHumanCorrelation(rows []CrowdRating, model map[UnitKey]float64, splits int, seed uint64) (*ModelHumanCorrelation, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("correlation: no rating")
	}
	z, _ := participantZ(rows)
	idx := map[UnitKey]int{}
	var keys []UnitKey
	var vals [][]float64
	for i, r := range rows {
		k := UnitKey{r.Item, r.Condition}
		if _, has := model[k]; !has || math.IsNaN(z[i]) {
			continue
		}
		u, ok := idx[k]
		if !ok {
			u = len(keys)
			idx[k] = u
			keys = append(keys, k)
			vals = append(vals, nil)
		}
		vals[u] = append(vals[u], z[i])
	}
	var xs, ys []float64
	var units [][]float64
	for u, k := range keys {
		if len(vals[u]) < 2 {
			continue
		}
		xs = append(xs, model[k])
		ys = append(ys, meanOf(vals[u]))
		units = append(units, slices.Clone(vals[u]))
	}
	res := &ModelHumanCorrelation{Units: len(xs), SplitHalf: SplitHalfReliability(units, splits, seed)}
	var r *float64
	if len(xs) >= 3 {
		if v, _, ok := toplines.Pearson(xs, ys); ok {
			r = &v
		}
	}
	res.CorrelationCeiling = NewCorrelationCeiling(r, res.SplitHalf.Reliability)
	return res, nil
}

// CrowdRatingsOf returns the item ratings (no attention checks) of the
// participants the toplines t kept, the rows the crowd's reliability is
// computed on: a participant excluded by the checks or by the researcher is
// left out here too.
func CrowdRatingsOf(rs *toplines.Ratings, t *toplines.Toplines) []CrowdRating {
	excluded := map[string]bool{}
	for _, id := range t.Participants.Excluded {
		excluded[id] = true
	}
	out := make([]CrowdRating, 0, rs.NumRows())
	rs.Each(func(rt *toplines.Rating) {
		pid := rs.Participants[rt.Participant]
		if rt.Check != toplines.CheckNone || excluded[pid] {
			return
		}
		out = append(out, CrowdRating{Participant: pid, Item: rs.Items[rt.Item], Condition: rt.Cond.String(), Rating: int(rt.Value)})
	})
	return out
}
