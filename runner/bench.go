package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
)

// BenchResult is one run of the scoring throughput benchmark.
type BenchResult struct {
	Prompts   int
	Persisted int
	Elapsed   time.Duration
	// Ideal is the time the fake model alone needs: ⌈prompts/concurrency⌉
	// round trips of its latency.
	Ideal time.Duration
}

// Bench runs a True/False job on items synthetic items (× 6 conditions × 2
// orders) against a fake OpenAI-compatible server with the given latency,
// at the given concurrency, in a new database under dir, and checks that
// every answer was persisted.
func Bench(ctx context.Context, dir string, items, concurrency int, latency time.Duration) (BenchResult, error) {
	var res BenchResult
	db, err := store.Open(ctx, filepath.Join(dir, "bench-scoring.db"))
	if err != nil {
		return res, err
	}
	defer db.Close()
	s := &store.Study{Kind: store.KindExpert, Name: "bench scoring", Lang: "en"}
	if err := db.CreateStudy(ctx, s); err != nil {
		return res, err
	}
	if err := db.ImportItems(ctx, s.ID, SyntheticItems(items)); err != nil {
		return res, err
	}
	srv := scoringtest.NewServer(latency)
	defer srv.Close()
	noEnv := func(string) string { return "" }
	spec := Spec{StudyID: s.ID, Task: scoring.TrueFalse, Scorer: ModelScorer,
		Config: scoring.Config{BaseURLs: []string{srv.URL}, Model: "fake", Concurrency: concurrency}}
	job, err := Create(ctx, db, spec, noEnv)
	if err != nil {
		return res, err
	}
	start := time.Now()
	if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start)
	p, err := db.JobProgress(ctx, job.ID)
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
