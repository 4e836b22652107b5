package studies

import (
	"context"
	"pragmalab/domain"

	"pragmalab/analysis/contextsurvey"
	"pragmalab/store"
)

// BuildContextSurveys samples a study's surveys from its passages, balanced
// by kind × period with the study's seed, and saves them with the settings
// (and the report of what the data could not fill). The admin page and the
// demo both build surveys through here.
func BuildContextSurveys(ctx context.Context, db *store.DB, s *domain.Study, set domain.ContextSettings) (contextsurvey.SurveyPlan, error) {
	var plan contextsurvey.SurveyPlan
	if err := set.Validate(); err != nil {
		return plan, err
	}
	ps, err := db.ListPassages(ctx, s.ID)
	if err != nil {
		return plan, err
	}
	if len(ps) == 0 {
		return plan, domain.Errorf(domain.EINVALID, "import the passages first")
	}
	in := make([]contextsurvey.SurveyPassage, len(ps))
	for i, p := range ps {
		in[i] = contextsurvey.SurveyPassage{Key: p.Key, Kind: p.Kind, Period: p.Period}
	}
	plan, err = contextsurvey.BuildContextSurveys(in, set.Surveys, set.PerSurvey, s.Seed)
	if err != nil {
		return plan, domain.Errorf(domain.EINVALID, "%v", err)
	}
	keys := make([][]string, len(plan.Surveys))
	for i, sv := range plan.Surveys {
		keys[i] = sv.Keys
	}
	if err := db.SaveContextSurveys(ctx, s.ID, keys); err != nil {
		return plan, err
	}
	set.Report = plan.Shortfall
	return plan, db.SetStudySettings(ctx, s.ID, set)
}
