package studies

import (
	"context"
	"io"

	"pragmalab/analysis/contextsurvey"
	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// PassageCounts counts a study's passages: in all, and by kind × period.
type PassageCounts struct {
	Total  int
	Counts map[string]int
}

// ContextStudyReport is what the admin page of a context-expansion study
// shows (docs/studies.md#context-design).
type ContextStudyReport struct {
	Settings    domain.ContextSettings
	Passages    PassageCounts
	Surveys     []domain.ContextSurvey
	Annotators  []domain.Annotator
	Assignments []domain.ContextAssignment
}

// PassageCounts counts the study's passages for its admin page.
func (s *Service) PassageCounts(ctx context.Context, studyID int64) (PassageCounts, error) {
	counts, total, err := s.db.PassageCounts(ctx, studyID)
	return PassageCounts{Total: total, Counts: counts}, err
}

// ContextStudy gathers the admin page of a context study.
func (s *Service) ContextStudy(ctx context.Context, st *domain.Study) (*ContextStudyReport, error) {
	v := &ContextStudyReport{}
	var err error
	if v.Settings, err = ContextSettingsOf(st); err == nil {
		v.Passages, err = s.PassageCounts(ctx, st.ID)
	}
	if err == nil {
		v.Surveys, err = s.db.ContextSurveys(ctx, st.ID)
	}
	if err == nil {
		v.Annotators, err = s.db.Annotators(ctx, st.ID)
	}
	if err == nil {
		v.Assignments, err = s.db.ContextAssignments(ctx, st.ID)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// ImportPassages takes an IMPAQTS-PID TSV file (named name, for messages)
// into a context or explanation study, all or nothing, and returns how
// many passages it imported.
func (s *Service) ImportPassages(ctx context.Context, studyID int64, name string, r io.Reader) (int, error) {
	ps, err := itemfiles.ParsePassagesTSV(r)
	if err != nil {
		return 0, domain.Errorf(domain.EINVALID, "Nothing was imported from %s: %v", name, err)
	}
	if err := s.db.ImportPassages(ctx, studyID, ps); err != nil {
		if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ECONFLICT {
			err = domain.Errorf(code, "Nothing was imported from %s: %s", name, domain.ErrorMessage(err))
		}
		return 0, err
	}
	return len(ps), nil
}

// BuildContextSurveys saves the settings and samples the study's surveys,
// balanced by kind × period (BuildContextSurveys); the plan says what the
// data could not fill.
func (s *Service) BuildContextSurveys(ctx context.Context, st *domain.Study, set domain.ContextSettings) (contextsurvey.SurveyPlan, error) {
	return BuildContextSurveys(ctx, s.db, st, set)
}

// InviteContextExpert invites a named expert into a context study and
// assigns them the survey surveyID, or (0) the one with the fewest experts.
// The surveys must be built first.
func (s *Service) InviteContextExpert(ctx context.Context, studyID int64, name string, surveyID int64) (*domain.Annotator, error) {
	surveys, err := s.db.ContextSurveys(ctx, studyID)
	if err != nil {
		return nil, err
	}
	if len(surveys) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "build the surveys before inviting experts")
	}
	a, err := s.db.CreateAnnotator(ctx, studyID, name)
	if err != nil {
		return nil, err
	}
	if _, err := s.db.AssignContextSurvey(ctx, studyID, a.ID, surveyID); err != nil {
		return nil, err
	}
	return a, nil
}
