package comparisons_test

import (
	"context"
	"testing"

	"pragmalab/analysis/modelhuman"
	"pragmalab/runner"
)

// TestSkillSeparatesTheBaselineJobs (docs/statistics.md#chance-baselines-and-skill): on a crowd study
// of batches of 5 raters, as the demo's, the built-in `uniform` and
// `random` likert jobs score a skill at or below chance on the Analysis
// page's models beside the humans, while a model that knows how the
// cancellation moves the ratings (each condition's distribution over the
// other items, never the item's own ratings) scores clearly above it,
// the intervals apart — though the uniform's share within the ceiling is
// close to the good model's.
func TestSkillSeparatesTheBaselineJobs(t *testing.T) {
	ctx := context.Background()
	svc, cmp, study, jobs := benchCrowdLikert(t, 60, 5, runner.Spec{Scorer: "uniform", Seed: 1}, runner.Spec{Scorer: "random", Seed: 1})
	uniformJob := jobs[0]
	ms, err := cmp.ModelsBesideHumans(ctx, study)
	if err != nil || len(ms) != 2 {
		t.Fatalf("%d models, %v", len(ms), err)
	}
	for _, m := range ms {
		if m.Skill == nil || m.SkillCI == nil {
			t.Fatalf("%s: no skill score: %+v", m.Scorer, m)
		}
		t.Logf("%s: skill %.2f %v vs %s; within %.2f (uniform %.2f, marginal %.2f)", m.Scorer, *m.Skill, *m.SkillCI, m.SkillBaseline, *m.Within, *m.UniformWithin, *m.MarginalWithin)
		if *m.Skill > 0.05 {
			t.Errorf("%s: skill %.3f, want at or below chance", m.Scorer, *m.Skill)
		}
	}

	// The good model, on the same units as the uniform job.
	res, err := svc.JobResults(ctx, uniformJob)
	if err != nil {
		t.Fatal(err)
	}
	u, err := cmp.LikertUnits(ctx, res)
	if err != nil {
		t.Fatal(err)
	}
	units, err := modelhuman.DistUnitsFromRatings(u.Rated, u.Model)
	if err != nil {
		t.Fatal(err)
	}
	for i := range units {
		var pooled []int
		for _, o := range units {
			if o.Condition == units[i].Condition && o.Item != units[i].Item {
				pooled = append(pooled, o.Human...)
			}
		}
		units[i].Model = modelhuman.Histogram(pooled, u.Points)
	}
	opt := modelhuman.DefaultDistOptions()
	opt.Points = u.Points
	d, err := modelhuman.CompareDistributions(units, opt)
	if err != nil {
		t.Fatal(err)
	}
	g := d.SummaryOf(modelhuman.MeasureJSD, "all")
	t.Logf("knows the conditions: skill %.2f %v vs %s; within %.2f", *g.Skill, *g.SkillCI, g.SkillBaseline, *g.WithinShare)
	if *g.Skill < 0.2 {
		t.Errorf("a model that knows the conditions: skill %.3f, want clearly above 0", *g.Skill)
	}
	for _, m := range ms {
		if g.SkillCI[0] <= m.SkillCI[1] {
			t.Errorf("the good model's skill %v overlaps %s's %v", *g.SkillCI, m.Scorer, *m.SkillCI)
		}
	}
}
