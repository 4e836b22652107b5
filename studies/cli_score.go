package studies

import (
	"context"
	"encoding/json"

	"pragmalab/domain"
)

// What `pragmalab score` (docs/cli.md#score) needs of the database beside
// the job runner, which the command line's composition root builds over
// the store (cli/open.go).

// ScoringJob returns the scoring job with the given id.
func (s *Service) ScoringJob(ctx context.Context, id int64) (*domain.Job, error) {
	return s.db.Job(ctx, id)
}

// SetJobConfig replaces a job's model configuration (JSON), e.g. its
// endpoints before it is resumed.
func (s *Service) SetJobConfig(ctx context.Context, id int64, cfg json.RawMessage) error {
	return s.db.UpdateJobConfig(ctx, id, cfg)
}

// AddJobOutputs adds a generation job's outputs to the rating screens of
// the explanation-rating study, all or nothing.
func (s *Service) AddJobOutputs(ctx context.Context, studyID int64, outs []domain.Output) error {
	return s.db.ImportOutputs(ctx, studyID, outs)
}
