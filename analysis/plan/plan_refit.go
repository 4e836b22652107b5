package plan

import (
	"context"
	"slices"

	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
)

// The planned width's own uncertainty (docs/statistics.md#how-sure-is-a-planned-width).
// A pilot estimates the items' true means, and so r, only so far: a
// pilot of 60 participants on 40 items puts r within about ±0.2, and the
// width of r's interval depends on r. No planner can plan past that, so
// the planner says how far its width may be off: a parametric bootstrap
// of the pilot. Pilots of the pilot's design and size are drawn from the
// fitted model, the model is fitted again to each, and each re-fit plans
// the study once (its own random numbers, so the range holds one study's
// luck as well as the pilot's). The re-fits' widths are skewed (the width
// of r falls steeply as r nears 1), so neither the percentile interval
// [q05, q95] nor the basic one [2w − q95, 2w − q05] alone holds the
// width a study gets: on the validation generator each held it on as
// few as 6 of 10 pilots for some quantity. The range is their union,
// with the planned width w in it: it held it on 9 or 10 of 10.

// DefaultRefits is how many re-fitted pilots give a planned width's range.
const DefaultRefits = 20

// minRefits is the fewest re-fits a range is read from.
const minRefits = 5

// MaxPlanRefits bounds them.
const MaxPlanRefits = 100

// refitReplicates bounds a re-fit's bootstrap replicates: its width is
// read against the others', and 200 replicates put it within a few %.
const refitReplicates = 200

// refitSeed separates the re-fitted pilots' random numbers from the
// planned studies'.
const refitSeed = 0x7e517

// WidthRange is how far a planned width may be off because the pilot
// estimates the items only so far: the union of the percentile and the
// basic 90 % intervals of the widths planned from pilots re-fitted from
// the model.
type WidthRange struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// refits returns the models fitted to pilots drawn from pl's model (made
// once per planner).
func (pl *planner) refitModels(ctx context.Context) ([]*planModel, error) {
	if pl.refits != nil || pl.opt.Refits < 0 {
		return pl.refits, nil
	}
	k := pl.opt.Refits
	if k == 0 {
		k = DefaultRefits
	}
	o := pl.opt.Options
	o.Bootstrap.Replicates = 0
	n0 := pl.pilot.Participants.Analysed
	for r := range k {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rs := pl.model.study(pl.opt.Options.Bootstrap.Seed^refitSeed, 1000+r, n0, len(pl.model.items))
		t := toplines.ComputeToplines(rs, o)
		if t.Participants.Analysed < MinPlanParticipants {
			continue
		}
		pl.refits = append(pl.refits, newPlanModel(rs, t, o))
	}
	return pl.refits, nil
}

// widthRanges plans a study of n participants from every re-fit (one
// simulated study each) and returns, per type and quantity, the union of
// the percentile and basic 90 % intervals of their widths about
// width(typ, q), the planned width (false: none), and the widths.
func (pl *planner) widthRanges(ctx context.Context, n int, width func(typ, q string) (float64, bool)) (map[string]map[string]*WidthRange, map[string]map[string][]float64, error) {
	models, err := pl.refitModels(ctx)
	if err != nil || len(models) < minRefits {
		return nil, nil, err
	}
	seed := pl.opt.Options.Bootstrap.Seed
	o := pl.opt.Options
	o.Bootstrap.Replicates = min(o.Bootstrap.Replicates, refitReplicates)
	widths := map[string]map[string][]float64{}
	for r, m := range models {
		if m.checkSize(n, o.Bootstrap.Replicates) != nil {
			return nil, nil, nil // a re-fit's batches pass the bounds: no range
		}
		o.Bootstrap.Seed = seed + uint64(refitSeed+r)
		t, err := computeToplines(ctx, m.study(o.Bootstrap.Seed, r, n, pl.opt.Items), o)
		if err != nil {
			return nil, nil, err
		}
		for typ, tt := range t.ByType {
			for _, q := range PlanQuantities {
				if _, ci := Quantity(tt, q); ci != nil {
					if widths[typ] == nil {
						widths[typ] = map[string][]float64{}
					}
					widths[typ][q] = append(widths[typ][q], ci[1]-ci[0])
				}
			}
		}
		if pl.opt.simulated != nil {
			pl.opt.simulated()
		}
	}
	out := map[string]map[string]*WidthRange{}
	for typ, qs := range widths {
		for q, ws := range qs {
			w, ok := width(typ, q)
			if !ok || len(ws) < minRefits {
				continue
			}
			slices.Sort(ws)
			if out[typ] == nil {
				out[typ] = map[string]*WidthRange{}
			}
			lo, hi := analysis.Quantile7(ws, 0.05), analysis.Quantile7(ws, 0.95)
			out[typ][q] = &WidthRange{Low: max(0, min(w, lo, 2*w-hi)), High: max(w, hi, 2*w-lo)}
		}
	}
	return out, widths, nil
}

// planWidth is the width of quantity q of type typ in plan p.
func planWidth(p *Plan) func(typ, q string) (float64, bool) {
	return func(typ, q string) (float64, bool) {
		tt := p.ByType[typ]
		if tt == nil {
			return 0, false
		}
		_, ci := Quantity(tt, q)
		if ci == nil {
			return 0, false
		}
		return ci[1] - ci[0], true
	}
}
