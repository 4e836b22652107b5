package comparisons_test

import (
	"context"
	"testing"

	"pragmalab/cli/seed"
	"pragmalab/comparisons"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store/storetest"
	"pragmalab/studies"
)

// BenchmarkModelsBesideHumans is a repeated view of the Analysis page's
// models beside the humans: a crowd study of the paper's size (271 items,
// 90 participants) with four finished likert jobs, nothing changed since
// the first view. Run: go test ./comparisons -run '^$' -bench ModelsBesideHumans
func BenchmarkModelsBesideHumans(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b)
	c, err := seed.New(db).SeedBenchCrowd(ctx, 271, 1)
	if err != nil {
		b.Fatal(err)
	}
	svc := studies.New(db, nil)
	cmp := comparisons.New(db, svc)
	noEnv := func(string) string { return "" }
	for s := range uint64(4) {
		j, err := svc.LaunchJob(ctx, runner.Spec{StudyID: c.StudyID, Task: scoring.Likert, Scorer: "random", Seed: s + 1}, noEnv)
		if err != nil {
			b.Fatal(err)
		}
		if err := svc.RunJob(ctx, j.ID, noEnv, nil); err != nil {
			b.Fatal(err)
		}
	}
	first, err := cmp.ModelsBesideHumans(ctx, c.StudyID)
	if err != nil || len(first) != 4 {
		b.Fatalf("%d models, %v", len(first), err)
	}
	for b.Loop() {
		if ms, err := cmp.ModelsBesideHumans(ctx, c.StudyID); err != nil || len(ms) != 4 {
			b.Fatalf("%d models, %v", len(ms), err)
		}
	}
}
