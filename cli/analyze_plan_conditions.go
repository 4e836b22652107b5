package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"pragmalab/analysis"
	"pragmalab/analysis/conditions"
	"pragmalab/analysis/plan"
)

// planByCondition is `analyze plan --by-condition`: the predicted
// intervals of the differences between a judgement study's own
// conditions (docs/statistics.md#planning-a-judgement-study), with the
// exclusion rules of `analyze conditions` — the same flags, so the
// Analysis page's printed plan command reproduces its planner.
func planByCondition(ctx context.Context, env *Env, input string, opt plan.PlanOptions, ex *exclusionFlags, declared []string, reference string, asJSON bool) error {
	for k, c := range declared {
		if slices.Contains(declared[:k], c) {
			return usagef("analyze plan: --conditions names %q twice", c)
		}
	}
	o := &outputFlags{input: input, inFlag: "ratings"}
	rs, err := readInput(o, env, func(r io.Reader) (*conditions.Ratings, error) {
		r, err := pickVersion(r, ex.designVersion)
		if err != nil {
			return nil, err
		}
		return conditions.ReadRatings(r, conditions.ReadOptions{ScalePoints: ex.scalePoints, Conditions: declared})
	})
	if err != nil {
		return err
	}
	t := opt.Options
	if t.HighPass > rs.ScalePoints || t.LowPass > rs.ScalePoints {
		return usagef("analyze plan: --high-pass %d and --low-pass %d must lie on the file's %d-point scale (1–%d): give the study's check thresholds", t.HighPass, t.LowPass, rs.ScalePoints, rs.ScalePoints)
	}
	copt := plan.ConditionsPlanOptions{
		Options:      conditions.Options{HighPass: t.HighPass, LowPass: t.LowPass, MaxFailed: t.MaxFailed, Exclude: t.Exclude, Include: t.Include, Reference: reference},
		Participants: opt.Participants, Items: opt.Items, Draws: opt.Draws, Seed: t.Bootstrap.Seed,
	}
	if reference != "" && !slices.Contains(rs.Conditions, reference) {
		return usagef("analyze plan: --reference %q is not a condition of the file (%v)", reference, rs.Conditions)
	}
	p, err := plan.PlanConditions(ctx, rs, copt)
	if err != nil {
		return planErr(err)
	}
	if asJSON {
		return writeJSON(env.stdout, p)
	}
	return writeConditionsPlan(env.stdout, p)
}

// writeConditionsPlan prints a plan of the differences as one aligned
// table per planned study.
func writeConditionsPlan(w io.Writer, p *plan.ConditionsPlan) error {
	fmt.Fprintf(w, "Pilot: %d participants (%d analysed), %d items (%d rated by each); %d simulated studies per plan.\n%s\n",
		p.Pilot.Participants, p.Pilot.Analysed, p.Pilot.Items, p.Pilot.ItemsEach, p.Draws, p.Note)
	for _, pl := range p.Plans {
		fmt.Fprintf(w, "\n%d participants, %d items\n", pl.Participants, pl.Items)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "difference\ton the scale\tpredicted 95% interval\twidth\tin z\tpredicted 95% interval\twidth\titems' share")
		for _, d := range pl.Differences {
			share := "n/a"
			if d.ItemsShare != nil {
				share = fmt.Sprintf("%.0f%%", 100**d.ItemsShare)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.String(), num3(d.MeanRating), analysis.CIText(d.MeanRatingCI), num3(d.RatingWidth),
				num3(d.MeanZ), analysis.CIText(d.MeanZCI), num3(d.ZWidth), share)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func num3(v *float64) string {
	if v == nil {
		return analysis.Missing
	}
	return fmt.Sprintf("%.3f", *v)
}
