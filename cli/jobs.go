package cli

import (
	"context"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/studies"
	"time"
)

// jobRunner runs scoring jobs to the end in this process (not in a
// server's background runner): for score, the demo's copy-target job and
// the scoring benchmark. getenv reads the API keys.
type jobRunner struct {
	svc    *app
	getenv func(string) string
	// batchPoll, when set, is the first wait between status reads of a
	// batch job (score --batch-poll).
	batchPoll time.Duration
}

// create makes the job of spec, queued.
func (j jobRunner) create(ctx context.Context, spec runner.Spec) (*domain.Job, error) {
	return j.svc.LaunchJob(ctx, spec, j.getenv)
}

// run runs the job to its end in the caller's goroutine (progress as
// studies.Service.RunJob).
func (j jobRunner) run(ctx context.Context, jobID int64, progress func(answered, total, failed int)) error {
	return j.svc.RunJobWith(ctx, jobID, j.getenv, progress, studies.RunOptions{BatchPoll: j.batchPoll})
}

// results reads a finished job's results.
func (j jobRunner) results(ctx context.Context, jobID int64) (*runner.Results, error) {
	return j.svc.JobResults(ctx, jobID)
}
