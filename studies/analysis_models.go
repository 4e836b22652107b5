package studies

import (
	"context"

	"pragmalab/analysis"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
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
	Alt *analysis.AltTestModel
	Why string
	// Within is the share of item × condition units whose JSD is within
	// the human ceiling, of Units (likert jobs).
	Within *float64
	Units  int
	// Correlation is r with its ceiling and share (likert jobs).
	Correlation *analysis.CorrelationCeiling
	// ECE is the expected calibration error (likert), DeltaA the mean ΔA (expert).
	ECE    *float64
	DeltaA *float64
}

// ModelsBesideHumans summarises every finished job of the study that asks
// a task with an alt-test set-up, oldest first, each with the task's
// default ε. The comparisons are those the job pages show (kept while the
// data do not change).
func (s *Service) ModelsBesideHumans(ctx context.Context, studyID int64) ([]ModelBesideHumans, error) {
	jobs, err := s.db.StudyJobs(ctx, studyID)
	if err != nil {
		return nil, err
	}
	var out []ModelBesideHumans
	for i := len(jobs) - 1; i >= 0; i-- { // StudyJobs lists the newest first
		j := jobs[i]
		if _, ok := analysis.AltTestDefaults[j.Task]; !ok || !scoring.IsHumanTask(scoring.Task(j.Task)) || (j.Status != domain.JobDone && j.Status != domain.JobPartial) {
			continue
		}
		res, err := s.JobResults(ctx, j.ID)
		if err != nil {
			return nil, err
		}
		c, err := s.CompareJobWithHumans(ctx, res, nil)
		if err != nil {
			return nil, err
		}
		if c == nil || c.AltTest == nil {
			continue
		}
		out = append(out, summariseBesideHumans(res, c))
	}
	return out, nil
}

func summariseBesideHumans(res *runner.Results, c *JobHumanComparison) ModelBesideHumans {
	at := c.AltTest
	m := ModelBesideHumans{JobID: res.Job.ID, Task: res.Job.Task, Scorer: res.Scorer, Epsilon: at.Epsilon, Source: at.Source, Alt: at.Result, Why: at.Error}
	if d := c.Distributions; d != nil {
		if sum := d.SummaryOf(analysis.MeasureJSD, "all"); sum != nil {
			m.Within, m.Units = sum.WithinShare, sum.Units
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
