package plan

import (
	"math"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"slices"
)

// Planning for a target width (docs/statistics.md#stopping-on-a-width-target):
// how many participants bring one topline's 95 % interval down to a width
// the researcher sets. The search simulates plans with PlanToplines, fits
// width² = a + b/N through them (a: the items' share, which more
// participants do not shrink; b/N: the participants'), solves the fit
// for the target and simulates the answer to check it, refitting once or
// twice when the check is off.

// MaxPlanParticipants is the largest number of participants the search
// proposes; a target needing more is reported as out of reach.
const MaxPlanParticipants = 20000

// WidthPoint is one simulated plan: its participants and predicted width.
type WidthPoint struct {
	Participants int     `json:"participants"`
	Width        float64 `json:"width"`
}

// WidthPlan is the answer of PlanWidth.
type WidthPlan struct {
	Type     string  `json:"type"`
	Quantity string  `json:"quantity"`
	Target   float64 `json:"target"`
	// Estimate is the pilot's estimate of the quantity.
	Estimate float64 `json:"estimate"`
	// Participants needed (analysed ones), and the width the fit predicts
	// there; 0 when the target is out of reach.
	Participants int     `json:"participants"`
	Width        float64 `json:"width"`
	// Floor is the width no number of participants goes below with the
	// pilot's items: the items' share (0 when the fit finds none).
	Floor float64 `json:"floor"`
	// Reachable is false when the target is below the floor or needs more
	// than MaxPlanParticipants; OutOfReach then says which: "items" (the
	// width does not shrink to it with participants) or "participants".
	Reachable  bool   `json:"reachable"`
	OutOfReach string `json:"out_of_reach,omitempty"`
	// Points are the simulated plans the fit went through.
	Points []WidthPoint `json:"points"`
	// PilotAnalysed is the pilot's analysed participants.
	PilotAnalysed int `json:"pilot_analysed"`
	// NearBoundary: the estimate is a share within 0.05 of 0 or 1, where
	// the interval is cut by the boundary and the width depends on the
	// estimate itself (docs/statistics.md#stopping-on-a-width-target).
	NearBoundary bool `json:"near_boundary"`
}

// PlanWidth searches the participants that bring the 95 % interval of
// quantity q of item type typ (domain.TypeAll for all) to target.
// opt.Participants is ignored.
func PlanWidth(rs *toplines.Ratings, opt PlanOptions, typ, q string, target float64) (*WidthPlan, error) {
	if !slices.Contains(PlanQuantities, q) {
		return nil, domain.Errorf(domain.EINVALID, "%q is not a quantity the planner predicts (one of %v)", q, PlanQuantities)
	}
	if !(target > 0) || target >= 2 {
		return nil, domain.Errorf(domain.EINVALID, "the target width must be a number above 0 and below 2 (e.g. 0.10 for an interval of ±0.05)")
	}
	pilotOpt := opt.Options
	pilotOpt.Bootstrap.Replicates = 0
	pilot := toplines.ComputeToplines(rs, pilotOpt)
	n0 := max(pilot.Participants.Analysed, MinPlanParticipants)
	wp := &WidthPlan{Type: typ, Quantity: q, Target: target, PilotAnalysed: pilot.Participants.Analysed}
	if tt := pilot.ByType[typ]; tt != nil {
		if v, _ := tt.Quantity(q); v != nil {
			wp.Estimate = *v
			wp.NearBoundary = q != "pearson_r" && (*v < 0.05 || *v > 0.95)
		}
	}
	if err := wp.simulate(rs, opt, n0, 4*n0); err != nil {
		return nil, err
	}
	for range 2 {
		n, ok := wp.solve()
		if !ok || wp.has(n) {
			break
		}
		if err := wp.simulate(rs, opt, n); err != nil {
			return nil, err
		}
	}
	wp.solve()
	return wp, nil
}

// simulate adds the predicted widths at the given numbers of participants.
// Each number is planned on its own, so every one uses the same seeds (the
// same simulated draws, common random numbers): the widths then differ by
// the participants, not by the luck of the draw, and the fit is steadier.
func (wp *WidthPlan) simulate(rs *toplines.Ratings, opt PlanOptions, ns ...int) error {
	for _, n := range ns {
		opt.Participants = []int{n}
		rep, err := PlanToplines(rs, opt)
		if err != nil {
			return err
		}
		if err := wp.add(rep.Plans[0]); err != nil {
			return err
		}
	}
	slices.SortFunc(wp.Points, func(a, b WidthPoint) int { return a.Participants - b.Participants })
	return nil
}

// add adds a plan's width of the quantity.
func (wp *WidthPlan) add(p Plan) error {
	{
		tt := p.ByType[wp.Type]
		if tt == nil {
			return domain.Errorf(domain.EINVALID, "the pilot has no items of type %q", wp.Type)
		}
		_, ci := tt.Quantity(wp.Quantity)
		if ci == nil {
			return domain.Errorf(domain.EINVALID, "the pilot gives no interval for %s of %s items", wp.Quantity, wp.Type)
		}
		wp.Points = append(wp.Points, WidthPoint{Participants: p.Participants, Width: ci[1] - ci[0]})
	}
	return nil
}

func (wp *WidthPlan) has(n int) bool {
	for _, p := range wp.Points {
		if p.Participants == n {
			return true
		}
	}
	return false
}

// solve fits width² = a + b/N through the points (least squares in 1/N)
// and sets the participants the target needs; false when out of reach or
// when the fewest simulated participants already reach it.
func (wp *WidthPlan) solve() (int, bool) {
	xs, ys := make([]float64, len(wp.Points)), make([]float64, len(wp.Points))
	for i, p := range wp.Points {
		xs[i], ys[i] = 1/float64(p.Participants), p.Width*p.Width
	}
	a, b, ok := fitLine(xs, ys)
	if !ok {
		// One planned size: the width does not move with N.
		a, b = 0, 0
		for _, y := range ys {
			a += y / float64(len(ys))
		}
	}
	wp.Floor = min(math.Sqrt(max(a, 0)), math.Sqrt(slices.Min(ys)))
	wp.Participants, wp.Width, wp.Reachable, wp.OutOfReach = 0, 0, false, "items"
	if first := wp.Points[0]; first.Width <= wp.Target {
		// The fewest planned (the pilot's size) already reach it.
		wp.Participants, wp.Width, wp.Reachable, wp.OutOfReach = first.Participants, first.Width, true, ""
		return 0, false
	}
	if b <= 0 {
		// Widths that do not shrink with participants: all items.
		wp.Floor = math.Sqrt(slices.Min(ys))
		return 0, false
	}
	t2 := wp.Target * wp.Target
	if t2 <= a {
		return 0, false
	}
	n := int(math.Ceil(b / (t2 - a)))
	if n > MaxPlanParticipants {
		wp.OutOfReach = "participants"
		return 0, false
	}
	n = max(n, 2)
	wp.Participants, wp.Width, wp.Reachable, wp.OutOfReach = n, math.Sqrt(a+b/float64(n)), true, ""
	return n, true
}
