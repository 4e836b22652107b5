package plan

import (
	"context"
	"math"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"slices"
)

// Planning for a target width (docs/statistics.md#planning-a-study):
// how many participants bring one topline's 95 % interval down to a width
// the researcher sets. The search simulates plans (common random numbers
// across N, so widths fall with N as the participants add up, not by the
// luck of the draw), guesses the next N from a fit of width² = a + b/N
// (a: the items' share, which more participants do not shrink; b/N: the
// participants'), and narrows the bracket between the largest N that
// misses the target and the smallest that reaches it. A target is out of
// reach only when the studies simulated at the cap miss it.

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
	// Participants needed (analysed ones): the fewest simulated whose
	// width reaches the target, and that width; 0 when out of reach.
	Participants int     `json:"participants"`
	Width        float64 `json:"width"`
	// Floor is the width no number of participants goes below with the
	// pilot's items: the items' share (0 when the fit finds none).
	Floor float64 `json:"floor"`
	// Reachable is false when the studies simulated at Cap miss the
	// target; OutOfReach then says why: "items" (the target is below the
	// floor) or "participants" (more than Cap would be needed).
	Reachable  bool   `json:"reachable"`
	OutOfReach string `json:"out_of_reach,omitempty"`
	// Points are the simulated plans the fit went through.
	Points []WidthPoint `json:"points"`
	// WidthRange is how far the width at Participants (at Cap when out of
	// reach) may be off because the pilot estimates its items only so
	// far, from the widths planned there from pilots re-fitted from the
	// model (docs/statistics.md#how-sure-is-a-planned-width); null without
	// re-fits. Out of reach with WidthRange.Low at or under the target,
	// the target may be within reach after all: the pilot cannot tell.
	WidthRange *WidthRange `json:"width_range"`
	// PilotAnalysed is the pilot's analysed participants.
	PilotAnalysed int `json:"pilot_analysed"`
	// Cap is the most participants the search simulates
	// (MaxPlanParticipants, or fewer where the pilot's screens per
	// participant would pass the bounds).
	Cap int `json:"cap"`
	// NearBoundary: the estimate is a share within 0.05 of 0 or 1, where
	// the interval is cut by the boundary and the width depends on the
	// estimate itself (docs/statistics.md#stopping-on-a-width-target).
	NearBoundary bool `json:"near_boundary"`
}

// PlanWidth searches the participants that bring the 95 % interval of
// quantity q of item type typ (domain.TypeAll for all) to target.
// opt.Participants is ignored. It stops, with ctx's error, when ctx is
// done.
func PlanWidth(ctx context.Context, rs *toplines.Ratings, opt PlanOptions, typ, q string, target float64) (*WidthPlan, error) {
	if !slices.Contains(PlanQuantities, q) {
		return nil, domain.Errorf(domain.EINVALID, "%q is not a quantity the planner predicts (one of %v)", q, PlanQuantities)
	}
	if err := CheckTarget(target); err != nil {
		return nil, err
	}
	opt.Participants = []int{MinPlanParticipants}
	if err := opt.check(); err != nil {
		return nil, err
	}
	pl, err := newPlanner(rs, opt)
	if err != nil {
		return nil, err
	}
	pilot := pl.pilot
	n0 := pilot.Participants.Analysed
	wp := &WidthPlan{Type: typ, Quantity: q, Target: target, PilotAnalysed: n0, Cap: pl.cap()}
	if tt := pilot.ByType[typ]; tt != nil {
		if v, _ := Quantity(tt, q); v != nil {
			wp.Estimate = *v
			wp.NearBoundary = q != "pearson_r" && q != QDisattenuated && (*v < 0.05 || *v > 0.95)
		}
	}
	n0 = min(n0, wp.Cap)
	if err := wp.simulate(ctx, pl, n0, min(4*n0, wp.Cap)); err != nil {
		return nil, err
	}
	for range 8 {
		n, ok := wp.next()
		if !ok {
			break
		}
		if err := wp.simulate(ctx, pl, n); err != nil {
			return nil, err
		}
	}
	wp.answer()
	// the range at the answer, or, out of reach, at the cap: a pilot
	// that plans the cap's width above the target may be wrong about it
	n, w := wp.Participants, wp.Width
	if !wp.Reachable {
		n, w = wp.Cap, wp.point(wp.Cap).Width
	}
	if n > 0 && w > 0 {
		ranges, _, err := pl.widthRanges(ctx, n, func(typ, q string) (float64, bool) {
			return w, typ == wp.Type && q == wp.Quantity
		})
		if err != nil {
			return nil, err
		}
		wp.WidthRange = ranges[wp.Type][wp.Quantity]
	}
	return wp, nil
}

// simulate adds the planned widths at the given numbers of participants.
func (wp *WidthPlan) simulate(ctx context.Context, pl *planner, ns ...int) error {
	for _, n := range ns {
		if wp.has(n) {
			continue
		}
		p, err := pl.plan(ctx, n)
		if err != nil {
			return err
		}
		if err := wp.add(p); err != nil {
			return err
		}
	}
	slices.SortFunc(wp.Points, func(a, b WidthPoint) int { return a.Participants - b.Participants })
	return nil
}

