package studies

import (
	"context"
	"io"

	"pragmalab/domain"
	"pragmalab/runner"
)

// Scoring at scale (docs/scoring.md#engines): many models in one go, the
// size and cost of a job before it runs, its batches, and the export and
// import of the OpenAI batch format for offline runners.

// LaunchJobs validates the specs (one per model, same study, task and
// prompts), builds the prompts once and stores one queued job per spec,
// all or nothing; the caller wakes the runner.
func (s *Service) LaunchJobs(ctx context.Context, specs []runner.Spec, getenv func(string) string) ([]*domain.Job, error) {
	return runner.CreateGroup(ctx, s.db, specs, getenv)
}

// EstimateLaunch is the size and cost of the jobs specs would create,
// without creating them (score --dry-run, the launch form's estimate).
func (s *Service) EstimateLaunch(ctx context.Context, specs []runner.Spec, getenv func(string) string, prices map[string]runner.Price) ([]runner.Estimate, error) {
	for i := range specs {
		if err := specs[i].Validate(getenv); err != nil {
			return nil, err
		}
	}
	return runner.EstimateSpecs(ctx, s.db, specs, prices)
}

// EstimateJob is the size and cost of what a job has left to ask.
func (s *Service) EstimateJob(ctx context.Context, j *domain.Job, prices map[string]runner.Price) (runner.Estimate, error) {
	return runner.EstimateJob(ctx, s.db, j, prices)
}

// ExportJobBatch writes a job's unanswered prompts as OpenAI batch JSONL
// and returns how many.
func (s *Service) ExportJobBatch(ctx context.Context, jobID int64, w io.Writer) (int, error) {
	return runner.ExportBatch(ctx, s.db, jobID, w)
}

// ImportJobBatch reads an offline runner's output into a job, all or
// nothing (runner.ImportBatch); getenv reads the job's API key, blanked
// from what the file's errors echo.
func (s *Service) ImportJobBatch(ctx context.Context, jobID int64, data []byte, getenv func(string) string) (*runner.ImportReport, error) {
	return runner.ImportBatch(ctx, s.db, jobID, data, getenv)
}

// groupFirst orders a study's jobs for a comparison: those launched with
// job jobID first (in their order), then the others by id.
func (s *Service) groupFirst(ctx context.Context, jobID int64, jobs []*domain.Job) ([]*domain.Job, error) {
	group, err := s.db.JobGroup(ctx, jobID)
	if err != nil {
		return nil, err
	}
	in := map[int64]bool{}
	for _, id := range group {
		in[id] = true
	}
	sorted := runner.SortedJobs(jobs)
	out := make([]*domain.Job, 0, len(sorted))
	for _, j := range sorted {
		if in[j.ID] {
			out = append(out, j)
		}
	}
	for _, j := range sorted {
		if !in[j.ID] {
			out = append(out, j)
		}
	}
	return out, nil
}
