package studies

import (
	"context"

	"pragmalab/domain"
)

// A study's admin (docs/studies.md#managing-studies): the dashboard,
// creating, renaming, archiving, cloning and deleting a study, its state
// and the people invited to it.

// Study returns the study with the given id (ENOTFOUND if there is none).
func (v *Service) Study(ctx context.Context, id int64) (*domain.Study, error) {
	return v.db.Study(ctx, id)
}

// Dashboard lists every study with its counts, newest first: those in use,
// then the archived ones apart.
func (v *Service) Dashboard(ctx context.Context) (inUse, archived []domain.StudyOverview, err error) {
	all, err := v.db.Dashboard(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range all {
		if o.Study.Archived() {
			archived = append(archived, o)
		} else {
			inUse = append(inUse, o)
		}
	}
	return inUse, archived, nil
}

// CreateStudy stores a new study (a draft) and sets its ID.
func (v *Service) CreateStudy(ctx context.Context, s *domain.Study) error {
	return v.db.CreateStudy(ctx, s)
}

// RenameStudy gives a study a new name.
func (v *Service) RenameStudy(ctx context.Context, id int64, name string) error {
	return v.db.RenameStudy(ctx, id, name)
}

// SetStudyArchived archives a study (read-only, folded away on the
// dashboard) or restores it.
func (v *Service) SetStudyArchived(ctx context.Context, id int64, archived bool) error {
	return v.db.SetStudyArchived(ctx, id, archived)
}

// CloneStudy makes a new study with the same design, settings and items,
// and no answers.
func (v *Service) CloneStudy(ctx context.Context, id int64, name string) (*domain.Study, error) {
	return v.db.CloneStudy(ctx, id, name)
}

// StudyResponses sums up a study's answers, and those never exported.
func (v *Service) StudyResponses(ctx context.Context, id int64) (domain.Responses, error) {
	return v.db.StudyResponses(ctx, id)
}

// DeleteStudy deletes a study and everything in it once confirmName is its
// name; answers never exported also need force (ECONFLICT without). It
// returns the answers the study held, for the record.
func (v *Service) DeleteStudy(ctx context.Context, id int64, confirmName string, force bool) (domain.Responses, error) {
	resp, err := v.db.StudyResponses(ctx, id)
	if err != nil {
		return resp, err
	}
	return resp, v.db.DeleteStudy(ctx, id, confirmName, force)
}

// MarkExported records that a file of the study's responses was sent, so
// that deleting the study knows which answers are safe elsewhere.
func (v *Service) MarkExported(ctx context.Context, id int64) error {
	return v.db.MarkExported(ctx, id)
}

// StudyState is a study's state panel: what it lacks to open, its changes
// of state, and its pilot.
type StudyState struct {
	// Missing is the go-live checklist's open points (none for an open
	// study).
	Missing []string
	Changes []domain.StateChange
	// PilotToken opens the pilot link ("": none).
	PilotToken string
	Pilot      domain.PilotSummary
}

// StudyState reads the state panel of s.
func (v *Service) StudyState(ctx context.Context, s *domain.Study) (StudyState, error) {
	var st StudyState
	var err error
	if s.State != domain.StateOpen {
		if st.Missing, err = Checklist(ctx, v.db, s); err != nil {
			return st, err
		}
	}
	if st.Changes, err = v.db.StudyStateChanges(ctx, s.ID); err != nil {
		return st, err
	}
	if st.PilotToken, err = v.db.PilotLink(ctx, s.ID); err != nil {
		return st, err
	}
	st.Pilot, err = v.db.PilotSummary(ctx, s.ID)
	return st, err
}

// SetStudyState moves study st to state on an admin's request (by): to
// open through the go-live checklist, to any other state directly.
func (v *Service) SetStudyState(ctx context.Context, st *domain.Study, state, by string) error {
	if state == domain.StateOpen {
		return openStudy(ctx, v.db, st, by)
	}
	return v.db.SetStudyState(ctx, st.ID, state, by)
}

// RenameAnnotator changes an expert's name; their answers follow.
func (v *Service) RenameAnnotator(ctx context.Context, studyID, id int64, name string) error {
	return v.db.RenameAnnotator(ctx, studyID, id, name)
}

// RevokeAnnotator makes an expert's link stop working; the answers stay.
func (v *Service) RevokeAnnotator(ctx context.Context, studyID, id int64) error {
	return v.db.RevokeAnnotator(ctx, studyID, id)
}

// ReissueAnnotator gives an expert a new link, the old one dead, and
// returns the expert's name.
func (v *Service) ReissueAnnotator(ctx context.Context, studyID, id int64) (string, error) {
	a, err := v.db.ReissueAnnotator(ctx, studyID, id)
	if err != nil {
		return "", err
	}
	return a.Name, nil
}
