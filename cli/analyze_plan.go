package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"pragmalab/analysis"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// analyzePlan is `pragmalab analyze plan` (docs/statistics.md#planning-a-study):
// from a pilot's ratings, the 95 % intervals of every topline at N
// participants (and M items), or, with --target-width, the participants
// one topline's interval needs. Every size is bounded (plan's Max…
// constants; exit 2 beyond them), and a signal stops the simulation.
func analyzePlan(ctx context.Context, args []string, env *Env) error {
	fs := flag.NewFlagSet("analyze plan", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	input := fs.String("ratings", "", `the pilot's ratings file (CSV; "-" for standard input)`)
	ns := fs.String("participants", "", fmt.Sprintf("the numbers of participants to plan for, comma-separated (e.g. 120,240,480; at most %d numbers, each 1 to %d)", plan.MaxPlanSizes, plan.MaxPlanParticipants))
	target := fs.Float64("target-width", 0, "instead of --participants: the width of the 95% interval to reach (e.g. 0.10); prints the participants it needs")
	typ := fs.String("type", domain.TypeAll, "with --target-width: the item type ("+domain.TypeAll+", "+strings.Join(domain.TableTypes, ", ")+")")
	quantity := fs.String("quantity", "pearson_r", "with --target-width: the topline ("+strings.Join(plan.PlanQuantities, ", ")+")")
	opt := plan.PlanOptions{Options: toplines.DefaultOptions()}
	fs.IntVar(&opt.Items, "items", 0, fmt.Sprintf("the number of items of the planned study (default: the pilot's; at most %d)", plan.MaxPlanItems))
	fs.IntVar(&opt.Draws, "draws", 4, fmt.Sprintf("studies simulated per number of participants (1 to %d)", plan.MaxPlanDraws))
	fs.IntVar(&opt.Options.Bootstrap.Replicates, "bootstrap", 500, fmt.Sprintf("bootstrap replicates of each simulated study's intervals (%d to %d)", plan.MinPlanReplicates, plan.MaxPlanReplicates))
	refits := fs.Int("refits", plan.DefaultRefits, fmt.Sprintf("pilots re-fitted from the model for each planned width's range (0: none; at most %d)", plan.MaxPlanRefits))
	fs.Uint64Var(&opt.Options.Bootstrap.Seed, "seed", analysis.DefaultSeed, "seed of the simulation (the same pilot and seed give the same plan)")
	ex := addExclusionFlags(fs, &opt.Options)
	byCond := fs.Bool("by-condition", false, "plan the differences between the study's own conditions (a judgement study; docs/statistics.md#planning-a-judgement-study) instead of the toplines")
	conds := fs.String("conditions", "", "with --by-condition: the study's conditions in their declared order, comma-separated (default: those rated, in the order first seen)")
	reference := fs.String("reference", "", "with --by-condition: compare every other condition with this one (default: every pair)")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	fs.Usage = func() {
		fmt.Fprint(env.stderr, "Usage: pragmalab analyze plan --ratings PILOT.csv (--participants N[,N…] | --target-width W [--quantity Q] [--type T]) [--items M] [--refits K] [--high-pass H --low-pass L --max-failed F] [--scale-points P] [--json]\n\n"+
			"Predict the 95% intervals of every topline with N participants (and M items),\nor the participants one topline's interval needs to reach width W,\nfrom a pilot of at least 10 participants (docs/statistics.md#planning-a-study).\n\nOptions:\n")
		fs.PrintDefaults()
	}
	toplinesUsage := fs.Usage
	fs.Usage = func() {
		fmt.Fprint(env.stderr, "Usage: pragmalab analyze plan --by-condition --ratings PILOT.csv --participants N[,N…] [--conditions C1,C2…] [--reference C] [--items M]\n"+
			"         [--high-pass H --low-pass L --max-failed F] [--exclude IDS] [--include IDS] [--scale-points P] [--json]\n"+
			"Predict the 95% intervals of the differences between a judgement study's own\nconditions with N participants (docs/statistics.md#planning-a-judgement-study).\n\n")
		toplinesUsage()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	widthMode := flagSet(fs, "target-width")
	if *byCond {
		if widthMode {
			return usagef("analyze plan: --by-condition plans --participants; --target-width is for the toplines")
		}
	} else if *conds != "" || *reference != "" {
		return usagef("analyze plan: --conditions and --reference plan the differences between conditions: give --by-condition")
	}
	if *input == "" || (*ns == "") == !widthMode {
		return usagef("analyze plan: --ratings and one of --participants or --target-width are required")
	}
	if widthMode {
		if err := plan.CheckTarget(*target); err != nil {
			return usagef("analyze plan: --target-width: %s", domain.ErrorMessage(err))
		}
		if *typ != domain.TypeAll && !slices.Contains(domain.TableTypes, *typ) {
			return usagef("analyze plan: --type: %q is not an item type (%s, %s)", *typ, domain.TypeAll, strings.Join(domain.TableTypes, ", "))
		}
		if !slices.Contains(plan.PlanQuantities, *quantity) {
			return usagef("analyze plan: --quantity: %q is not a topline the planner predicts (%s)", *quantity, strings.Join(plan.PlanQuantities, ", "))
		}
	} else {
		for _, f := range strings.Split(*ns, ",") {
			f = strings.TrimSpace(f)
			n, err := strconv.Atoi(f)
			if err != nil {
				// 1e9 is a number, but not a whole one written out
				if v, ferr := strconv.ParseFloat(f, 64); ferr == nil && v > plan.MaxPlanParticipants {
					return usagef("analyze plan: --participants: %s is more than the planner simulates (1 to %d)", f, plan.MaxPlanParticipants)
				}
				return usagef("analyze plan: --participants: %q is not a number of participants (a whole number from 1 to %d)", f, plan.MaxPlanParticipants)
			}
			opt.Participants = append(opt.Participants, n)
		}
	}
	if opt.Options.Bootstrap.Replicates < plan.MinPlanReplicates {
		return usagef("analyze plan: --bootstrap: %d replicates; the planner takes %d to %d", opt.Options.Bootstrap.Replicates, plan.MinPlanReplicates, plan.MaxPlanReplicates)
	}
	if *refits < 0 || *refits > plan.MaxPlanRefits {
		return usagef("analyze plan: --refits: %d re-fitted pilots; the planner takes 0 (none) to %d", *refits, plan.MaxPlanRefits)
	}
	opt.Refits = *refits
	if opt.Refits == 0 {
		opt.Refits = -1
	}
	if opt.Draws < 1 {
		return usagef("analyze plan: --draws: %d is not a number of simulated studies the planner makes (1 to %d)", opt.Draws, plan.MaxPlanDraws)
	}
	check := opt
	if widthMode {
		check.Participants = []int{plan.MinPlanParticipants}
	}
	if err := plan.CheckOptions(check); err != nil {
		return usagef("analyze plan: %s", domain.ErrorMessage(err))
	}
	if err := ex.check("plan"); err != nil {
		return err
	}
	if *byCond {
		return planByCondition(ctx, env, *input, opt, ex, splitIDs(*conds), *reference, *asJSON)
	}
	o := &outputFlags{input: *input, inFlag: "ratings"}
	rs, err := readInput(o, env, func(r io.Reader) (*toplines.Ratings, error) {
		r, err := pickVersion(r, ex.designVersion)
		if err != nil {
			return nil, err
		}
		return toplines.ReadRatingsWith(r, ex.readOptions(false))
	})
	if err != nil {
		return err
	}
	if err := ex.onScale("plan", rs); err != nil {
		return err
	}
	if widthMode {
		wp, err := plan.PlanWidth(ctx, rs, opt, *typ, *quantity, *target)
		if err != nil {
			return planErr(err)
		}
		if *asJSON {
			return writeJSON(env.stdout, wp)
		}
		return writeWidthPlan(env.stdout, wp)
	}
	rep, err := plan.PlanToplines(ctx, rs, opt)
	if err != nil {
		return planErr(err)
	}
	if *asJSON {
		return writeJSON(env.stdout, rep)
	}
	return writePlan(env.stdout, rep)
}

// planErr says what stopped a plan: a signal, bad input (exit 2) or else.
func planErr(err error) error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("analyze plan: interrupted; nothing was printed")
	case domain.ErrorCode(err) == domain.EINVALID:
		return usagef("analyze plan: %s", domain.ErrorMessage(err))
	}
	return fmt.Errorf("analyze plan: %w", err)
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeWidthPlan prints the participants a target width needs.
func writeWidthPlan(w io.Writer, wp *plan.WidthPlan) error {
	fmt.Fprintf(w, "Pilot: %d analysed participants; %s of %s items is %.3f there.\n", wp.PilotAnalysed, wp.Quantity, wp.Type, wp.Estimate)
	switch {
	case wp.Reachable:
		fmt.Fprintf(w, "A 95%% interval %.3f wide takes about %d analysed participants (predicted width %.3f).\n", wp.Target, wp.Participants, wp.Width)
	case wp.OutOfReach == "items":
		fmt.Fprintf(w, "A 95%% interval %.3f wide is out of reach: the studies simulated with %d participants miss it, and the items alone hold the width near %.3f; only more items (--items) narrow it.\n", wp.Target, wp.Cap, wp.Floor)
	default:
		fmt.Fprintf(w, "A 95%% interval %.3f wide is out of reach: the studies simulated with %d participants, the planner's cap, miss it.\n", wp.Target, wp.Cap)
	}
	switch r := wp.WidthRange; {
	case r != nil && wp.Reachable:
		fmt.Fprintf(w, "The planned width is uncertain: with %d participants it may be %.3f to %.3f (%s).\n", wp.Participants, r.Low, r.High, rangeNote)
	case r != nil && r.Low <= wp.Target:
		fmt.Fprintf(w, "But the planned width is uncertain: with %d participants it may be %.3f to %.3f, so the target may be within reach after all; a larger pilot would tell (%s).\n", wp.Cap, r.Low, r.High, rangeNote)
	}
	if wp.NearBoundary {
		fmt.Fprintln(w, "The estimate is within 0.05 of 0 or 1: the width there depends on the estimate itself; plan for the width at 0.5 (docs/statistics.md#stopping-on-a-width-target).")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "simulated participants\tpredicted width")
	for _, p := range wp.Points {
		fmt.Fprintf(tw, "%d\t%.3f\n", p.Participants, p.Width)
	}
	return tw.Flush()
}

// writePlan prints a plan as one aligned table per planned study.
func writePlan(w io.Writer, rep *plan.PlanReport) error {
	fmt.Fprintf(w, "Pilot: %d participants (%d analysed), %d items; %d simulated studies per plan.\n%s\n",
		rep.Pilot.Participants, rep.Pilot.Analysed, rep.Pilot.Items, rep.Draws, rep.Note)
	for _, p := range rep.Plans {
		fmt.Fprintf(w, "\n%d participants, %d items\n", p.Participants, p.Items)
		var loose []string
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "type\tquantity\tcentre\tpredicted 95% interval\twidth\twidth may be\titems' share")
		for _, typ := range append(append([]string(nil), domain.TableTypes...), domain.TypeAll) {
			tt := p.ByType[typ]
			if tt == nil {
				continue
			}
			for _, q := range plan.PlanQuantities {
				v, ci := plan.Quantity(tt, q)
				if v == nil || ci == nil {
					continue
				}
				share := "n/a"
				if s := p.ItemsShare[typ][q]; s != nil {
					share = fmt.Sprintf("%.0f%%", 100**s)
				}
				span := "n/a"
				if r := p.WidthRange[typ][q]; r != nil {
					span = fmt.Sprintf("%.3f–%.3f", r.Low, r.High)
					if w := ci[1] - ci[0]; r.Low < 0.75*w || r.High > 1.3*w {
						loose = append(loose, fmt.Sprintf("%s %s %.3f to %.3f", typ, q, r.Low, r.High))
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%.3f\t[%.3f, %.3f]\t%.3f\t%s\t%s\n", typ, q, *v, ci[0], ci[1], ci[1]-ci[0], span, share)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(loose) > 0 {
			fmt.Fprintf(w, "Planned widths uncertain by more than a quarter: %s (%s).\n", strings.Join(loose, "; "), rangeNote)
		}
	}
	return nil
}

// rangeNote says where a planned width's range comes from.
const rangeNote = "from the widths planned from pilots re-fitted from the model: the pilot estimates its items only so far, and a larger pilot or more items narrow it; docs/statistics.md#how-sure-is-a-planned-width"
