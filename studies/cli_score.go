package studies

import (
	"context"
	"encoding/json"

	"pragmalab/analysis"
	"pragmalab/store"
)

// What `pragmalab score` (docs/cli.md#score) needs of the database beside
// the job runner, which the command line's composition root builds over
// the store (cli/open.go).

// JobDone is the status of a job that asked every prompt.
const JobDone = store.JobDone

// ScoringJob returns the scoring job with the given id.
func (s *Service) ScoringJob(ctx context.Context, id int64) (*store.Job, error) {
	return s.db.Job(ctx, id)
}

// SetJobConfig replaces a job's model configuration (JSON), e.g. its
// endpoints before it is resumed.
func (s *Service) SetJobConfig(ctx context.Context, id int64, cfg json.RawMessage) error {
	return s.db.UpdateJobConfig(ctx, id, cfg)
}

// RequeueJob puts a finished, partial, failed or cancelled job back in the
// queue to ask its unanswered prompts again (ECONFLICT: it is queued or
// running already).
func (s *Service) RequeueJob(ctx context.Context, id int64) error {
	return s.db.RequeueJob(ctx, id)
}

// FailureReason is one error a job's failed prompts met, with how many
// prompts and the key of the first.
type FailureReason struct {
	Error   string
	Prompts int
	First   string
}

// JobFailureReasons groups a job's failed prompts by their error, most
// frequent first, at most limit of them.
func (s *Service) JobFailureReasons(ctx context.Context, jobID int64, limit int) ([]FailureReason, error) {
	rs, err := s.db.JobFailureReasons(ctx, jobID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]FailureReason, len(rs))
	for i, r := range rs {
		out[i] = FailureReason{Error: r.Error, Prompts: r.Prompts, First: r.First}
	}
	return out, nil
}

// AddJobOutputs adds a generation job's outputs to the rating screens of
// the explanation-rating study, all or nothing.
func (s *Service) AddJobOutputs(ctx context.Context, studyID int64, outs []store.Output) error {
	return s.db.ImportOutputs(ctx, studyID, outs)
}

// HumanToplinesOver computes the human toplines of a crowd study over the
// given items (HumanToplines), for a job's comparison with the humans; nil
// when nobody has rated them.
func (s *Service) HumanToplinesOver(ctx context.Context, crowdStudyID int64, items map[string]bool) (*analysis.Toplines, error) {
	return HumanToplines(ctx, s.db, crowdStudyID, func(key string) bool { return items[key] })
}
