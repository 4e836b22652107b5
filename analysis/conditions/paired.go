package conditions

import (
	"math"
	"pragmalab/analysis"
)

// Adjustments of a difference, from the most paired down to none.
const (
	AdjustBoth         = "participants and items"
	AdjustItems        = "items"
	AdjustParticipants = "participants"
	AdjustNothing      = "nothing"
)

// pairedDifference is the difference between conditions c and v in x,
// estimated within participants and items (docs/statistics.md#differences-between-conditions):
// the coefficient δ of the indicator d of c in the least-squares fit
//
//	x = δ·d + participant + item
//
// on the two conditions' rows, with its two-way interval. By the
// Frisch–Waugh–Lovell theorem δ = Σ d̃·x̃ / Σ d̃², where d̃ and x̃ are d and
// x with the participant and item effects projected out, and each row's
// influence is d̃·ẽ / Σ d̃² (ẽ the fit's residual). Where every participant
// and item contributes equally to both conditions (a Latin square) δ is
// the difference of the two conditions' means; where the conditions share
// no participant (or no item), that effect cannot be separated from the
// condition's and is left out of the fit, down to the plain difference of
// means when they share neither.
func pairedDifference(rows []row, c, v int32, x func(row) float64) (estimate, string) {
	var sel []row
	var nc, nv int
	for _, r := range rows {
		if (r.c == c || r.c == v) && !math.IsNaN(x(r)) {
			sel = append(sel, r)
			if r.c == c {
				nc++
			} else {
				nv++
			}
		}
	}
	if nc == 0 || nv == 0 {
		return estimate{na: "a condition without ratings"}, ""
	}
	d := make([]float64, len(sel))
	y := make([]float64, len(sel))
	for k, r := range sel {
		if r.c == c {
			d[k] = 1
		}
		y[k] = x(r)
	}
	base := variation(d)
	for _, adj := range []struct {
		name   string
		groups [][]int32
	}{
		{AdjustBoth, [][]int32{ids(sel, true), ids(sel, false)}},
		{AdjustItems, [][]int32{ids(sel, false)}},
		{AdjustParticipants, [][]int32{ids(sel, true)}},
		{AdjustNothing, nil},
	} {
		dt := project(d, adj.groups)
		sdd := 0.0
		for _, v := range dt {
			sdd += v * v
		}
		// The condition is separable from the effects when they leave
		// some of its variation.
		if !(sdd > 1e-9*base) {
			continue
		}
		yt := project(y, adj.groups)
		sdy := 0.0
		for k := range dt {
			sdy += dt[k] * yt[k]
		}
		delta := sdy / sdd
		os := make([]obs, len(sel))
		for k, r := range sel {
			os[k] = obs{r.p, r.i, dt[k] * (yt[k] - delta*dt[k]) / sdd}
		}
		tw := twoWay(os)
		e := estimate{v: analysis.Num(delta), df: max(tw.DF(), 0), oneWay: tw.OneWay}
		e.ci, e.na = tw.CI(delta)
		if e.ci != nil {
			e.se = analysis.Num(math.Sqrt(tw.V))
		}
		return e, adj.name
	}
	return estimate{na: "no variation"}, AdjustNothing
}

// ids are the rows' participants (or items), as groups for project.
func ids(rows []row, participants bool) []int32 {
	out := make([]int32, len(rows))
	for k, r := range rows {
		if participants {
			out[k] = r.p
		} else {
			out[k] = r.i
		}
	}
	return out
}

// variation is Σ (x − x̄)².
func variation(x []float64) float64 {
	m := analysis.Mean(x)
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s
}

// project returns x less its projection on an intercept and the groups'
// effects: x − x̄ with no groups; with groups, the residual of the
// least-squares fit of x on the groups' indicators, by alternating
// projections (demeaning within each grouping in turn, Guimarães &
// Portugal 2010) until a sweep changes no value by more than 1e-13 of x's
// scale.
func project(x []float64, groups [][]int32) []float64 {
	out := make([]float64, len(x))
	m := analysis.Mean(x)
	scale := 0.0
	for k, v := range x {
		out[k] = v - m
		scale = max(scale, math.Abs(out[k]))
	}
	if len(groups) == 0 || scale == 0 {
		return out
	}
	n := int32(0)
	for _, g := range groups {
		for _, id := range g {
			n = max(n, id+1)
		}
	}
	sums := make([]float64, n)
	counts := make([]int, n)
	for sweep := 0; sweep < 100000; sweep++ {
		change := 0.0
		for _, g := range groups {
			clear(sums)
			clear(counts)
			for k, id := range g {
				sums[id] += out[k]
				counts[id]++
			}
			for id := range sums {
				if counts[id] > 0 {
					sums[id] /= float64(counts[id])
					change = max(change, math.Abs(sums[id]))
				}
			}
			for k, id := range g {
				out[k] -= sums[id]
			}
		}
		if change <= 1e-13*scale || len(groups) == 1 {
			break
		}
	}
	return out
}
