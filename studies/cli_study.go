package studies

import (
	"context"

	"pragmalab/domain"
)

// The studies as `pragmalab study` and `pragmalab links` see them
// (docs/cli.md#study): the list, archiving, cloning, the experts' links.
// Changes are written to the audit log in the actor's name, worded as the
// admin pages word them.

// ArchiveOrRestoreStudy archives a study (hidden from the dashboard, read-only) or,
// with restore, restores it.
func (s *Service) ArchiveOrRestoreStudy(ctx context.Context, actor string, studyID int64, restore bool) error {
	if err := s.db.SetStudyArchived(ctx, studyID, !restore); err != nil {
		return err
	}
	return s.db.Audit(ctx, actor, studyID, "archive or restore study", AuditStudyArchived(!restore))
}

// CopyStudy makes a new study with the same design, settings and items
// as the study and no answers, named name ("": "Copy of …"), and returns
// it.
func (s *Service) CopyStudy(ctx context.Context, actor string, studyID int64, name string) (*domain.Study, error) {
	c, err := s.db.CloneStudy(ctx, studyID, name)
	if err != nil {
		return nil, err
	}
	return c, s.db.Audit(ctx, actor, studyID, "clone study", AuditStudyCloned(c.ID, c.Name))
}
