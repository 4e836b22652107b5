package studies

import "context"

// What `pragmalab prolific` (docs/prolific.md) needs beside the Prolific
// use cases themselves (prolific.go).

// Prolific returns the Prolific use cases over the Service's database, with
// the API token read through getenv.
func (s *Service) Prolific(getenv func(string) string) *Prolific {
	return NewProlific(s.db, getenv)
}

// LinkProlificStudy links a crowd study to its study on Prolific, by the
// 24 hexadecimal characters of its id.
func (s *Service) LinkProlificStudy(ctx context.Context, studyID int64, prolificStudyID string) error {
	return s.db.LinkProlific(ctx, studyID, prolificStudyID)
}

// RecordAudit writes an entry to the audit log of the study (0: of no
// study) in the actor's name: action is the short name the log lists,
// detail what was done.
func (s *Service) RecordAudit(ctx context.Context, actor string, studyID int64, action, detail string) error {
	return s.db.Audit(ctx, actor, studyID, action, detail)
}
