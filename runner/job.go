package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"pragmalab/domain"

	"pragmalab/scoring"
	"pragmalab/store"
)

// ModelScorer is the Scorer value of a job asking an OpenAI-compatible
// endpoint; any other value names a built-in scorer.
const ModelScorer = "model"

// Spec is what a researcher chooses when launching a job (the admin form
// and the CLI flags).
type Spec struct {
	StudyID int64
	Task    scoring.Task
	// Scorer is ModelScorer or a built-in scorer's name.
	Scorer   string
	Config   scoring.Config // used when Scorer is ModelScorer
	Strategy scoring.Strategy
	Seed     uint64
	// CompareStudyID is the crowd study whose human toplines the results
	// are shown beside (0: none).
	CompareStudyID int64
	// PublicEndpointsOnly refuses base URLs naming this machine or a
	// private address (serve --public-endpoints-only).
	PublicEndpointsOnly bool
}

// Validate checks the spec; getenv is asked whether the API-key variable is
// set, so a missing key shows at launch rather than as 3,000 failed prompts.
func (s *Spec) Validate(getenv func(string) string) error {
	if _, ok := scoring.ParseTask(string(s.Task)); !ok {
		return domain.Errorf(domain.EINVALID, "task: must be truefalse, multiplechoice, generation, likert, expert, context or explanation-rating")
	}
	if s.Task == scoring.Generation {
		if _, ok := scoring.ParseStrategy(string(s.Strategy)); !ok {
			return domain.Errorf(domain.EINVALID, "strategy: must be zero-shot, few-shot or chain-of-thought")
		}
	} else if s.Task != scoring.Likert {
		s.Strategy = "" // a likert job's strategy is its scale, set when its prompts are built
	}
	if s.Scorer == ModelScorer {
		s.Config = s.Config.WithDefaults()
		if err := s.Config.Validate(); err != nil {
			return domain.Errorf(domain.EINVALID, "%s", err)
		}
		if s.PublicEndpointsOnly {
			for i, u := range s.Config.BaseURLs {
				if err := scoring.CheckHost(u, true); err != nil {
					return domain.Errorf(domain.EINVALID, "base_urls: URL %d: %s", i+1, err)
				}
			}
		}
		if s.Config.APIKeyEnv != "" && getenv(s.Config.APIKeyEnv) == "" {
			return domain.Errorf(domain.EINVALID, "api_key_env: the environment variable %s is empty or unset where pragmalab runs", s.Config.APIKeyEnv)
		}
		return nil
	}
	if _, err := scoring.NewBuiltin(s.Scorer, s.Task, s.Seed); err != nil {
		return domain.Errorf(domain.EINVALID, "scorer: %s", err)
	}
	return nil
}

// Create validates spec, builds every prompt from the study's data and
// templates, and stores the job, queued.
func Create(ctx context.Context, db *store.DB, spec Spec, getenv func(string) string) (*domain.Job, error) {
	jobs, err := CreateGroup(ctx, db, []Spec{spec}, getenv)
	if err != nil {
		return nil, err
	}
	return jobs[0], nil
}

// CreateGroup creates one job per spec over the same prompts, all or
// nothing: the specs differ only in their scorer configuration (one model
// each; docs/scoring.md#many-models-in-one-go). Jobs created together are
// compared side by side.
func CreateGroup(ctx context.Context, db *store.DB, specs []Spec, getenv func(string) string) ([]*domain.Job, error) {
	if err := validateGroup(specs, getenv); err != nil {
		return nil, err
	}
	sp, err := BuildPrompts(ctx, db, specs[0])
	if err != nil {
		return nil, err
	}
	if specs[0].Task == scoring.Likert {
		st, err := humanStudy(ctx, db, specs[0])
		if err != nil {
			return nil, err
		}
		scale, err := CrowdScale(st)
		if err != nil {
			return nil, err
		}
		for i := range specs {
			if scale.Points > 9 && specs[i].Scorer == ModelScorer && specs[i].Config.WithDefaults().Mode == scoring.Logprobs {
				return nil, domain.Errorf(domain.EINVALID, "mode: the study's scale has %d points, and log-probability mode reads one digit, so at most 9 points; use sampling mode", scale.Points)
			}
			specs[i].Strategy = scoring.Strategy(likertStrategy(scale.Points))
		}
	}
	var jobs []*domain.Job
	for _, spec := range specs {
		cfg := json.RawMessage(`{}`)
		if spec.Scorer == ModelScorer {
			if cfg, err = json.Marshal(spec.Config); err != nil {
				return nil, fmt.Errorf("job config: %w", err)
			}
		}
		jobs = append(jobs, &domain.Job{StudyID: spec.StudyID, Task: string(spec.Task), Scorer: spec.Scorer, Config: cfg,
			Strategy: string(spec.Strategy), Seed: int64(spec.Seed), CompareStudyID: spec.CompareStudyID})
	}
	if err := db.CreateJobGroup(ctx, jobs, sp); err != nil {
		return nil, err
	}
	return jobs, nil
}

