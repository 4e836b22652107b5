package comparisons

import (
	"context"
	"math"
	"slices"
	"time"

	"pragmalab/analysis"
	"pragmalab/analysis/conditions"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store"
	"pragmalab/studies"
)

// JobHumanComparison is everything a human-task job's page and JSON say
// about the model against its own study's humans: the alt-test, and for a
// likert job the distributions against the human ceiling, the correlation
// against the split-half ceiling and the calibration; for an expert job ΔA.
type JobHumanComparison struct {
	AltTest       *JobAltTest                       `json:"alt_test,omitempty"`
	Distributions *modelhuman.Distributions         `json:"distributions,omitempty"`
	Correlation   *modelhuman.ModelHumanCorrelation `json:"correlation,omitempty"`
	Calibration   *modelhuman.Calibration           `json:"calibration,omitempty"`
	Replacement   *modelhuman.ExpertReplacement     `json:"expert_replacement,omitempty"`
	// Errors name the measures that could not be computed, and why.
	Errors map[string]string `json:"errors,omitempty"`
}

// comparisonKey is what a job's comparison with the humans was computed
// from: the study's data version, the job's answers as far as they go,
// and ε.
type comparisonKey struct {
	version  int64
	pilot    bool
	status   string
	progress domain.JobProgress
	finished time.Time
	epsilon  float64
	epsSet   bool
}

// CompareJobWithHumans joins a human-task job's answers with its study's
// human answers (docs/statistics.md); nil when the study has none. The
// comparison (200 half-splits, bootstraps) is kept while neither the
// study's data nor the job's answers change, so the page and each of its
// figures share one computation, as the Analysis page does.
func (s *Service) CompareJobWithHumans(ctx context.Context, res *runner.Results, epsilon *float64) (*JobHumanComparison, error) {
	v, err := s.db.StudyDataVersion(ctx, res.Job.StudyID)
	if err != nil {
		return nil, err
	}
	key := comparisonKey{version: v, pilot: store.PilotIncluded(ctx), status: res.Job.Status, progress: res.Progress, finished: res.Job.FinishedAt}
	if epsilon != nil {
		key.epsilon, key.epsSet = *epsilon, true
	}
	return s.comparisons.Get(res.Job.ID, key, func() (*JobHumanComparison, error) {
		return s.compareJobWithHumans(context.WithoutCancel(ctx), res, epsilon)
	})
}

// compareJobWithHumans computes CompareJobWithHumans.
func (s *Service) compareJobWithHumans(ctx context.Context, res *runner.Results, epsilon *float64) (*JobHumanComparison, error) {
	at, err := jobHumanAltTest(ctx, s.db, res, epsilon)
	if err != nil || at == nil {
		return nil, err
	}
	c := &JobHumanComparison{AltTest: at, Errors: map[string]string{}}
	switch scoring.Task(res.Job.Task) {
	case scoring.Likert:
		err = s.likertMeasures(ctx, res, c)
	case scoring.Expert:
		err = s.expertReplacement(ctx, res, c)
	}
	return c, err
}

func (s *Service) likertMeasures(ctx context.Context, res *runner.Results, c *JobHumanComparison) error {
	u, err := s.LikertUnits(ctx, res)
	if err != nil {
		return err
	}
	opt := modelhuman.DefaultDistOptions()
	opt.Points = u.Points
	if units, err := modelhuman.DistUnitsFromRatings(u.Rated, u.Model); err != nil {
		c.Errors["distributions"] = err.Error()
	} else if c.Distributions, err = modelhuman.CompareDistributions(units, opt); err != nil {
		c.Errors["distributions"] = err.Error()
	}
	if c.Correlation, err = modelhuman.ComputeModelHumanCorrelation(u.Rated, u.Mean, modelhuman.MinSplits, analysis.DefaultSeed); err != nil {
		c.Errors["correlation"] = err.Error()
	}
	if c.Calibration, err = modelhuman.CrowdCalibration(u.Rated, u.Points, u.Above, 10, analysis.DefaultBootstrap()); err != nil {
		c.Errors["calibration"] = err.Error()
	}
	return nil
}

// LikertUnits is what a likert job's comparison with its study's crowd is
// computed from, per item × condition the model answered: the crowd's
// kept ratings and the model's distribution, mean and P(True).
type LikertUnits struct {
	// Points is the scale's number of points.
	Points int
	// Rated are the kept crowd ratings (KeptCrowdRatings) of the units
	// the model answered; units it did not answer (yet) are left out.
	Rated []modelhuman.CrowdRating
	// Order is the units in the order the model answered them.
	Order []modelhuman.UnitKey
	// Model is the model's probability of each point, Mean its expected
	// rating and Above its probability above the midpoint, per unit.
	Model       map[modelhuman.UnitKey][]float64
	Mean, Above map[modelhuman.UnitKey]float64
}

