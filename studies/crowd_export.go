package studies

import (
	"context"
	"io"

	"pragmalab/domain"
	"pragmalab/store"
)

// LLMEchoFunc runs the LLM-echo check on a study's participants
// (comparisons.AssessLLMEcho, docs/statistics.md#llm-echo): it sets their
// evidence and flags and returns one sentence for the participants table.
type LLMEchoFunc func(ctx context.Context, studyID int64, set domain.CrowdSettings, reps []store.CrowdParticipantReport) (string, error)

// ExportCrowdParticipants writes the participants export
// (docs/formats.md#crowd-participants-export) with the LLM-echo check run
// on it (SetLLMEcho): its integrity_flags carry llm_echo.
func (s *Service) ExportCrowdParticipants(ctx context.Context, studyID int64, w io.Writer) error {
	return ExportCrowdParticipants(ctx, s.db, studyID, w, s.echo)
}

// ExportCrowdParticipants is Service.ExportCrowdParticipants on db, the
// check run by echo (nil: not run).
func ExportCrowdParticipants(ctx context.Context, db *store.DB, studyID int64, w io.Writer, echo LLMEchoFunc) error {
	if echo == nil {
		return db.ExportCrowdParticipants(ctx, studyID, w)
	}
	return db.ExportCrowdParticipantsWith(ctx, studyID, w, func(ctx context.Context, reps []store.CrowdParticipantReport, set domain.CrowdSettings) error {
		_, err := echo(ctx, studyID, set, reps)
		return err
	})
}
