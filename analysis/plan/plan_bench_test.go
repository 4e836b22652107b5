package plan

import (
	"math/rand/v2"
	"pragmalab/analysis/toplines"
	"testing"
)

// BenchmarkPlanFiveNs is the planner's benchmark (docs/performance.md#benchmarks):
// `analyze plan` for 5 numbers of participants from a 60-participant
// pilot of 40 items, with the command's defaults (4 simulated studies per
// number, 500 bootstrap replicates each). The target is under 20 s.
func BenchmarkPlanFiveNs(b *testing.B) {
	pilot := SimulateCrowd(rand.New(rand.NewPCG(100, 7)), CrowdDesign{Items: 40, Batches: 10, PerBatch: 6})
	opt := PlanOptions{Participants: []int{60, 120, 240, 480, 960}, Options: toplines.DefaultOptions()}
	b.ResetTimer()
	for range b.N {
		if _, err := PlanToplines(pilot, opt); err != nil {
			b.Fatal(err)
		}
	}
}
