package studies

import (
	"context"
	"io"
)

// ExportCrowdJustifications writes a crowd study's typed justifications as
// CSV (docs/formats.md#justifications-export).
func (s *Service) ExportCrowdJustifications(ctx context.Context, studyID int64, w io.Writer) error {
	return s.db.ExportCrowdJustifications(ctx, studyID, w)
}
