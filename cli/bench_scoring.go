package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"pragmalab/domain"

	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
	"pragmalab/studies"
)

// benchScoring is `pragmalab bench scoring`: a True/False job against a
// local fake model server with a fixed latency, every answer persisted.
func benchScoring(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench scoring", `Usage: pragmalab bench scoring [options]

Runs a True/False job of N synthetic items × 6 conditions × 2 orders against
an in-process fake OpenAI-compatible server that answers after a fixed
latency, with every answer persisted to a temporary SQLite database, and
prints the time taken. Target: 271 items (3,252 prompts) at concurrency 32
with 20 ms latency in under 5 s.

Options:
`, env)
	items := fs.Int("items", 271, "synthetic items")
	conc := fs.Int("concurrency", 32, "requests in flight")
	latency := fs.Duration("latency", 20*time.Millisecond, "latency of the fake model server")
	runs := fs.Int("runs", 3, "repetitions")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *items < 1 || *items > 100000 || *conc < 1 || *conc > 256 || *runs < 1 || *runs > 100 || *latency < 0 {
		return usagef("bench scoring: --items 1–100000, --concurrency 1–256, --runs 1–100, --latency ≥ 0")
	}
	dir, err := os.MkdirTemp("", "pragmalab-bench-scoring-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(env.stdout, "scoring: %d items × 6 conditions × 2 orders, concurrency %d, model latency %s\n", *items, *conc, *latency)
	var best time.Duration
	for i := range *runs {
		runDir, err := os.MkdirTemp(dir, "run-")
		if err != nil {
			return err
		}
		res, err := runScoringBench(ctx, runDir, *items, *conc, *latency)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "run %d: %d prompts, %d persisted, %s (%.0f prompts/s; the model alone needs %s, runner overhead %s)\n",
			i+1, res.Prompts, res.Persisted, res.Elapsed.Round(time.Millisecond), float64(res.Prompts)/res.Elapsed.Seconds(),
			res.Ideal, (res.Elapsed - res.Ideal).Round(time.Millisecond))
		if best == 0 || res.Elapsed < best {
			best = res.Elapsed
		}
	}
	fmt.Fprintf(env.stdout, "best: %s\n", best.Round(time.Millisecond))
	return nil
}

// scoringBenchResult is one run of the scoring throughput benchmark.
type scoringBenchResult struct {
	Prompts   int
	Persisted int
	Elapsed   time.Duration
	// Ideal is the time the fake model alone needs: ⌈prompts/concurrency⌉
	// round trips of its latency.
	Ideal time.Duration
}

// runScoringBench runs a True/False job on items synthetic items (× 6 conditions × 2
// orders) against a fake OpenAI-compatible server with the given latency,
// at the given concurrency, in a new database under dir, and checks that
// every answer was persisted.
func runScoringBench(ctx context.Context, dir string, items, concurrency int, latency time.Duration) (scoringBenchResult, error) {
	var res scoringBenchResult
	svc, err := openApp(ctx, filepath.Join(dir, "bench-scoring.db"), studies.OpenOptions{})
	if err != nil {
		return res, err
	}
	defer svc.Close()
	s := &domain.Study{Kind: domain.KindExpert, Name: "bench scoring", Lang: "en"}
	if err := svc.store.CreateStudy(ctx, s); err != nil {
		return res, err
	}
	if err := svc.store.ImportItems(ctx, s.ID, runner.SyntheticItems(items)); err != nil {
		return res, err
	}
	srv := scoringtest.NewServer(latency)
	defer srv.Close()
	jobs := jobRunner{svc: svc, getenv: func(string) string { return "" }}
	spec := runner.Spec{StudyID: s.ID, Task: scoring.TrueFalse, Scorer: runner.ModelScorer,
		Config: scoring.Config{BaseURLs: []string{srv.URL}, Model: "fake", Concurrency: concurrency}}
	job, err := jobs.create(ctx, spec)
	if err != nil {
		return res, err
	}
	start := time.Now()
	if err := jobs.run(ctx, job.ID, nil); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start)
	p, err := svc.store.JobProgress(ctx, job.ID)
	if err != nil {
		return res, err
	}
	res.Prompts, res.Persisted = p.Total, p.Answered
	res.Ideal = time.Duration((p.Total+concurrency-1)/concurrency) * latency
	if p.Answered != p.Total {
		return res, fmt.Errorf("bench: %d of %d answers persisted (%d failed)", p.Answered, p.Total, p.Failed)
	}
	return res, nil
}
