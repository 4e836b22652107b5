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

// benchCrowdLikert seeds the bench crowd study of items items (with
// seed rng) and runs a likert job of each of jobs' scorer and seed to its end
// through the studies' Service; it returns that Service, the comparisons
// over it, the study and the jobs' ids in order.
func benchCrowdLikert(tb testing.TB, items int, rng uint64, jobs ...runner.Spec) (*studies.Service, *comparisons.Service, int64, []int64) {
	tb.Helper()
	ctx := context.Background()
	db := storetest.Open(tb)
	c, err := seed.New(db).SeedBenchCrowd(ctx, items, rng)
	if err != nil {
		tb.Fatal(err)
	}
	svc := studies.New(db, nil)
	noEnv := func(string) string { return "" }
	var ids []int64
	for _, spec := range jobs {
		spec.StudyID, spec.Task = c.StudyID, scoring.Likert
		j, err := svc.LaunchJob(ctx, spec, noEnv)
		if err != nil {
			tb.Fatal(err)
		}
		if err := svc.RunJob(ctx, j.ID, noEnv, nil); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	return svc, comparisons.New(db, svc), c.StudyID, ids
}

// BenchmarkModelsBesideHumans is a repeated view of the Analysis page's
// models beside the humans: a crowd study of the paper's size (271 items,
// 90 participants) with four finished likert jobs, nothing changed since
// the first view. Run: go test ./comparisons -run '^$' -bench ModelsBesideHumans
func BenchmarkModelsBesideHumans(b *testing.B) {
	ctx := context.Background()
	var jobs []runner.Spec
	for s := range uint64(4) {
		jobs = append(jobs, runner.Spec{Scorer: "random", Seed: s + 1})
	}
	_, cmp, study, _ := benchCrowdLikert(b, 271, 1, jobs...)
	first, err := cmp.ModelsBesideHumans(ctx, study)
	if err != nil || len(first) != 4 {
		b.Fatalf("%d models, %v", len(first), err)
	}
	for b.Loop() {
		if ms, err := cmp.ModelsBesideHumans(ctx, study); err != nil || len(ms) != 4 {
			b.Fatalf("%d models, %v", len(ms), err)
		}
	}
}
