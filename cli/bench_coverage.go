package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"pragmalab/analysis/plan"
)

// coverageCell is one design of the coverage study
// (docs/statistics.md#interval-coverage).
type coverageCell struct {
	name, design string
	large        bool
	run          func(plan.CoverageOptions) plan.CoverageCell
}

func coverageCells() []coverageCell {
	crowd := func(d plan.CrowdDesign) func(plan.CoverageOptions) plan.CoverageCell {
		return func(o plan.CoverageOptions) plan.CoverageCell { return plan.CoverageCrowd(d, o) }
	}
	agree := func(d plan.AgreementDesign) func(plan.CoverageOptions) plan.CoverageCell {
		return func(o plan.CoverageOptions) plan.CoverageCell { return plan.CoverageAgreement(d, o) }
	}
	ctx := func(d plan.ContextDesign) func(plan.CoverageOptions) plan.CoverageCell {
		return func(o plan.CoverageOptions) plan.CoverageCell { return plan.CoverageContext(d, o) }
	}
	expl := func(d plan.ExplanationDesign) func(plan.CoverageOptions) plan.CoverageCell {
		return func(o plan.CoverageOptions) plan.CoverageCell { return plan.CoverageExplanations(d, o) }
	}
	small, large := plan.CrowdDesign{Items: 271, Batches: 18, PerBatch: 5}, plan.CrowdDesign{Items: 2000, Batches: 100, PerBatch: 100}
	// The hard cells of the correlation: 120 items, each participant rating
	// 60 (item, condition) pairs, a true r near 0.9 or 0.99 (δ's SD 0.387
	// or 0.114), k ratings per item and condition; "shares" moves δ's mean
	// to 0.1 so the cancellation shares are near 0.8, not 1.
	hardCrowd := func(name string, k int, sd, mu float64) coverageCell {
		d := plan.CrowdDesign{Items: 120, Batches: 10, PerBatch: k, CancelMean: mu, CancelSD: sd}
		return coverageCell{name, fmt.Sprintf("crowd, 10 batches × %d participants on 120 items in 5 conditions (%d participants, %d ratings, %d per item and condition), δ ~ N(%g, %g²)",
			k, d.Participants(), d.Ratings(), k, mu, sd), false, crowd(d)}
	}
	return []coverageCell{
		{"crowd-small", fmt.Sprintf("crowd, 18 batches × 5 participants on 271 items in 5 conditions (%d participants, %d ratings, 5 per item and condition)", small.Participants(), small.Ratings()), false, crowd(small)},
		{"crowd-large", fmt.Sprintf("crowd, 100 batches × 100 participants on 2,000 items in 5 conditions (%d participants, %d ratings, 100 per item and condition)", large.Participants(), large.Ratings()), true, crowd(large)},
		hardCrowd("crowd-r90-10", 10, 0.387, 1.2), hardCrowd("crowd-r90-20", 20, 0.387, 1.2), hardCrowd("crowd-r90-50", 50, 0.387, 1.2),
		hardCrowd("crowd-r99-10", 10, 0.114, 1.2), hardCrowd("crowd-r99-20", 20, 0.114, 1.2), hardCrowd("crowd-r99-50", 50, 0.114, 1.2),
		hardCrowd("crowd-r99-shares", 20, 0.114, 0.1),
		{"agreement-small", "expert agreement, 2 annotators × 54 items (ImplicatureX round 1)", false, agree(plan.AgreementDesign{Annotators: 2, Items: 54})},
		{"agreement-large", "expert agreement, 3 annotators × 2,000 items", true, agree(plan.AgreementDesign{Annotators: 3, Items: 2000})},
		{"context-small", "context, 3 surveys × 42 items × 3 annotators (IMPAQTS-PID)", false, ctx(plan.ContextDesign{Surveys: 3, Items: 42, Annotators: 3})},
		{"context-large", "context, 3 surveys × 300 items × 3 annotators", true, ctx(plan.ContextDesign{Surveys: 3, Items: 300, Annotators: 3})},
		{"explanations-small", "explanation ratings, 2 kinds × 3 strategies × 150 outputs, 10 experts (IMPAQTS-PID)", false, expl(plan.ExplanationDesign{Kinds: 2, Strategies: 3, Outputs: 150, Experts: 10})},
		{"explanations-large", "explanation ratings, 2 kinds × 3 strategies × 2,000 outputs, 10 experts", true, expl(plan.ExplanationDesign{Kinds: 2, Strategies: 3, Outputs: 2000, Experts: 10})},
	}
}

