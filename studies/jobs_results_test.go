package studies

import (
	"context"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
)

// runJob launches spec through the Service and runs it to its end with the
// runner, as the server's background runner would.
func runJob(t *testing.T, svc *Service, spec runner.Spec) *domain.Job {
	t.Helper()
	ctx := context.Background()
	noEnv := func(string) string { return "" }
	j, err := svc.LaunchJob(ctx, spec, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.New(svc.db, nil, noEnv, nil).RunJob(ctx, j.ID, nil); err != nil {
		t.Fatal(err)
	}
	if j, err = svc.StudyJob(ctx, spec.StudyID, j.ID); err != nil {
		t.Fatal(err)
	}
	return j
}

// TestJobsThroughTheService: the job pages' use cases keep a job to its
// study, compare a True/False job with the study's other finished jobs,
// and send a finished generation job's outputs only to an
// explanation-rating study.
func TestJobsThroughTheService(t *testing.T) {
	ctx := context.Background()
	db, ex := explainFixture(t)
	svc := New(db, nil)
	items := &domain.Study{Kind: domain.KindExpert, Name: "items", Lang: "en"}
	if err := db.CreateStudy(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(ctx, items.ID, runner.SyntheticItems(4)); err != nil {
		t.Fatal(err)
	}

	tf := runner.Spec{StudyID: items.ID, Task: scoring.TrueFalse, Scorer: "always-true"}
	first, second := runJob(t, svc, tf), runJob(t, svc, tf)
	l, err := svc.StudyJobs(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Jobs) != 2 || l.Data != 4 || l.Progress[first.ID].Answered == 0 || l.Progress[first.ID].Answered != l.Progress[first.ID].Total {
		t.Errorf("jobs list: %d jobs, %d items, progress %+v", len(l.Jobs), l.Data, l.Progress[first.ID])
	}
	res, err := svc.JobResults(ctx, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := svc.CompareJob(ctx, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Models) != 2 || c.Toplines != nil || c.HumanErr != nil || c.Human != nil {
		t.Errorf("comparison of job %d: %d model columns (want it and job %d), humans %v %v", second.ID, len(c.Models), first.ID, c.Toplines, c.HumanErr)
	}

	gen := runJob(t, svc, runner.Spec{StudyID: ex.ID, Task: scoring.Generation, Scorer: "copy-target", Strategy: scoring.ZeroShot})
	if _, err := svc.StudyJob(ctx, items.ID, gen.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("job %d of study %d read through study %d: %v", gen.ID, ex.ID, items.ID, err)
	}
	firstRes, err := svc.JobResults(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	genRes, err := svc.JobResults(ctx, gen.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SendJobOutputs(ctx, firstRes, ex.ID); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("a True/False job's outputs sent: %v", err)
	}
	if _, _, err := svc.SendJobOutputs(ctx, genRes, items.ID); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), "explanation-rating") {
		t.Errorf("outputs sent to an expert study: %v", err)
	}
	target, n, err := svc.SendJobOutputs(ctx, genRes, ex.ID)
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := db.ListPassages(ctx, ex.ID)
	if target.ID != ex.ID || n == 0 || n != len(ps) {
		t.Errorf("%d outputs sent to study %d, want the %d passages' to study %d", n, target.ID, len(ps), ex.ID)
	}
}
