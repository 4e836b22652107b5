package cli

import (
	"context"

	"pragmalab/runner"
	"pragmalab/store"
	"pragmalab/studies"
)

// This file is the command line's composition root, the one cli file that
// imports store (docs/architecture.md#cli): every command reaches the
// database through a studies.Service (studies.Open, or openService here),
// and only the web server and the scoring-job runner, which are built
// over the store itself, are handed it, from here.

// openService opens the database at path for a command that also starts
// the web server or runs a scoring job: the Service, and the store to give
// web.Config or jobRunner and nothing else. Closing the Service closes the
// store.
func openService(ctx context.Context, path string, o studies.OpenOptions) (*studies.Service, *store.DB, error) {
	db, err := store.OpenWith(ctx, path, store.Options{Synchronous: o.Synchronous})
	if err != nil {
		return nil, nil, err
	}
	return studies.New(db, o.Now), db, nil
}

// jobRunner runs scoring jobs to the end in this process (not in a
// server's background runner): for score, the demo's copy-target job and
// the scoring benchmark.
type jobRunner struct {
	db     *store.DB
	getenv func(string) string
}

// create makes the job of spec, queued.
func (j jobRunner) create(ctx context.Context, spec runner.Spec) (*store.Job, error) {
	return runner.Create(ctx, j.db, spec, j.getenv)
}

// run runs the job to its end in the caller's goroutine, calling progress
// (if not nil) with the prompts answered, in all and failed after every
// batch of answers is saved.
func (j jobRunner) run(ctx context.Context, jobID int64, progress func(answered, total, failed int)) error {
	var saved func(store.JobProgress)
	if progress != nil {
		saved = func(p store.JobProgress) { progress(p.Answered, p.Total, p.Failed) }
	}
	return runner.New(j.db, nil, j.getenv, nil).RunJob(ctx, jobID, saved)
}

// results reads a finished job's results.
func (j jobRunner) results(ctx context.Context, jobID int64) (*runner.Results, error) {
	return runner.LoadResults(ctx, j.db, jobID)
}