// benchCoverage runs the coverage study: for each cell, simulated data
// sets with a known truth, the share whose 95 % interval holds it, by
// every candidate method, with the Monte-Carlo error.
func benchCoverage(ctx context.Context, args []string, env *Env) error {
	cells := coverageCells()
	var names []string
	for _, c := range cells {
		names = append(names, c.name)
	}
	fs := flag.NewFlagSet("bench coverage", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	reps := fs.Int("replicates", 500, "simulated data sets per cell")
	largeReps := fs.Int("large-replicates", 0, "simulated data sets in the large cells (0: as --replicates); fewer to save time, at a larger Monte-Carlo error")
	boot := fs.Int("bootstrap", 200, "bootstrap replicates inside each simulated data set")
	seed := fs.Uint64("seed", 1, "random seed of the simulation")
	cellList := fs.String("cells", strings.Join(names, ","), "cells to run, comma-separated")
	all := fs.Bool("all-methods", true, "print every candidate method's coverage beside the method in use")
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: pragmalab bench coverage [options]\n\nMeasure the coverage of every 95 %% interval pragmalab reports on data simulated\nfrom the generative models of docs/statistics.md#the-generative-models.\nCells: %s.\n\nOptions:\n", strings.Join(names, ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("bench coverage: %v", err)
	}
	if *reps < 1 || *largeReps < 0 || *boot < 20 {
		return usagef("bench coverage: --replicates must be at least 1, --large-replicates 0 or more, --bootstrap at least 20")
	}
	var run []coverageCell
	for _, n := range strings.Split(*cellList, ",") {
		n = strings.TrimSpace(n)
		i := slices.IndexFunc(cells, func(c coverageCell) bool { return c.name == n })
		if i < 0 {
			return usagef("bench coverage: unknown cell %q (%s)", n, strings.Join(names, ", "))
		}
		run = append(run, cells[i])
	}
	fmt.Fprintf(env.stdout, "coverage of the nominal 95 %% intervals; %d CPUs; seed %d; coverage ± Monte-Carlo error √(p(1−p)/R); * outside 0.93–0.97 (approximate)\n", runtime.NumCPU(), *seed)
	start := time.Now()
	for _, c := range run {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := *reps
		if c.large && *largeReps > 0 {
			r = *largeReps
		}
		t0 := time.Now()
		step := max(1, r/10)
		res := c.run(plan.CoverageOptions{Replicates: r, Bootstrap: *boot, Seed: *seed, Progress: func(done int) {
			if done%step == 0 || done == r {
				fmt.Fprintf(env.stderr, "%s: %d/%d data sets\n", c.name, done, r)
			}
		}, Stop: func() bool { return ctx.Err() != nil }})
		if err := ctx.Err(); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "\n%s: %s\n  %d data sets, %d bootstrap replicates each; %s\n", c.name, c.design, r, *boot, time.Since(t0).Round(time.Second))
		printCoverage(env.stdout, res, *all)
	}
	fmt.Fprintf(env.stdout, "\ntotal %s\n", time.Since(start).Round(time.Second))
	return nil
}

// printCoverage prints one line per statistic: the method in use with its
// coverage, Monte-Carlo error, truth and mean width, then the candidates.
func printCoverage(w io.Writer, c plan.CoverageCell, all bool) {
	var stats []string
	byStat := map[string][]plan.CoverageRow{}
	for _, r := range c.Rows {
		if _, ok := byStat[r.Statistic]; !ok {
			stats = append(stats, r.Statistic)
		}
		byStat[r.Statistic] = append(byStat[r.Statistic], r)
	}
	width := 0
	for _, s := range stats {
		width = max(width, len(s))
	}
	fmt.Fprintf(w, "  %-*s  %-22s %-14s %-11s %6s %7s %6s  %s\n", width, "interval", "method in use", "coverage", "verdict", "truth", "width", "given", "other methods")
	for _, s := range stats {
		var use *plan.CoverageRow
		var others []string
		for i, r := range byStat[s] {
			if r.InUse {
				use = &byStat[s][i]
			} else if all {
				others = append(others, fmt.Sprintf("%s %s", r.Method, fmtCoverage(r)))
			}
		}
		if use == nil {
			continue
		}
		verdict := "ok"
		if use.Reported == 0 || use.Approximate() {
			verdict = "approximate"
		}
		fmt.Fprintf(w, "  %-*s  %-22s %-14s %-11s %6.3f %7.3f %6d  %s\n", width, s, use.Method, fmtCoverage(*use), verdict, use.Truth, use.MeanWidth(), use.Reported, strings.Join(others, "; "))
	}
}

func fmtCoverage(r plan.CoverageRow) string {
	if r.Reported == 0 {
		return "never given"
	}
	mark := " "
	if r.Approximate() {
		mark = "*"
	}
	return fmt.Sprintf("%.3f±%.3f%s", r.Coverage(), r.MCError(), mark)
}