// validateGroup checks each spec of a group, naming the model when there
// are several, and that they differ only in their scorer.
func validateGroup(specs []Spec, getenv func(string) string) error {
	if len(specs) == 0 {
		return domain.Errorf(domain.EINVALID, "model: at least one model is needed")
	}
	for i := range specs {
		if err := specs[i].Validate(getenv); err != nil {
			if len(specs) > 1 && specs[i].Scorer == ModelScorer {
				return domain.Errorf(domain.EINVALID, "model %s: %s", specs[i].Config.Model, domain.ErrorMessage(err))
			}
			return err
		}
		s, first := specs[i], specs[0]
		if s.StudyID != first.StudyID || s.Task != first.Task || s.Strategy != first.Strategy || s.CompareStudyID != first.CompareStudyID {
			return domain.Errorf(domain.EINVALID, "jobs launched together share the study, task, strategy and comparison")
		}
	}
	return nil
}

// BuildPrompts renders every prompt of a (validated) spec from the study's
// current data and templates, without storing anything.
func BuildPrompts(ctx context.Context, db *store.DB, spec Spec) ([]domain.JobPrompt, error) {
	if spec.CompareStudyID != 0 {
		cs, err := db.Study(ctx, spec.CompareStudyID)
		if err != nil {
			return nil, err
		}
		if cs.Kind != domain.KindCrowd {
			return nil, domain.Errorf(domain.EINVALID, "compare: study %d is a %s study; human toplines come from a crowd study", cs.ID, cs.Kind)
		}
	}
	if scoring.IsHumanTask(spec.Task) {
		prompts, err := buildHumanPrompts(ctx, db, spec)
		if err != nil {
			return nil, err
		}
		if len(prompts) == 0 {
			return nil, domain.Errorf(domain.EINVALID, "the study has no %s", humanEmpty(spec.Task))
		}
		return jobPrompts(prompts), nil
	}
	ds, err := loadDataset(ctx, db, spec.StudyID, spec.Task)
	if err != nil {
		return nil, err
	}
	tmpl, err := Templates(ctx, db, spec.StudyID)
	if err != nil {
		return nil, err
	}
	var prompts []scoring.Prompt
	switch spec.Task {
	case scoring.TrueFalse:
		prompts, err = scoring.BuildTFPrompts(ds.tf, tmpl)
	case scoring.MultipleChoice:
		prompts, _, err = scoring.BuildMCPrompts(ds.mc, tmpl)
	case scoring.Generation:
		prompts, err = scoring.BuildGenPrompts(ds.mc, spec.Strategy, tmpl)
	}
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "building the prompts: %s", err)
	}
	if len(prompts) == 0 {
		what := "items (import implicature items into this study)"
		if spec.Task != scoring.TrueFalse {
			what = "passages with four options and an answer (import IMPAQTS passages into this study)"
		}
		return nil, domain.Errorf(domain.EINVALID, "the study has no %s", what)
	}
	return jobPrompts(prompts), nil
}

// jobPrompts are prompts as a job stores them.
func jobPrompts(prompts []scoring.Prompt) []domain.JobPrompt {
	sp := make([]domain.JobPrompt, len(prompts))
	for i, p := range prompts {
		sp[i] = domain.JobPrompt{Key: p.Key, ItemKey: p.ItemKey, Condition: string(p.Condition), Order: string(p.Order), Text: p.Text}
	}
	return sp
}

// JobConfig decodes a job's endpoint configuration.
func JobConfig(j *domain.Job) (scoring.Config, error) {
	var c scoring.Config
	if err := json.Unmarshal(j.Config, &c); err != nil {
		return c, fmt.Errorf("job %d config: %w", j.ID, err)
	}
	return c, nil
}

// ScorerName is how results name a job's scorer: the model name, or the
// built-in scorer (with its seed when it has one).
func ScorerName(j *domain.Job) string {
	if j.Scorer == ModelScorer {
		if c, err := JobConfig(j); err == nil {
			return c.Model
		}
		return "model"
	}
	if j.Scorer == "random" {
		return fmt.Sprintf("random (seed %d)", j.Seed)
	}
	return j.Scorer
}
