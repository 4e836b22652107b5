package cli

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"pragmalab/analysis/agreement"
	"pragmalab/analysis/plan"
)

const benchQualityUsage = `Usage: pragmalab bench quality [options]

Fit the annotator models (Dawid–Skene by EM and MACE by variational EM,
docs/statistics.md#annotator-models) to synthetic judgements: by default
100,000 plausibility judgements by 50 annotators, 10 per item (10,000
items). The target: both models in under 2 s. The median of the runs is
reported, wall and CPU time (MACE's starts run on every core, so on an
idle machine the wall time is about the CPU time over the cores; on a busy
one the wall time mostly measures the other work), with Dawid–Skene's
iterations.

Options:
`

// benchQualityTarget is the time to fit both models on 100,000 judgements.
const benchQualityTarget = 2 * time.Second

func benchQuality(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench quality", benchQualityUsage, env)
	n := fs.Int("judgements", 100_000, "judgements to fit")
	annotators := fs.Int("annotators", 50, "annotators")
	perItem := fs.Int("per-item", 10, "annotators judging each item")
	runs := fs.Int("runs", 3, "timed runs (the median is reported)")
	seed := fs.Uint64("seed", 1, "random seed of the judgements")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 1 || *annotators < 2 || *perItem < 2 || *runs < 1 {
		return usagef("bench quality: --judgements and --runs must be at least 1, --annotators and --per-item at least 2")
	}
	js := plan.SyntheticJudgements(*n, *annotators, *perItem, *seed)
	var times, cpus []time.Duration
	var m *agreement.AnnotatorModels
	for range *runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		cpu0 := cpuTime()
		start := time.Now()
		models := agreement.AnnotatorModelsOf(js)
		times = append(times, time.Since(start))
		cpus = append(cpus, cpuTime()-cpu0)
		m = models["plausibility"]
	}
	if m == nil {
		return fmt.Errorf("bench quality: no model fitted")
	}
	med, cpu := median(times), median(cpus)
	verdict := "met"
	if med >= benchQualityTarget {
		verdict = "NOT met"
	}
	fmt.Fprintf(env.stdout, "annotator models on %d judgements by %d annotators (%d items, %d per item)\n", len(js), *annotators, m.Items, *perItem)
	fmt.Fprintf(env.stdout, "Dawid–Skene: %d iterations (converged %v); MACE: %d starts × %d iterations\n",
		m.DawidSkene.Iterations, m.DawidSkene.Converged, agreement.MACERestarts, agreement.MACEIterations)
	fmt.Fprintf(env.stdout, "median of %d runs: %.3f s wall, %.3f s CPU on %d cores (target < %.0f s wall: %s)\n",
		*runs, med.Seconds(), cpu.Seconds(), runtime.GOMAXPROCS(0), benchQualityTarget.Seconds(), verdict)
	return nil
}
