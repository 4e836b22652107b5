package studies

import (
	"context"

	"pragmalab/domain"
)

// A study's admin (docs/studies.md#managing-studies): the dashboard,
// creating, renaming, archiving, cloning and deleting a study, its state
// and the people invited to it.

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

// ReissueAnnotator gives an expert a new link, the old one dead, and
// returns the expert's name.
func (v *Service) ReissueAnnotator(ctx context.Context, studyID, id int64) (string, error) {
	a, err := v.db.ReissueAnnotator(ctx, studyID, id)
	if err != nil {
		return "", err
	}
	return a.Name, nil
}
