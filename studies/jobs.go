package studies

import (
	"context"
	"encoding/json"

	"pragmalab/runner"
	"pragmalab/scoring"
)

// The model-scoring jobs' use cases (docs/scoring.md): a study's prompt
// templates and the deletion of a job; jobs_results.go launches, reads
// and compares jobs through the runner.

// PromptTemplates returns a study's prompt templates (ours where it has
// none) and whether it has templates of its own.
func (s *Service) PromptTemplates(ctx context.Context, studyID int64) (scoring.Templates, bool, error) {
	t, err := runner.Templates(ctx, s.db, studyID)
	if err != nil {
		return t, false, err
	}
	return t, s.HasOwnPromptTemplates(ctx, studyID), nil
}

// HasOwnPromptTemplates reports whether the study has prompt templates of
// its own (false also when that cannot be read: the page then offers no
// reset).
func (s *Service) HasOwnPromptTemplates(ctx context.Context, studyID int64) bool {
	_, custom, _ := s.db.ScoringTemplates(ctx, studyID)
	return custom
}

// InvalidTemplates is the error of prompt templates that do not parse or
// render: nothing was saved.
type InvalidTemplates struct{ Err error }

func (e *InvalidTemplates) Error() string { return e.Err.Error() }
func (e *InvalidTemplates) Unwrap() error { return e.Err }

// SavePromptTemplates saves the study's prompt templates, each of which
// must parse and render (*InvalidTemplates otherwise); new jobs use them.
func (s *Service) SavePromptTemplates(ctx context.Context, studyID int64, t scoring.Templates) error {
	if err := t.Validate(); err != nil {
		return &InvalidTemplates{err}
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return s.db.SaveScoringTemplates(ctx, studyID, b)
}

// ResetPromptTemplates drops the study's own prompt templates: new jobs
// use ours.
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it names what an empty template set means (the defaults).
func (s *Service) ResetPromptTemplates(ctx context.Context, studyID int64) error {
	return s.db.SaveScoringTemplates(ctx, studyID, nil)
}
