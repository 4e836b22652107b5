package comparisons

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store"
	"pragmalab/studies"
)

// The alt-test of a human-task job: the job's model answers joined with
// the study's own human answers (docs/statistics.md#alt-test), on the job
// page and in its JSON.

// Thin-design thresholds of the page (docs/statistics.md#when-the-design-is-too-thin).
const (
	AltThinHumans = 3
	AltThinItems  = 30
)

// JobAltTest is a human-task job's alt-test against the study's humans.
type JobAltTest struct {
	Task    string                    `json:"task"`
	Default report.AltTestDefault     `json:"-"`
	Source  string                    `json:"epsilon_source"`
	Options modelhuman.AltTestOptions `json:"-"`
	Scoring string                    `json:"scoring"`
	ZScore  bool                      `json:"zscore"`
	Epsilon float64                   `json:"epsilon"`
	// Result is the model's test, nil when it could not run (Error says why).
	Result *modelhuman.AltTestModel `json:"result,omitempty"`
	Error  string                   `json:"error,omitempty"`
	// Humans is how many humans answered; Thin lists why the design is
	// thinner than the test wants (fewer than 3 humans, or humans with
	// fewer than 30 items).
	Humans int      `json:"humans"`
	Thin   []string `json:"thin,omitempty"`
	// HumanAlpha is the humans' own Krippendorff's α on the labels the
	// test reads (HumanAlphaMetric), below modelhuman.AltLowAgreement a
	// note says ε should be smaller.
	HumanAlpha       *float64 `json:"human_alpha"`
	HumanAlphaMetric string   `json:"human_alpha_metric,omitempty"`
	// LatinSquare is set for a crowd study: its batches' meaning for the test.
	LatinSquare string   `json:"latin_square,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	// Methods is the methods paragraph with the numbers filled in, per
	// language ("en", "it"), as `analyze alt-test --methods` prints it.
	Methods map[string]string `json:"methods,omitempty"`
}

// JobHumanAltTest runs the alt-test of a finished human-task job against
// the humans of its own study with the task's default set-up, ε replaced
// by epsilon when it is not nil. It returns nil when the task has no
// alt-test set-up or the study no human answers.
func (s *Service) JobHumanAltTest(ctx context.Context, res *runner.Results, epsilon *float64) (*JobAltTest, error) {
	return jobHumanAltTest(ctx, s.db, res, epsilon)
}

func jobHumanAltTest(ctx context.Context, db *store.DB, res *runner.Results, epsilon *float64) (*JobAltTest, error) {
	def, ok := report.AltTestDefaults[res.Job.Task]
	if !ok || res.HumanMetrics == nil {
		return nil, nil
	}
	humans, err := humanAltLabels(ctx, db, res)
	if err != nil || len(humans) == 0 {
		return nil, err
	}
	opt := modelhuman.DefaultAltTestOptions()
	opt.Scoring, opt.Epsilon, opt.ZScore = def.Scoring, def.Epsilon, def.ZScore
	if epsilon != nil {
		opt.Epsilon = *epsilon
	}
	out := &JobAltTest{Task: res.Job.Task, Default: def, Source: def.Source, Options: opt,
		Scoring: opt.Scoring.String(), ZScore: opt.ZScore, Epsilon: opt.Epsilon}
	out.Humans, out.Thin = altThin(humans)
	// The note describes the crowd likelihood study's batches (half with
	// the cancelling utterance, about 30 items): a judgement study's own
	// conditions and batch size are not those.
	if scoring.Task(res.Job.Task) == scoring.Likert {
		st, err := db.Study(ctx, res.Job.StudyID)
		if err != nil {
			return nil, err
		}
		if st.Kind == domain.KindCrowd {
			out.LatinSquare = report.AltTestLatinSquareNote
		}
	}
	models := modelAltLabels(res)
	if len(models) == 0 {
		out.Error = "the job has no answer to compare yet"
		return out, nil
	}
	at, err := modelhuman.ComputeAltTest(humans, models, opt)
	if err != nil {
		out.Error = err.Error()
		return out, nil
	}
	out.Result, out.Notes = at.Models[res.Scorer], at.Notes
	out.HumanAlpha, out.HumanAlphaMetric = at.HumanAlpha, at.AlphaMetric
	out.Methods = map[string]string{}
	for _, l := range report.Langs {
		out.Methods[string(l)] = report.AltTestMethods(at, l).Text()
	}
	return out, nil
}

// altThin counts the humans and says where the design is too thin.
func altThin(humans []modelhuman.AltLabel) (int, []string) {
	items := map[string]int{}
	var order []string
	for _, h := range humans {
		if _, ok := items[h.Who]; !ok {
			order = append(order, h.Who)
		}
		items[h.Who]++
	}
	var thin []string
	if len(order) < AltThinHumans {
		thin = append(thin, fmt.Sprintf("only %d humans answered; the test wants at least %d", len(order), AltThinHumans))
	}
	few := 0
	for _, w := range order {
		if items[w] < AltThinItems {
			few++
		}
	}
	if few > 0 {
		thin = append(thin, fmt.Sprintf("%d of %d humans answered fewer than %d items and are left out of the test", few, len(order), AltThinItems))
	}
	return len(order), thin
}

// humanAltLabels reads the study's human answers as alt-test labels,
// keyed like modelAltLabels.
func humanAltLabels(ctx context.Context, db *store.DB, res *runner.Results) ([]modelhuman.AltLabel, error) {
	var out []modelhuman.AltLabel
	add := func(who, item, label string) {
		out = append(out, modelhuman.AltLabel{Who: who, Item: item, Label: label, Line: len(out) + 2})
	}
	id := res.Job.StudyID
	switch scoring.Task(res.Job.Task) {
	case scoring.Likert:
		rows, err := studies.CrowdRatingRows(ctx, db, id)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.Check == "" {
				add(r.Participant, r.Item+"|"+r.Condition, strconv.Itoa(r.Rating))
			}
		}
	case scoring.Expert:
		js, err := studies.Judgements(ctx, db, id)
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			add(j.Annotator, j.Item+"|"+scoring.QPlausible, yesNo(j.Plausible))
			if j.Plausible && j.HasCancellation {
				add(j.Annotator, j.Item+"|"+scoring.QCancellation, yesNo(j.CancellationCorrect))
			}
		}
	case scoring.ContextTask:
		as, err := studies.ContextAnswers(ctx, db, id)
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			label := "not_sufficient"
			if a.Sufficient {
				label = strconv.Itoa(a.Sentences)
			}
			add(a.Annotator, a.Item, label)
		}
	case scoring.ExplanationRating:
		return explanationAltLabels(ctx, db, id)
	}
	return out, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// modelAltLabels is the job's answer per item as an alt-test label: a
// likert job's expected rating per item × condition, an expert job's
// choice per question the form would ask, a context job's number of
// preceding sentences needed.
func modelAltLabels(res *runner.Results) []modelhuman.AltLabel {
	var out []modelhuman.AltLabel
	add := func(item, label string) {
		out = append(out, modelhuman.AltLabel{Who: res.Scorer, Item: item, Label: label, Line: len(out) + 2})
	}
	switch scoring.Task(res.Job.Task) {
	case scoring.Likert:
		for _, h := range res.Human {
			add(h.Item+"|"+h.Condition, strconv.FormatFloat(h.Mean, 'f', -1, 64))
		}
	case scoring.Expert:
		for _, h := range res.Human {
			if !h.NotAsked {
				add(h.Item+"|"+h.Condition, h.Label)
			}
		}
	case scoring.ContextTask:
		needed := res.ContextNeeded()
		items := slices.Sorted(maps.Keys(needed))
		for _, item := range items {
			label := "not_sufficient"
			if n := needed[item]; n >= 0 {
				label = strconv.Itoa(n)
			}
			add(item, label)
		}
	case scoring.ExplanationRating:
		for _, h := range res.Human {
			add(h.Condition, strconv.Itoa(h.Number))
		}
	}
	return out
}

// explanationAltLabels reads the explanation ratings keyed by the output
// rated (its prompt question, scoring.OutputQuestion), each label the
// judgment's number 1–5 as the model answers it.
func explanationAltLabels(ctx context.Context, db *store.DB, studyID int64) ([]modelhuman.AltLabel, error) {
	outs, err := db.ExplainOutputs(ctx, studyID)
	if err != nil {
		return nil, err
	}
	ids := map[string]int64{}
	for _, o := range outs {
		ids[o.ItemKey+"\x00"+o.Strategy+"\x00"+o.Model] = o.ID
	}
	rs, err := studies.ExplanationRatings(ctx, db, studyID)
	if err != nil {
		return nil, err
	}
	var out []modelhuman.AltLabel
	for _, r := range rs {
		id, ok := ids[r.Item+"\x00"+r.Strategy+"\x00"+r.Model]
		if !ok {
			continue
		}
		out = append(out, modelhuman.AltLabel{Who: r.Annotator, Item: scoring.OutputQuestion(id), Label: strconv.Itoa(r.Judgment + 1), Line: len(out) + 2})
	}
	return out, nil
}