// bracket is the smallest simulated N that reaches the target (0: none)
// and the largest below it that misses (0: none). The simulated widths
// carry the bootstrap's own noise, so they may not fall at every step;
// the bracket is read from the first N that reaches.
func (wp *WidthPlan) bracket() (lo, hi int) {
	for _, p := range wp.Points {
		if p.Width <= wp.Target {
			hi = p.Participants
			break
		}
		lo = p.Participants
	}
	return lo, hi
}

// crossing is where the line width² = a + b/N through two simulated
// points passes the target (0: it does not, b ≤ 0 or the target below a).
func (wp *WidthPlan) crossing(p, q WidthPoint) int {
	x0, x1 := 1/float64(p.Participants), 1/float64(q.Participants)
	y0, y1 := p.Width*p.Width, q.Width*q.Width
	b := (y0 - y1) / (x0 - x1)
	a := y0 - b*x0
	t2 := wp.Target * wp.Target
	if !(b > 0) || t2 <= a {
		return 0
	}
	return int(math.Min(math.Ceil(b/(t2-a)), 1e9))
}

func (wp *WidthPlan) point(n int) WidthPoint {
	for _, p := range wp.Points {
		if p.Participants == n {
			return p
		}
	}
	return WidthPoint{}
}

// next is the next N to simulate: while no N reaches the target, where
// the two largest say it would (the cap at most, and the cap itself when
// they say never); then within the bracket, where its ends' line crosses
// the target. None once the bracket is within 10 %, or the cap misses.
func (wp *WidthPlan) next() (int, bool) {
	lo, hi := wp.bracket()
	if hi != 0 {
		if lo == 0 || hi-lo <= max(1, hi/10) {
			return 0, false
		}
		n := wp.crossing(wp.point(lo), wp.point(hi))
		if n <= lo || n >= hi {
			n = (lo + hi + 1) / 2
		}
		// no closer than 5 % to a simulated N: the widths' own noise
		for _, p := range wp.Points {
			if abs(n-p.Participants) < max(1, p.Participants/20) {
				return 0, false
			}
		}
		return n, true
	}
	if wp.has(wp.Cap) {
		return 0, false
	}
	k := len(wp.Points)
	n := 0
	if k >= 2 {
		n = wp.crossing(wp.Points[k-2], wp.Points[k-1])
	}
	if n <= lo || n > wp.Cap {
		n = wp.Cap
	}
	return n, true
}

func abs(n int) int { return max(n, -n) }

// answer sets the participants needed, and the floor: the width no
// number of participants goes below with the pilot's items (a fit of
// width² = a + b/N over every simulated N). The target reached at the
// fewest simulated N (the pilot's size) needs that N; reached further
// on, the N where the bracket's line crosses it; reached at none, the
// cap included, it is out of reach.
func (wp *WidthPlan) answer() {
	xs, ys := make([]float64, len(wp.Points)), make([]float64, len(wp.Points))
	for i, p := range wp.Points {
		xs[i], ys[i] = 1/float64(p.Participants), p.Width*p.Width
	}
	a, b, ok := fitLine(xs, ys)
	if !ok || b <= 0 {
		a = slices.Min(ys)
	}
	wp.Floor = min(math.Sqrt(max(a, 0)), math.Sqrt(slices.Min(ys)))
	lo, hi := wp.bracket()
	switch {
	case hi == 0:
		wp.Participants, wp.Width, wp.Reachable, wp.OutOfReach = 0, 0, false, "participants"
		if wp.Target*wp.Target <= a {
			wp.OutOfReach = "items"
		}
	case lo == 0:
		wp.Participants, wp.Width, wp.Reachable, wp.OutOfReach = hi, wp.point(hi).Width, true, ""
	default:
		n := wp.crossing(wp.point(lo), wp.point(hi))
		if n <= lo || n > hi {
			n = hi
		}
		pl, ph := wp.point(lo), wp.point(hi)
		// the bracket's line at n
		x, x0, x1 := 1/float64(n), 1/float64(lo), 1/float64(hi)
		w2 := pl.Width*pl.Width + (ph.Width*ph.Width-pl.Width*pl.Width)*(x-x0)/(x1-x0)
		wp.Participants, wp.Width, wp.Reachable, wp.OutOfReach = n, math.Sqrt(max(w2, 0)), true, ""
	}
}

// add adds a plan's width of the quantity.
func (wp *WidthPlan) add(p Plan) error {
	tt := p.ByType[wp.Type]
	if tt == nil {
		return domain.Errorf(domain.EINVALID, "the pilot has no items of type %q", wp.Type)
	}
	_, ci := Quantity(tt, wp.Quantity)
	if ci == nil {
		return domain.Errorf(domain.EINVALID, "the pilot gives no interval for %s of %s items", wp.Quantity, wp.Type)
	}
	wp.Points = append(wp.Points, WidthPoint{Participants: p.Participants, Width: ci[1] - ci[0]})
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
