package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

const benchAltTestUsage = `Usage: pragmalab bench alt-test [options]

Time "analyze alt-test" (docs/statistics.md#alt-test) on synthetic files:
by default 200 humans who each rate all of 2,000 items on a 1–7 scale
(400,000 rows) and 5 models (10,000 rows), scored by −RMSE on z-scores, the
heaviest of the scorings. The time covers reading both CSV files, the
z-scores, every human's leave-one-out scores against every model, the
t-tests, Benjamini–Yekutieli and the JSON. The target: under 5 s (the
median of the runs is reported; exit 1 when it is not met).

Options:
`

// benchAltTestTarget is the time for 200 humans × 2,000 items × 5 models.
const benchAltTestTarget = 5 * time.Second

func benchAltTest(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench alt-test", benchAltTestUsage, env)
	humans := fs.Int("humans", 200, "human annotators, each rating every item")
	items := fs.Int("items", 2000, "items")
	models := fs.Int("models", 5, "models")
	scoring := fs.String("scoring", "neg-rmse", `"neg-rmse" (with --zscore) or "accuracy"`)
	runs := fs.Int("runs", 3, "timed runs (the median is reported)")
	seed := fs.Uint64("seed", 1, "random seed of the labels")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *humans < 2 || *items < 30 || *models < 1 || *runs < 1 {
		return usagef("bench alt-test: --humans must be at least 2, --items at least 30, --models and --runs at least 1")
	}
	if *scoring != "neg-rmse" && *scoring != "accuracy" {
		return usagef("bench alt-test: --scoring %q: want neg-rmse or accuracy", *scoring)
	}
	dir, err := os.MkdirTemp("", "pragmalab-bench-alttest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	hPath, mPath := filepath.Join(dir, "humans.csv"), filepath.Join(dir, "models.csv")
	if err := writeAltBenchFiles(hPath, mPath, *humans, *items, *models, *seed); err != nil {
		return err
	}
	cmd := []string{"--humans", hPath, "--models", mPath, "--scoring", *scoring, "--epsilon", "0.1", "--json"}
	if *scoring == "neg-rmse" {
		cmd = append(cmd, "--zscore")
	}
	times, cpus, out, err := timeAltTest(ctx, cmd, *runs, env)
	if err != nil {
		return err
	}
	med := median(times)
	verdict := "met"
	if med >= benchAltTestTarget {
		verdict = "NOT met"
	}
	fmt.Fprintf(env.stdout, "alt-test: %d humans × %d items (%d rows) × %d models, %s; %d bytes of JSON\n",
		*humans, *items, *humans**items, *models, *scoring, int(out))
	fmt.Fprintf(env.stdout, "median of %d runs: %.3f s wall, %.3f s CPU (target < %.0f s wall: %s)\n",
		*runs, med.Seconds(), median(cpus).Seconds(), benchAltTestTarget.Seconds(), verdict)
	if verdict != "met" {
		return fmt.Errorf("bench alt-test: %.3f s, over the %.0f s target", med.Seconds(), benchAltTestTarget.Seconds())
	}
	return nil
}

// timeAltTest runs "analyze alt-test" runs times, its output counted and
// dropped, and returns each run's wall and CPU time and the last run's
// output size.
func timeAltTest(ctx context.Context, cmd []string, runs int, env *Env) (times, cpus []time.Duration, _ countWriter, _ error) {
	var out countWriter
	for range runs {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		out = 0
		quiet := &Env{getenv: env.getenv, stdin: env.stdin, stdout: &out, stderr: env.stderr}
		cpu0 := cpuTime()
		start := time.Now()
		if err := analyzeAltTest(cmd, quiet); err != nil {
			return nil, nil, 0, fmt.Errorf("bench alt-test: %w", err)
		}
		times = append(times, time.Since(start))
		cpus = append(cpus, cpuTime()-cpu0)
	}
	return times, cpus, out, nil
}

// countWriter counts what is written and keeps none of it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// writeAltBenchFiles writes the synthetic files: each item has a true value
// on 1–7; a human's label is it plus noise of their own size, a model's it
// plus noise growing with the model's number.
func writeAltBenchFiles(hPath, mPath string, humans, items, models int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 31))
	truth := make([]float64, items)
	for i := range truth {
		truth[i] = 1 + 6*rng.Float64()
	}
	label := func(v float64) string { return strconv.Itoa(int(math.Round(max(1, min(7, v))))) }
	write := func(path, header string, rows func(w io.Writer)) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		fmt.Fprintln(w, header)
		rows(w)
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := write(hPath, "annotator,item_id,label", func(w io.Writer) {
		for h := range humans {
			sd := 0.6 + 0.8*rng.Float64()
			for i := range items {
				fmt.Fprintf(w, "h%d,item%d,%s\n", h, i, label(truth[i]+sd*rng.NormFloat64()))
			}
		}
	}); err != nil {
		return err
	}
	return write(mPath, "model,item_id,label", func(w io.Writer) {
		for m := range models {
			sd := 0.3 + 0.5*float64(m)
			for i := range items {
				fmt.Fprintf(w, "model%d,item%d,%s\n", m, i, label(truth[i]+sd*rng.NormFloat64()))
			}
		}
	})
}
