package studies

import (
	"context"
	"time"

	"pragmalab/domain"
)

// The studies as `pragmalab study` and `pragmalab links` see them
// (docs/cli.md#study): the list, archiving, cloning, the experts' links.
// Changes are written to the audit log in the actor's name, worded as the
// admin pages word them.

// StudyListing is one study with its counts, as `pragmalab study list`
// prints it (the dashboard's figures).
type StudyListing struct {
	Study *domain.Study
	// State is the study's state (draft, open, paused, closed); "" where
	// studies have no state.
	State string
	// Items counts its items or, for IMPAQTS studies, its passages.
	Items int
	// Done and UnderWay count the people who finished everything given to
	// them and those who have not yet.
	Done, UnderWay int
	// Answers in all, Unexported of them given after the last export, and
	// the time of the Last one (zero: none yet).
	Answers, Unexported int
	Last                time.Time
}

// StudyListings lists every study, newest first, with its counts.
func (s *Service) StudyListings(ctx context.Context) ([]StudyListing, error) {
	all, err := s.db.Dashboard(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]StudyListing, len(all))
	for i, o := range all {
		out[i] = StudyListing{Study: o.Study, State: o.State, Items: o.Items, Done: o.Done, UnderWay: o.UnderWay,
			Answers: o.Answers, Unexported: o.Unexported, Last: o.Last}
	}
	return out, nil
}

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

// StudyExperts lists the experts invited to a study (pilots left out),
// with their tokens and whether their link was revoked.
func (s *Service) StudyExperts(ctx context.Context, studyID int64) ([]domain.Annotator, error) {
	return s.db.Annotators(ctx, studyID)
}
