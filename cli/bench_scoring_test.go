package cli

import (
	"context"
	"testing"
	"time"
)

// BenchmarkScoringJob is the throughput target of `pragmalab bench scoring`
// (docs/cli.md#bench): 271 items × 6 conditions × 2 orders (3,252 prompts)
// at concurrency 32 against a fake server with 20 ms latency, every answer
// persisted; the target is < 5 s.
func BenchmarkScoringJob(b *testing.B) {
	for b.Loop() {
		res, err := runScoringBench(context.Background(), b.TempDir(), 271, 32, 20*time.Millisecond)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Prompts)/res.Elapsed.Seconds(), "prompts/s")
		b.ReportMetric(res.Elapsed.Seconds(), "s/job")
	}
}