// LikertUnits joins a likert job's answers with its study's kept crowd
// ratings. The R companion of `pragmalab score --r` writes them.
func (s *Service) LikertUnits(ctx context.Context, res *runner.Results) (*LikertUnits, error) {
	crowd, err := s.KeptCrowdRatings(ctx, res.Job.StudyID)
	if err != nil {
		return nil, err
	}
	u := &LikertUnits{
		Points: len(res.Options()),
		Model:  map[modelhuman.UnitKey][]float64{},
		Mean:   map[modelhuman.UnitKey]float64{},
		Above:  map[modelhuman.UnitKey]float64{},
	}
	for _, h := range res.Human {
		k := modelhuman.UnitKey{Item: h.Item, Condition: h.Condition}
		if _, ok := u.Model[k]; !ok {
			u.Order = append(u.Order, k)
		}
		u.Model[k], u.Mean[k] = h.Dist, h.Mean
		for i, p := range h.Dist {
			if float64(i+1) > float64(u.Points+1)/2 {
				u.Above[k] += p
			}
		}
	}
	for _, r := range crowd {
		if _, ok := u.Model[modelhuman.UnitKey{Item: r.Item, Condition: r.Condition}]; ok {
			u.Rated = append(u.Rated, r)
		}
	}
	return u, nil
}

// expertReplacement is ΔA on the plausibility question: the model's
// choice in each expert's place in turn.
func (s *Service) expertReplacement(ctx context.Context, res *runner.Results, c *JobHumanComparison) error {
	experts, _, data, model, err := s.ExpertReplacementData(ctx, res)
	if err != nil {
		return err
	}
	if c.Replacement, err = modelhuman.ComputeExpertReplacement(experts, data, model, analysis.Nominal, analysis.DefaultBootstrap()); err != nil {
		c.Errors["expert_replacement"] = err.Error()
	}
	return nil
}

// ExpertReplacementData is what ΔA of an expert job is computed from: the
// experts and items in the order first judged, each expert's plausibility
// judgement per item (1 yes, 0 no, NaN none) and the model's choice (NaN
// where it gave none). The R companion of `pragmalab score --r` writes it.
func (s *Service) ExpertReplacementData(ctx context.Context, res *runner.Results) (experts, items []string, data [][]float64, model []float64, err error) {
	js, err := studies.Judgements(ctx, s.db, res.Job.StudyID)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for _, j := range js {
		if !slices.Contains(experts, j.Annotator) {
			experts = append(experts, j.Annotator)
		}
		if !slices.Contains(items, j.Item) {
			items = append(items, j.Item)
		}
	}
	data = make([][]float64, len(experts))
	for e := range data {
		data[e] = make([]float64, len(items))
		for i := range data[e] {
			data[e][i] = math.NaN()
		}
	}
	for _, j := range js {
		data[slices.Index(experts, j.Annotator)][slices.Index(items, j.Item)] = boolValue(j.Plausible)
	}
	model = make([]float64, len(items))
	for i := range model {
		model[i] = math.NaN()
	}
	for _, h := range res.Human {
		if i := slices.Index(items, h.Item); i >= 0 && h.Condition == scoring.QPlausible {
			model[i] = boolValue(h.Label == "yes")
		}
	}
	return experts, items, data, model, nil
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// HumanFigure renders one figure of a comparison by name: the
// distributions' (report.DistributionFigures) or "reliability_diagram";
// false when the comparison has no such figure.
func HumanFigure(c *JobHumanComparison, name, format string) ([]byte, bool, error) {
	if c == nil {
		return nil, false, nil
	}
	if name == "reliability_diagram" && c.Calibration != nil {
		p, err := report.ReliabilityDiagram(c.Calibration)
		if err != nil {
			return nil, false, err
		}
		b, err := report.PlotBytes(p, format)
		return b, err == nil, err
	}
	if c.Distributions == nil {
		return nil, false, nil
	}
	figs, err := report.DistributionFigures(c.Distributions)
	if err != nil {
		return nil, false, err
	}
	for _, f := range figs {
		if f.Name == name {
			b, err := report.PlotBytes(f.Plot, format)
			return b, err == nil, err
		}
	}
	return nil, false, nil
}

// KeptCrowdRatings are the item ratings of the participants a crowd
// study's analysis keeps (attention checks and the excluded left out), so
// the job page's ceiling and reliability are the Analysis page's (and
// `pragmalab score --r` writes the same rows).
func (s *Service) KeptCrowdRatings(ctx context.Context, studyID int64) ([]modelhuman.CrowdRating, error) {
	st, err := s.db.Study(ctx, studyID)
	if err != nil {
		return nil, err
	}
	if st.Kind == domain.KindJudgement {
		// A judgement study's analysis by condition decides who is kept
		// (docs/studies.md#judgement-analysis).
		in, err := s.studies.AnalysisInputs(ctx, st)
		if err != nil || in.Conditions == nil {
			return nil, err
		}
		res, err := conditions.Compute(in.Conditions, studies.ConditionsOptions(in.Options))
		if err != nil {
			return nil, err
		}
		return studies.ConditionsReliabilityRows(in.Conditions, res), nil
	}
	rs, err := studies.CrowdRatings(ctx, s.db, studyID)
	if err != nil || rs == nil {
		return nil, err
	}
	opt, err := studies.CrowdOptions(ctx, s.db, studyID)
	if err != nil {
		return nil, err
	}
	opt.Bootstrap = analysis.Bootstrap{} // only who is kept is needed
	return modelhuman.CrowdRatingsOf(rs, toplines.ComputeToplines(rs, opt)), nil
}
