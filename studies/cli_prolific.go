package studies

import "context"

// What `pragmalab prolific` (docs/prolific.md) needs beside the Prolific
// use cases themselves (prolific.go).

// LinkProlificStudy links a crowd study to its study on Prolific, by the
// 24 hexadecimal characters of its id.
func (s *Service) LinkProlificStudy(ctx context.Context, studyID int64, prolificStudyID string) error {
	return s.db.LinkProlific(ctx, studyID, prolificStudyID)
}
