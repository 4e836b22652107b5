package studies

import (
	"context"
	"io"

	"pragmalab/domain"
)

// The exporters of the study kinds not written elsewhere: expert
// judgements (ExportJudgements), context answers (ExportContextAnswers) and
// explanation ratings (ExportExplanationRatings) are beside their study
// pages. Every column is in docs/formats.md#exports.

// Study returns the study with the given id (ENOTFOUND if there is none).
func (s *Service) Study(ctx context.Context, id int64) (*domain.Study, error) {
	return s.db.Study(ctx, id)
}

// ExportRatings writes a crowd study's ratings, one row per rating
// (docs/formats.md#ratings-export).
func (s *Service) ExportRatings(ctx context.Context, studyID int64, w io.Writer) error {
	return s.db.ExportRatings(ctx, studyID, w)
}

// ExportCrowdParticipants writes a crowd study's participants: Prolific
// ids, times, status, failed checks (docs/formats.md#crowd-participants-export).
func (s *Service) ExportCrowdParticipants(ctx context.Context, studyID int64, w io.Writer) error {
	return s.db.ExportCrowdParticipants(ctx, studyID, w)
}

// MarkExported records that a file of the study's answers has just been
// written: the answers up to now are in a file, so deleting the study no
// longer asks twice for them.
func (s *Service) MarkExported(ctx context.Context, studyID int64) error {
	return s.db.MarkExported(ctx, studyID)
}
