package seed

import (
	"context"
	"slices"

	"pragmalab/domain"
	"pragmalab/studies"
)

// The demo seeding of the first start (pragmalab serve on a new database,
// docs/cli.md#serve): the command line owns the demo's content — names,
// seeds, files, settings — and these methods make each study from it in
// the order a researcher would, ending with the go-live checklist, so the
// demo proves it passes.

// ExpertDemo is what SeedExpertDemo made.
type ExpertDemo struct {
	Batches int
	Experts []*domain.Annotator // with their invitation tokens
}

// SeedExpertDemo creates the expert validation study st with items, builds
// its batches with set (attention checks included), invites the named
// experts, assigns them the first batch as round 1 and opens the study.
func (s *Seeder) SeedExpertDemo(ctx context.Context, st *domain.Study, items []domain.Item, set domain.ExpertSettings, experts []string) (ExpertDemo, error) {
	var d ExpertDemo
	if err := s.db.CreateStudy(ctx, st); err != nil {
		return d, err
	}
	if err := s.db.ImportItems(ctx, st.ID, items); err != nil {
		return d, err
	}
	var err error
	if d.Batches, err = studies.BuildExpertBatches(ctx, s.db, st, set); err != nil {
		return d, err
	}
	bs, err := s.db.Batches(ctx, st.ID)
	if err != nil {
		return d, err
	}
	var ids []int64
	for _, name := range experts {
		a, err := s.db.CreateAnnotator(ctx, st.ID, name)
		if err != nil {
			return d, err
		}
		d.Experts = append(d.Experts, a)
		ids = append(ids, a.ID)
	}
	if err := s.db.AssignRound1(ctx, st.ID, bs[0].ID, ids); err != nil {
		return d, err
	}
	return d, studies.OpenStudy(ctx, s.db, st.ID, "")
}

// SeedCrowdStudy creates the crowd study st with items (data and checks),
// saves set, builds the batches with their training items and opens the
// study; the build says what it made. The demo and the load benchmark
// make their crowd studies with it. The items keep the follow-up texts of
// the conditions set declares only, as an import into the study would
// require (docs/studies.md#conditions): the demo's shared items carry
// every control text, its crowd study runs trigger and cancel.
func (s *Seeder) SeedCrowdStudy(ctx context.Context, st *domain.Study, items []domain.Item, set domain.CrowdSettings) (studies.CrowdBuild, error) {
	if err := s.db.CreateStudy(ctx, st); err != nil {
		return studies.CrowdBuild{}, err
	}
	items = declaredFollowUps(items, set.Conditions)
	if err := s.db.ImportItems(ctx, st.ID, items); err != nil {
		return studies.CrowdBuild{}, err
	}
	if err := s.db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		return studies.CrowdBuild{}, err
	}
	b, err := studies.BuildCrowdBatches(ctx, s.db, st.ID, set, st.Seed)
	if err != nil {
		return studies.CrowdBuild{}, err
	}
	return b, studies.OpenStudy(ctx, s.db, st.ID, "")
}

// ContextDemo is what SeedContextDemo made.
type ContextDemo struct {
	Surveys int
	Expert  *domain.Annotator // invited to the first survey
}

// SeedContextDemo creates the context-expansion study st with the
// passages, builds its surveys with set, invites the named expert to the
// first survey and opens the study.
func (s *Seeder) SeedContextDemo(ctx context.Context, st *domain.Study, ps []domain.Passage, set domain.ContextSettings, expert string) (ContextDemo, error) {
	var d ContextDemo
	if err := s.db.CreateStudy(ctx, st); err != nil {
		return d, err
	}
	if err := s.db.ImportPassages(ctx, st.ID, ps); err != nil {
		return d, err
	}
	if _, err := studies.BuildContextSurveys(ctx, s.db, st, set); err != nil {
		return d, err
	}
	surveys, err := s.db.ContextSurveys(ctx, st.ID)
	if err != nil {
		return d, err
	}
	d.Surveys = len(surveys)
	if d.Expert, err = s.db.CreateAnnotator(ctx, st.ID, expert); err != nil {
		return d, err
	}
	if _, err := s.db.AssignContextSurvey(ctx, st.ID, d.Expert.ID, surveys[0].ID); err != nil {
		return d, err
	}
	return d, studies.OpenStudy(ctx, s.db, st.ID, "")
}

// SeedExplainDemoPassages creates the explanation-rating study st with the
// passages; a generation job over them then makes the outputs that
// SeedExplainDemoOutputs takes.
func (s *Seeder) SeedExplainDemoPassages(ctx context.Context, st *domain.Study, ps []domain.Passage) error {
	if err := s.db.CreateStudy(ctx, st); err != nil {
		return err
	}
	return s.db.ImportPassages(ctx, st.ID, ps)
}

// SeedExplainDemoOutputs imports the outputs as the rating screens of the
// study made by SeedExplainDemoPassages, invites the named expert with
// the default number of screens, and opens the study; it returns the
// expert and the screens given.
func (s *Seeder) SeedExplainDemoOutputs(ctx context.Context, st *domain.Study, outs []domain.Output, expert string) (*domain.Annotator, int, error) {
	if err := s.db.ImportOutputs(ctx, st.ID, outs); err != nil {
		return nil, 0, err
	}
	set := domain.DefaultExplainSettings()
	a, err := s.db.CreateAnnotator(ctx, st.ID, expert)
	if err != nil {
		return nil, 0, err
	}
	n, err := s.db.AssignExplainScreens(ctx, st.ID, a.ID, set.PerExpert, set.Overlap)
	if err != nil {
		return nil, 0, err
	}
	return a, n, studies.OpenStudy(ctx, s.db, st.ID, "")
}

// declaredFollowUps copies items without the control texts of the
// conditions not in declared.
func declaredFollowUps(items []domain.Item, declared []string) []domain.Item {
	out := make([]domain.Item, len(items))
	for i, it := range items {
		if !slices.Contains(declared, domain.ConditionNegation) {
			it.Negation = ""
		}
		if !slices.Contains(declared, domain.ConditionStrengthen) {
			it.Strengthening = ""
		}
		if !slices.Contains(declared, domain.ConditionNeutral) {
			it.Neutral = ""
		}
		out[i] = it
	}
	return out
}
