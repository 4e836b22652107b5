// Package plan says how many participants and items a study needs, builds
// crowd and expert batches, and simulates studies to check the intervals'
// coverage.
package plan

import (
	"context"
	"math"

	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// The planner (docs/statistics.md#planning-a-study): from a pilot's
// ratings, the 95 % intervals every topline would have with N
// participants (and, optionally, M items). A planned study is drawn from
// a model fitted to the pilot (planModel: the items' true means per
// condition, their rating noise, the participants' bias and scale, the
// pilot's batches); its two-way bootstrap gives the interval's two half
// widths, averaged over several simulated studies and set around the
// pilot's estimate. More participants shrink only the participants'
// share of the uncertainty: the items' share stays, and the report says
// how large it is.

// MinPlanParticipants is the fewest analysed participants a pilot must
// have: fewer say too little about how participants vary.
const MinPlanParticipants = 10

// PlanOptions say what to plan.
type PlanOptions struct {
	// Participants are the planned numbers of participants (each 1 to
	// MaxPlanParticipants).
	Participants []int
	// Items is the planned number of items (0: the pilot's).
	Items int
	// Draws is how many studies are simulated per plan (0: 4).
	Draws int
	// Refits is how many pilots re-fitted from the model give each
	// planned width's range (0: DefaultRefits; below 0: none).
	Refits int
	// Options are the toplines' options; Bootstrap sets the replicates
	// of each simulated study's interval (0 replicates: 500) and the seed.
	Options toplines.Options

	// simulated, when set, is called after each simulated study (tests).
	simulated func()
}

// Plan is the predicted toplines of a study of Participants participants
// and Items items. ByType mirrors Toplines.ByType: the pilot's estimates,
// with the predicted intervals.
type Plan struct {
	Participants int                               `json:"participants"`
	Items        int                               `json:"items"`
	ByType       map[string]*toplines.TypeToplines `json:"by_type"`
	// ItemsShare is, per type and quantity, the share of the interval's
	// squared width that the items carry and more participants do not
	// shrink (a fit of width² = a + b/N over the plans; null with fewer
	// than two numbers of participants to fit).
	ItemsShare map[string]map[string]*float64 `json:"items_share,omitempty"`
	// WidthRange is, per type and quantity, how far the planned width may
	// be off because the pilot estimates its items only so far: a range
	// over pilots re-fitted from the model
	// (docs/statistics.md#how-sure-is-a-planned-width).
	WidthRange map[string]map[string]*WidthRange `json:"width_range,omitempty"`

	refitWidths map[string]map[string][]float64 // the re-fits' widths (tests)
}

// PlanReport is the planner's answer.
type PlanReport struct {
	Pilot PlanPilot `json:"pilot"`
	Plans []Plan    `json:"plans"`
	Draws int       `json:"draws"`
	Note  string    `json:"note"`
}

// PlanPilot is what the plans were made from.
type PlanPilot struct {
	Participants int                               `json:"participants"`
	Analysed     int                               `json:"analysed"`
	Items        int                               `json:"items"`
	ByType       map[string]*toplines.TypeToplines `json:"by_type"`
}

// QDisattenuated is the disattenuated r's name among the quantities.
const QDisattenuated = "pearson_r_disattenuated"

// PlanQuantities are the toplines a plan predicts, with their intervals.
var PlanQuantities = []string{toplines.MImplicature, toplines.MCancellation, toplines.MBeliefUpdate, toplines.MNegation, toplines.MStrengthen, toplines.MUnchanged, "pearson_r", QDisattenuated}

// PlanNote says what the planner does and does not promise.
const PlanNote = "Predicted 95% intervals from studies simulated by a model fitted to the pilot (items' true means and noise, participants' bias and scale); shares are centred on the pilot's estimates, the observed and the disattenuated r on the values expected at N (more raters attenuate r less); more participants shrink only the participants' share of the uncertainty — items_share is the part only more items shrink; width_range is how far each planned width may be off because the pilot estimates its items only so far (over pilots re-fitted from the model)."

// planner is a pilot ready to simulate from.
type planner struct {
	pilot  *toplines.Toplines
	model  *planModel
	opt    PlanOptions
	refits []*planModel // the re-fitted pilots' models (refitModels)
}

func newPlanner(rs *toplines.Ratings, opt PlanOptions) (*planner, error) {
	if opt.Draws == 0 {
		opt.Draws = 4
	}
	if opt.Options.Bootstrap.Replicates == 0 {
		opt.Options.Bootstrap.Replicates = 500
	}
	pilotOpt := opt.Options
	pilotOpt.Bootstrap.Replicates = 0
	pilot := toplines.ComputeToplines(rs, pilotOpt)
	if pilot.Participants.Analysed < MinPlanParticipants {
		return nil, domain.Errorf(domain.EINVALID, "the pilot has %d analysed participants; the planner cannot plan from fewer than %d", pilot.Participants.Analysed, MinPlanParticipants)
	}
	pl := &planner{pilot: pilot, model: newPlanModel(rs, pilot, pilotOpt), opt: opt}
	if pl.opt.Items == 0 {
		pl.opt.Items = len(pl.model.items)
	}
	return pl, nil
}

// cap is the most participants this pilot's studies may have.
func (pl *planner) cap() int {
	return min(MaxPlanParticipants, MaxPlanRatings/max(1, pl.model.most), MaxPlanWork/max(1, pl.model.most*pl.opt.Options.Bootstrap.Replicates))
}

// plan simulates opt.Draws studies of n participants and returns the
// plan. Draw d of every n has the same seeds (common random numbers).
func (pl *planner) plan(ctx context.Context, n int) (Plan, error) {
	if err := pl.model.checkSize(n, pl.opt.Options.Bootstrap.Replicates); err != nil {
		return Plan{}, err
	}
	hw := map[string]map[string][2]float64{}
	est, got := map[string]map[string]float64{}, map[string]map[string]int{}
	w := 1 / float64(pl.opt.Draws)
	for d := range pl.opt.Draws {
		seed := pl.opt.Options.Bootstrap.Seed + uint64(d)
		study := pl.model.study(seed, d, n, pl.opt.Items)
		o := pl.opt.Options
		o.Bootstrap.Seed = seed
		t, err := computeToplines(ctx, study, o)
		if err != nil {
			return Plan{}, err
		}
		addHalfWidths(hw, t, w)
		for typ, tt := range t.ByType {
			for _, q := range centredAtN {
				if v, ci := Quantity(tt, q); v != nil && ci != nil {
					if est[typ] == nil {
						est[typ], got[typ] = map[string]float64{}, map[string]int{}
					}
					est[typ][q] += *v
					got[typ][q]++
				}
			}
		}
		if pl.opt.simulated != nil {
			pl.opt.simulated()
		}
	}
	for typ, e := range est {
		for q := range e {
			e[q] /= float64(got[typ][q])
		}
	}
	return Plan{Participants: n, Items: pl.opt.Items, ByType: centred(pl.pilot.ByType, hw, est)}, nil
}

// PlanToplines predicts the intervals of the toplines for each planned
// number of participants. It stops, with ctx's error, when ctx is done.
func PlanToplines(ctx context.Context, rs *toplines.Ratings, opt PlanOptions) (*PlanReport, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	pl, err := newPlanner(rs, opt)
	if err != nil {
		return nil, err
	}
	for _, n := range opt.Participants {
		if err := pl.model.checkSize(n, pl.opt.Options.Bootstrap.Replicates); err != nil {
			return nil, err
		}
	}
	pilot := pl.pilot
	rep := &PlanReport{
		Pilot: PlanPilot{Participants: pilot.Participants.Total, Analysed: pilot.Participants.Analysed, Items: len(pl.model.items), ByType: pilot.ByType},
		Draws: pl.opt.Draws, Note: PlanNote,
	}
	for _, n := range opt.Participants {
		p, err := pl.plan(ctx, n)
		if err != nil {
			return nil, err
		}
		if p.WidthRange, p.refitWidths, err = pl.widthRanges(ctx, n, planWidth(&p)); err != nil {
			return nil, err
		}
		rep.Plans = append(rep.Plans, p)
	}
	fitItemsShare(rep.Plans)
	return rep, nil
}

// addHalfWidths adds w times each interval's two half widths (below and
// above the simulated study's own estimate) to hw.
func addHalfWidths(hw map[string]map[string][2]float64, t *toplines.Toplines, w float64) {
	for typ, tt := range t.ByType {
		for _, q := range PlanQuantities {
			point, ci := Quantity(tt, q)
			if point == nil || ci == nil {
				continue
			}
			if hw[typ] == nil {
				hw[typ] = map[string][2]float64{}
			}
			h := hw[typ][q]
			h[0] += w * (*point - ci[0])
			h[1] += w * (ci[1] - *point)
			hw[typ][q] = h
		}
	}
}

// centredAtN are the quantities whose planned interval is set around the
// mean of the simulated studies' estimates, not the pilot's: the observed
// r, which more raters per item attenuate less, so that it is larger at
// N than in the pilot; and the disattenuated r, whose interval is cut at
// 1: set around a pilot's 1.00 (a corrected r above 1, capped), the
// simulated studies' upper half width was cut away, and the planned
// width was 0.54 of the realised one on the validation's high-r design
// (docs/statistics.md#planner-validation).
var centredAtN = []string{"pearson_r", QDisattenuated}

// centred sets the half widths around the pilot's estimates, within the
// quantity's range (shares in [0, 1], r in [−1, 1]); those of centredAtN
// around est, the mean of the simulated studies' estimates.
func centred(pilot map[string]*toplines.TypeToplines, hw map[string]map[string][2]float64, est map[string]map[string]float64) map[string]*toplines.TypeToplines {
	out := map[string]*toplines.TypeToplines{}
	for typ, p := range pilot {
		tt := &toplines.TypeToplines{Items: p.Items, LeftOut: p.LeftOut, PearsonN: p.PearsonN}
		for _, q := range PlanQuantities {
			point, _ := Quantity(p, q)
			h, ok := hw[typ][q]
			if point == nil || !ok {
				continue
			}
			v, lo := *point, 0.0
			if q == "pearson_r" || q == QDisattenuated {
				lo = -1
			}
			if e, ok := est[typ][q]; ok {
				v = e
			}
			ci := &analysis.CI{max(lo, v-h[0]), min(1, v+h[1])}
			setQuantity(tt, q, &v, ci)
		}
		out[typ] = tt
	}
	return out
}

// fitItemsShare fits width² = a + b/N per type and quantity over the
// plans of the same number of items and reports a/width² for each plan.
func fitItemsShare(plans []Plan) {
	ns := map[int]bool{}
	for _, p := range plans {
		ns[p.Participants] = true
	}
	if len(ns) < 2 {
		return
	}
	for i := range plans {
		plans[i].ItemsShare = map[string]map[string]*float64{}
		for typ, tt := range plans[i].ByType {
			plans[i].ItemsShare[typ] = map[string]*float64{}
			for _, q := range PlanQuantities {
				_, ci := Quantity(tt, q)
				if ci == nil {
					continue
				}
				var xs, ys []float64
				for _, p := range plans {
					if _, c := Quantity(p.ByType[typ], q); c != nil {
						xs = append(xs, 1/float64(p.Participants))
						ys = append(ys, (c[1]-c[0])*(c[1]-c[0]))
					}
				}
				a, _, ok := fitLine(xs, ys)
				if !ok {
					continue
				}
				w2 := (ci[1] - ci[0]) * (ci[1] - ci[0])
				if w2 <= 0 {
					continue
				}
				share := min(1, max(0, a/w2))
				plans[i].ItemsShare[typ][q] = &share
			}
		}
	}
}

// fitLine is the least-squares line y = a + b·x through (xs, ys); false
// when there are fewer than two points or the xs do not vary.
func fitLine(xs, ys []float64) (a, b float64, ok bool) {
	n := float64(len(xs))
	if n < 2 {
		return 0, 0, false
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	den := n*sxx - sx*sx
	if math.Abs(den) < 1e-18 {
		return 0, 0, false
	}
	b = (n*sxy - sx*sy) / den
	return (sy - b*sx) / n, b, true
}

// Quantity returns a topline of t and its interval by its JSON name,
// the disattenuated r among them.
func Quantity(t *toplines.TypeToplines, q string) (*float64, *analysis.CI) {
	if q == QDisattenuated {
		return t.PearsonRDisattenuated, t.PearsonRDisattenuatedCI
	}
	return t.Quantity(q)
}

func setQuantity(t *toplines.TypeToplines, q string, v *float64, ci *analysis.CI) {
	if q == QDisattenuated {
		t.PearsonRDisattenuated, t.PearsonRDisattenuatedCI = v, ci
		return
	}
	t.SetQuantity(q, v, ci)
}
