package studies

import (
	"context"
	"io"
)

// The exporters of the study kinds not written elsewhere: expert
// judgements (ExportJudgements), context answers (ExportContextAnswers) and
// explanation ratings (ExportExplanationRatings) are beside their study
// pages. Every column is in docs/formats.md#exports.

// ExportRatings writes a crowd study's ratings, one row per rating
// (docs/formats.md#ratings-export).
func (s *Service) ExportRatings(ctx context.Context, studyID int64, w io.Writer) error {
	return s.db.ExportRatings(ctx, studyID, w)
}
