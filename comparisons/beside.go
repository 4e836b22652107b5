package comparisons

import (
	"context"

	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store"
)

// ModelBesideHumans is one scoring job of a study, asking the humans' own
// question, summarised for the study's Analysis page: the alt-test's
// verdict, the share of units within the human ceiling and the
// correlation against the split-half ceiling (docs/statistics.md).
type ModelBesideHumans struct {
	JobID  int64
	Task   string
	Scorer string
	// Epsilon is the task's default ε, Source where it comes from.
	Epsilon float64
	Source  string
	// Alt is the alt-test's result, nil when it could not run (Why says why).
	Alt *modelhuman.AltTestModel
	Why string
	// Within is the share of item × condition units whose JSD is within
	// the human ceiling, of Units (likert jobs); UniformWithin and
	// MarginalWithin the chance baselines' shares, beside it because a
	// share within the ceiling does not separate chance from skill.
	Within                        *float64
	UniformWithin, MarginalWithin *float64
	Units                         int
	// Skill is the headline of the distributions: the model's skill by
	// JSD against the closer chance baseline (SkillBaseline), 0 chance and
	// 1 the sampling floor, with its bootstrap interval
	// (docs/statistics.md#chance-baselines-and-skill).
	Skill         *float64
	SkillCI       *analysis.CI
	SkillBaseline string
	// Correlation is r with its ceiling and share (likert jobs).
	Correlation *modelhuman.CorrelationCeiling
	// ECE is the expected calibration error (likert), DeltaA the mean ΔA (expert).
	ECE    *float64
	DeltaA *float64
}

// ModelsBesideHumans summarises every finished job of the study that asks
// a task with an alt-test set-up, oldest first, each with the task's
// default ε. The comparisons are those the job pages show (kept while the
// data do not change).
func (s *Service) ModelsBesideHumans(ctx context.Context, studyID int64) ([]ModelBesideHumans, error) {
	return s.modelsBesideHumans(ctx, studyID, s.studies.JobResults)
}

// modelsBesideHumans is ModelsBesideHumans reading a job's results with
// load (tests count the reads).
//
// A job's kept comparison is found by the key CompareJobWithHumans gives
// it, built here from what is cheap to read — the study's data version,
// the job's row and its prompts' counts — so a view whose study and jobs
// did not change reads no job's answers; a job's results are read only
// when its comparison has to be computed. The key must stay the one
// CompareJobWithHumans builds from the results, so the job pages and this
// page share each comparison (TestModelsBesideHumansReadNoResultsTwice).
func (s *Service) modelsBesideHumans(ctx context.Context, studyID int64, load func(context.Context, int64) (*runner.Results, error)) ([]ModelBesideHumans, error) {
	// The version, the jobs and their prompts' counts are read before any
	// job's answers: a comparison computed is at least as new as its key.
	v, err := s.db.StudyDataVersion(ctx, studyID)
	if err != nil {
		return nil, err
	}
	jobs, err := s.db.StudyJobs(ctx, studyID)
	if err != nil {
		return nil, err
	}
	pilot := store.PilotIncluded(ctx)
	var out []ModelBesideHumans
	for i := len(jobs) - 1; i >= 0; i-- { // StudyJobs lists the newest first
		j := jobs[i]
		if _, ok := report.AltTestDefaults[j.Task]; !ok || !scoring.IsHumanTask(scoring.Task(j.Task)) || (j.Status != domain.JobDone && j.Status != domain.JobPartial) {
			continue
		}
		p, err := s.db.JobProgress(ctx, j.ID)
		if err != nil {
			return nil, err
		}
		key := comparisonKey{version: v, pilot: pilot, status: j.Status, progress: p, finished: j.FinishedAt}
		c, err := s.comparisons.Get(j.ID, key, func() (*JobHumanComparison, error) {
			ctx := context.WithoutCancel(ctx) // requests of the same key wait for it
			res, err := load(ctx, j.ID)
			if err != nil {
				return nil, err
			}
			return s.compareJobWithHumans(ctx, res, nil)
		})
		if err != nil {
			return nil, err
		}
		if c == nil || c.AltTest == nil {
			continue
		}
		out = append(out, summariseBesideHumans(j, c))
	}
	return out, nil
}

func summariseBesideHumans(j *domain.Job, c *JobHumanComparison) ModelBesideHumans {
	at := c.AltTest
	m := ModelBesideHumans{JobID: j.ID, Task: j.Task, Scorer: runner.ScorerName(j), Epsilon: at.Epsilon, Source: at.Source, Alt: at.Result, Why: at.Error}
	if d := c.Distributions; d != nil {
		if sum := d.SummaryOf(modelhuman.MeasureJSD, "all"); sum != nil {
			m.Within, m.Units = sum.WithinShare, sum.Units
			m.Skill, m.SkillCI, m.SkillBaseline = sum.Skill, sum.SkillCI, sum.SkillBaseline
			if b := sum.Baseline(modelhuman.BaselineUniform); b != nil {
				m.UniformWithin = b.WithinShare
			}
			if b := sum.Baseline(modelhuman.BaselineMarginal); b != nil {
				m.MarginalWithin = b.WithinShare
			}
		}
	}
	if k := c.Correlation; k != nil {
		m.Correlation = &k.CorrelationCeiling
	}
	if c.Calibration != nil {
		m.ECE = c.Calibration.ECE
	}
	if c.Replacement != nil {
		m.DeltaA = c.Replacement.DeltaA
	}
	return m
}
