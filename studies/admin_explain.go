package studies

import (
	"context"
	"io"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// ExplainStudyReport is what the admin page of an explanation-rating study
// shows (docs/studies.md#explanation-design).
type ExplainStudyReport struct {
	Settings   domain.ExplainSettings
	Passages   PassageCounts
	Progress   []domain.ExplainProgress
	Outputs    int // model outputs imported
	Unassigned int // outputs still short of the overlap
	Annotators []domain.Annotator
}

// ExplainStudy gathers the admin page of an explanation-rating study.
func (s *Service) ExplainStudy(ctx context.Context, st *domain.Study) (*ExplainStudyReport, error) {
	v := &ExplainStudyReport{}
	var err error
	if v.Settings, err = ExplainSettingsOf(st); err == nil {
		v.Passages, err = s.PassageCounts(ctx, st.ID)
	}
	if err == nil {
		v.Progress, v.Outputs, v.Unassigned, err = s.db.ExplainStudyProgress(ctx, st.ID, v.Settings.Overlap)
	}
	if err == nil {
		v.Annotators, err = s.db.Annotators(ctx, st.ID)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// TakesOutputs refuses, as ENOTFOUND, a study that is not an
// explanation-rating study: only those take model outputs.
func TakesOutputs(st *domain.Study) error {
	if st.Kind != domain.KindExplain {
		return domain.Errorf(domain.ENOTFOUND, "not an explanation-rating study")
	}
	return nil
}

// ImportOutputs takes a CSV file of model outputs (item_id, strategy,
// model, output; named name, for messages) into an explanation-rating
// study, all or nothing, and returns how many it imported (TakesOutputs).
func (s *Service) ImportOutputs(ctx context.Context, st *domain.Study, name string, r io.Reader) (int, error) {
	if err := TakesOutputs(st); err != nil {
		return 0, err
	}
	outs, err := itemfiles.ParseOutputsCSV(r)
	if err == nil {
		err = s.db.ImportOutputs(ctx, st.ID, outs)
	}
	if err != nil {
		if code := domain.ErrorCode(err); name != "" && (code == domain.EINVALID || code == domain.ECONFLICT) {
			err = domain.Errorf(code, "Nothing was imported from %s: %s", name, domain.ErrorMessage(err))
		}
		return 0, err
	}
	return len(outs), nil
}

// SaveExplainSettings checks and saves an explanation study's settings.
func (s *Service) SaveExplainSettings(ctx context.Context, studyID int64, set domain.ExplainSettings) error {
	if err := set.Validate(); err != nil {
		return err
	}
	return s.db.SetStudySettings(ctx, studyID, set)
}

// InviteExplainExpert invites a named expert into an explanation study
// with their screens (the study's settings say how many), and returns
// the expert and the number of screens given.
func (s *Service) InviteExplainExpert(ctx context.Context, st *domain.Study, name string) (*domain.Annotator, int, error) {
	set, err := ExplainSettingsOf(st)
	if err != nil {
		return nil, 0, err
	}
	a, err := s.db.CreateAnnotator(ctx, st.ID, name)
	if err != nil {
		return nil, 0, err
	}
	n, err := s.db.AssignExplainScreens(ctx, st.ID, a.ID, set.PerExpert, set.Overlap)
	if err != nil {
		return nil, 0, err
	}
	return a, n, nil
}

// AssignExplainScreens gives an expert of the study more screens (e.g.
// after more outputs were imported) and returns how many.
func (s *Service) AssignExplainScreens(ctx context.Context, st *domain.Study, annotatorID int64) (int, error) {
	set, err := ExplainSettingsOf(st)
	if err != nil {
		return 0, err
	}
	return s.db.AssignExplainScreens(ctx, st.ID, annotatorID, set.PerExpert, set.Overlap)
}
