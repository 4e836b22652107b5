package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
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
// participants (and M items).
func analyzePlan(args []string, env *Env) error {
	fs := flag.NewFlagSet("analyze plan", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	input := fs.String("ratings", "", `the pilot's ratings file (CSV; "-" for standard input)`)
	ns := fs.String("participants", "", "the numbers of participants to plan for, comma-separated (e.g. 120,240,480)")
	opt := plan.PlanOptions{Options: toplines.DefaultOptions()}
	fs.IntVar(&opt.Items, "items", 0, "the number of items of the planned study (default: the pilot's)")
	fs.IntVar(&opt.Draws, "draws", 4, "studies simulated per number of participants")
	fs.IntVar(&opt.Options.Bootstrap.Replicates, "bootstrap", 500, "bootstrap replicates of each simulated study's intervals")
	fs.Uint64Var(&opt.Options.Bootstrap.Seed, "seed", analysis.DefaultSeed, "seed of the simulation (the same pilot and seed give the same plan)")
	ex := addExclusionFlags(fs, &opt.Options)
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	fs.Usage = func() {
		fmt.Fprint(env.stderr, "Usage: pragmalab analyze plan --ratings PILOT.csv --participants N[,N…] [--items M] [--high-pass H --low-pass L --max-failed F] [--scale-points P] [--json]\n\n"+
			"Predict the 95% intervals of every topline with N participants (and M items),\nfrom a pilot of at least 10 participants (docs/statistics.md#planning-a-study).\n\nOptions:\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *input == "" || *ns == "" {
		return usagef("analyze plan: --ratings and --participants are required")
	}
	for _, f := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return usagef("analyze plan: --participants: %q is not a number of participants (a whole number of at least 1)", f)
		}
		opt.Participants = append(opt.Participants, n)
	}
	if opt.Items < 0 || opt.Draws < 1 || opt.Options.Bootstrap.Replicates < 100 {
		return usagef("analyze plan: --items must be 0 or more, --draws at least 1, --bootstrap at least 100")
	}
	if err := ex.check("plan"); err != nil {
		return err
	}
	o := &outputFlags{input: *input, inFlag: "ratings"}
	rs, err := readInput(o, env, func(r io.Reader) (*toplines.Ratings, error) {
		return toplines.ReadRatingsWith(r, ex.readOptions(false))
	})
	if err != nil {
		return err
	}
	if err := ex.onScale("plan", rs); err != nil {
		return err
	}
	rep, err := plan.PlanToplines(rs, opt)
	if err != nil {
		return fmt.Errorf("analyze plan: %w", err)
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writePlan(env.stdout, rep)
}

// writePlan prints a plan as one aligned table per planned study.
func writePlan(w io.Writer, rep *plan.PlanReport) error {
	fmt.Fprintf(w, "Pilot: %d participants (%d analysed), %d items; %d simulated studies per plan.\n%s\n",
		rep.Pilot.Participants, rep.Pilot.Analysed, rep.Pilot.Items, rep.Draws, rep.Note)
	for _, p := range rep.Plans {
		fmt.Fprintf(w, "\n%d participants, %d items\n", p.Participants, p.Items)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "type\tquantity\tpilot\tpredicted 95% interval\twidth\titems' share")
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
				fmt.Fprintf(tw, "%s\t%s\t%.3f\t[%.3f, %.3f]\t%.3f\t%s\n", typ, q, *v, ci[0], ci[1], ci[1]-ci[0], share)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
