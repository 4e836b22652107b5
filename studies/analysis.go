package studies

import (
	"context"
	"fmt"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
	"sync"

	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/conditions"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/store"
)

// The analysis of a study reads its rows straight from the store — the same
// rows its export writes — so the Analysis pages and the model comparison
// show what `pragmalab analyze` prints for the exported file, without
// writing and re-reading CSV (docs/architecture.md#analysis).

// CrowdOptions returns the analysis options of a crowd study: its
// attention-check thresholds, the data-quality rules each participant meets
// (docs/studies.md#data-quality-flags) and the researcher's include and
// exclude decisions (docs/studies.md#exclusions), with the default
// bootstrap of the intervals.
func CrowdOptions(ctx context.Context, db *store.DB, studyID int64) (toplines.Options, error) {
	_, set, err := db.CrowdStudy(ctx, studyID)
	if err != nil {
		return toplines.Options{}, err
	}
	return crowdOptions(ctx, db, studyID, set)
}

// crowdOptions is CrowdOptions with the study's settings already loaded.
func crowdOptions(ctx context.Context, db *store.DB, studyID int64, set domain.CrowdSettings) (toplines.Options, error) {
	opt := toplines.Options{HighPass: set.CheckHighMin, LowPass: set.CheckLowMax, MaxFailed: set.MaxFailedChecks,
		Bootstrap: analysis.DefaultBootstrap(), Conditions: slices.Clone(set.Conditions)}
	parts, err := db.CrowdParticipants(ctx, studyID, set)
	if err != nil {
		return toplines.Options{}, err
	}
	for _, p := range parts {
		if p.LongestRun > 0 { // rated something: the data-quality rules apply
			if rs := set.QualityReasons(p.CrowdQuality); len(rs) > 0 {
				if opt.Flagged == nil {
					opt.Flagged = map[string][]string{}
				}
				opt.Flagged[p.PID] = rs
			}
		}
		switch p.Override {
		case domain.OverrideInclude:
			opt.Include = append(opt.Include, p.PID)
		case domain.OverrideExclude:
			opt.Exclude = append(opt.Exclude, p.PID)
		}
	}
	return opt, nil
}

// CrowdRatings returns the ratings of a crowd study's completed
// participants for the analysis, nil when they have rated no item.
func CrowdRatings(ctx context.Context, db *store.DB, studyID int64) (*toplines.Ratings, error) {
	in, err := CrowdRatingRows(ctx, db, studyID)
	if err != nil || in == nil {
		return nil, err
	}
	_, set, err := db.CrowdStudy(ctx, studyID)
	if err != nil {
		return nil, err
	}
	rs, err := toplines.NewRatings(in)
	if err != nil {
		return nil, err
	}
	rs.ScalePoints = ScalePoints(set)
	return rs, nil
}

// ScalePoints is the points of a crowd study's scale (0 in the settings
// is the default 7).
func ScalePoints(set domain.CrowdSettings) int {
	if set.ScalePoints == 0 {
		return domain.RatingMax
	}
	return set.ScalePoints
}

// CrowdRatingRows returns the rows CrowdRatings analyses, nil when they
// hold no item (attention checks only, or nothing): those of the study's
// current design version (docs/studies.md#design-versions), given under
// the settings the analysis reads.
func CrowdRatingRows(ctx context.Context, db *store.DB, studyID int64) ([]toplines.RatingRow, error) {
	rows, err := db.RatingRows(ctx, studyID, false)
	if err != nil {
		return nil, err
	}
	current, err := db.CurrentDesignVersion(ctx, studyID)
	if err != nil {
		return nil, err
	}
	in := make([]toplines.RatingRow, 0, len(rows))
	items := 0
	for _, r := range rows {
		if r.DesignVersion != current {
			continue
		}
		if r.Check == "" {
			items++
		}
		in = append(in, toplines.RatingRow{
			Participant: r.PID, Batch: strconv.Itoa(r.Batch), Item: r.Item, Type: r.Type,
			Condition: r.Condition, Rating: r.Rating, Check: r.Check,
		})
	}
	if items == 0 {
		return nil, nil
	}
	return in, nil
}

// HumanToplines computes the human toplines of a crowd study over the items
// keep accepts (all with nil), with the study's exclusion thresholds and
// the researcher's decisions. Each participant's ratings are z-scored over
// all of that participant's non-check ratings, exactly as the study's
// Analysis page does, and only then are the other items left out: an
// item's mean z is the one the Analysis page shows; z-scoring the kept
// items alone would move the means
// (docs/statistics.md#human-toplines-beside-model-results). It returns nil
// when nobody has rated such an item.
func HumanToplines(ctx context.Context, db *store.DB, crowdStudyID int64, keep func(itemKey string) bool) (*toplines.Toplines, error) {
	opt, err := CrowdOptions(ctx, db, crowdStudyID)
	if err != nil {
		return nil, err
	}
	rs, err := CrowdRatings(ctx, db, crowdStudyID)
	if err != nil || rs == nil {
		return nil, err
	}
	if keep != nil {
		// OverItems recomputes the shares over fewer items, and the
		// intervals of all items do not carry over: skip their bootstrap.
		opt.Bootstrap = analysis.Bootstrap{}
	}
	t := toplines.ComputeToplines(rs, opt)
	if keep == nil {
		return t, nil
	}
	return t.OverItems(keep), nil
}

// Judgements returns the experts' answers on a study's data items.
func Judgements(ctx context.Context, db *store.DB, studyID int64) ([]agreement.Judgement, error) {
	rows, err := db.JudgementRows(ctx, studyID)
	if err != nil {
		return nil, err
	}
	out := make([]agreement.Judgement, len(rows))
	for i, r := range rows {
		out[i] = agreement.Judgement{
			Annotator: r.Annotator, Item: r.Item, Type: r.Type,
			Plausible:       r.Plausible == domain.Yes,
			HasCancellation: r.CancellationCorrect != "", CancellationCorrect: r.CancellationCorrect == domain.Yes,
		}
	}
	return out, nil
}

// ContextAnswers returns the final answers of a study's context surveys.
func ContextAnswers(ctx context.Context, db *store.DB, studyID int64) ([]contextsurvey.ContextAnswer, error) {
	rows, err := db.ContextAnswerRows(ctx, studyID)
	if err != nil {
		return nil, err
	}
	out := make([]contextsurvey.ContextAnswer, len(rows))
	for i, r := range rows {
		out[i] = contextsurvey.ContextAnswer{
			Annotator: r.Annotator, Survey: strconv.Itoa(r.Survey), Item: r.Item, Kind: r.Kind, Period: r.Period,
			Sentences: r.Sentences, Sufficient: r.Sufficient == domain.Yes,
		}
	}
	return out, nil
}

// ExplanationRatings returns the experts' judgments of a study's model
// outputs.
func ExplanationRatings(ctx context.Context, db *store.DB, studyID int64) ([]modelhuman.ExplanationRating, error) {
	rows, err := db.ExplanationRatingRows(ctx, studyID)
	if err != nil {
		return nil, err
	}
	out := make([]modelhuman.ExplanationRating, len(rows))
	for i, r := range rows {
		out[i] = modelhuman.ExplanationRating{
			Annotator: r.Annotator, Item: r.Item, Kind: r.Kind, Strategy: r.Strategy, Model: r.Model,
			Judgment: modelhuman.ParseJudgment(r.Judgment),
		}
	}
	return out, nil
}

// Analysis is a study's analysis as its Analysis page shows it: the
// summary, the tables, the confusion matrices, the methods paragraph and the
// figures, computed from the rows the study's export writes — so the page
// shows exactly what `pragmalab analyze` prints for the exported file (the
// export→analyze round-trip tests hold the two together). Service.Analysis
// computes it once per change of the study's data and hands the same value
// to the page, its figures and its downloads: it is read-only once built.
type Analysis struct {
	// Command is the CLI command giving the same figures.
	Command string
	// PlanCommand, for a crowd study, plans the next study from these
	// ratings with the same exclusion rules ("": none).
	PlanCommand string
	// ExportFile names the study's export it was computed from (under the
	// study's /export/); empty when there is none to point at.
	ExportFile string
	// Empty says why there is nothing to show yet.
	Empty string
	// Problem is set when the study's export could not be analysed.
	Problem error
	// Result is the JSON of docs/formats.md#analysis-json-output.
	Result  any
	Summary []string
	// Notes follow the summary on the Analysis page: how to compute
	// more from the export and what the planner needs. They say nothing of
	// who was analysed, so the data package's codebook leaves them out.
	Notes      []string
	Excluded   []Excluded
	Tables     []*report.Table
	Confusions []Confusion
	Methods    *report.Methods
	// MethodsIn are the methods paragraph in each language it is written
	// in beside English (a judgement study's: en, it, de); nil: English only.
	MethodsIn map[report.Lang]*report.Methods

	figures func() ([]report.Figure, error)
	figOnce sync.Once
	figs    []report.Figure
	figErr  error
	plotMu  sync.Mutex
	plots   map[string][]byte // "name.format" → the rendered figure
}

// Excluded is a participant left out of a crowd analysis, and why.
type Excluded struct {
	ID     string
	Reason string
}

// Confusion is a 2×2 confusion matrix of two annotators on one question.
type Confusion struct {
	Name     string
	Question string
	A, B     string
	M        [2][2]int
}

// HasFigures reports whether the analysis draws figures.
func (a *Analysis) HasFigures() bool { return a.figures != nil }

// Figures returns the analysis's figures, built on the first call only.
func (a *Analysis) Figures() ([]report.Figure, error) {
	if a.figures == nil {
		return nil, nil
	}
	a.figOnce.Do(func() { a.figs, a.figErr = a.figures() })
	return a.figs, a.figErr
}

// Plot returns one figure rendered as svg, png or pdf (report.PlotBytes),
// rendered on the first request of that figure and format only; false when
// the analysis has no such figure.
func (a *Analysis) Plot(name, format string) ([]byte, bool, error) {
	figs, err := a.Figures()
	if err != nil {
		return nil, false, err
	}
	a.plotMu.Lock()
	defer a.plotMu.Unlock()
	if b, ok := a.plots[name+"."+format]; ok {
		return b, true, nil
	}
	for _, f := range figs {
		if f.Name != name {
			continue
		}
		b, err := report.PlotBytes(f.Plot, format)
		if err != nil {
			return nil, true, err
		}
		if a.plots == nil {
			a.plots = map[string][]byte{}
		}
		a.plots[name+"."+format] = b
		return b, true, nil
	}
	return nil, false, nil
}

// Table returns the analysis's table of that name, nil if none.
func (a *Analysis) Table(name string) *report.Table {
	for _, t := range a.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// ToplinesCommand is the CLI command that gives the same toplines as the
// page, with the study's scale and thresholds and the researcher's
// decisions (docs/cli.md#analyze).
func ToplinesCommand(opt toplines.Options, points int) string {
	cmd := "pragmalab analyze toplines --ratings ratings.csv" + exclusionArgs(opt, points)
	if len(opt.Conditions) > 0 {
		cmd += " --conditions " + strings.Join(opt.Conditions, ",")
	}
	return cmd
}

// PlanCommand is the CLI command that plans the next study from these
// ratings as a pilot, with the same scale, thresholds and decisions
// (docs/statistics.md#planning-a-study).
func PlanCommand(opt toplines.Options, points int) string {
	return "pragmalab analyze plan --ratings ratings.csv --participants N" + exclusionArgs(opt, points)
}

// exclusionArgs are the flags of the study's scale and exclusion rules,
// as every analyze command reading ratings takes them: --exclude lists
// the participants the study's data-quality rules exclude too
// (PrintedExclude), or the command would keep them where the page does not.
func exclusionArgs(opt toplines.Options, points int) string {
	args := fmt.Sprintf(" --scale-points %d --high-pass %d --low-pass %d --max-failed %d", points, opt.HighPass, opt.LowPass, opt.MaxFailed)
	if ex := PrintedExclude(opt); len(ex) > 0 {
		args += " --exclude " + strings.Join(ex, ",")
	}
	if len(opt.Include) > 0 {
		args += " --include " + strings.Join(opt.Include, ",")
	}
	return args
}

// RatingsAnalysis analyses a crowd study's ratings with the study's
// exclusion settings and the researcher's overrides (in opt).
func RatingsAnalysis(rs *toplines.Ratings, opt toplines.Options) *Analysis {
	a := &Analysis{Command: ToplinesCommand(opt, rs.ScalePoints), PlanCommand: PlanCommand(opt, rs.ScalePoints)}
	t := toplines.ComputeToplines(rs, opt)
	a.Result = t
	ps := t.Participants
	a.Summary = []string{
		fmt.Sprintf("%d participants in the export, %d excluded, %d with constant ratings, %d analysed; %d ratings.",
			ps.Total, len(ps.Excluded), len(ps.ZeroVariance), ps.Analysed, rs.NumRows()),
		fmt.Sprintf("%d rated attention checks only.", len(ps.ChecksOnly)),
		fmt.Sprintf("Attention checks: high passes at ≥ %d, low at ≤ %d; excluded at %d or more failed.", opt.HighPass, opt.LowPass, opt.MaxFailed),
	}
	forced := map[string]bool{}
	for _, id := range opt.Exclude {
		forced[id] = true
	}
	for _, p := range ps.Details {
		switch {
		case p.Excluded && forced[p.ID]:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: fmt.Sprintf("excluded by the researcher (failed %d of %d checks)", p.FailedChecks, p.Checks)})
		case p.Excluded:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: fmt.Sprintf("failed %d of %d attention checks", p.FailedChecks, p.Checks)})
		case p.ZeroVariance:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: fmt.Sprintf("all %d ratings equal: no z-scores", p.Ratings)})
		case p.ChecksOnly:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: fmt.Sprintf("rated only the %d attention checks, no item", p.Checks)})
		}
	}
	a.Tables = []*report.Table{report.ToplinesTable(t), report.ToplinesIntervalsTable(t), report.ItemMeansTable(t), report.ParticipantsTable(t)}
	// The crowd's own reliability, over the participants the toplines keep
	// (what `pragmalab analyze reliability` prints for the export).
	rel, relErr := modelhuman.ComputeCrowdReliability(modelhuman.CrowdRatingsOf(rs, t), modelhuman.DefaultReliabilityOptions())
	if relErr == nil {
		a.Tables = append(a.Tables, report.CrowdReliabilityTables(rel)...)
	}
	a.Methods = report.ToplinesMethods(t, rs.NumRows(), report.English)
	if relErr == nil {
		a.Methods.Paragraphs = append(a.Methods.Paragraphs, report.CrowdReliabilityMethods(rel, report.English))
	}
	a.figures = func() ([]report.Figure, error) { return report.ToplinesFiguresWithIntervals(t) }
	return a
}

// AgreementAnalysis analyses an expert study's judgements (at least one).
func AgreementAnalysis(js []agreement.Judgement) *Analysis {
	a := &Analysis{Command: "pragmalab analyze agreement --judgements judgements.csv", ExportFile: "judgements.csv"}
	ag := agreement.ComputeAgreement(js)
	a.Result = ag
	a.Tables = append([]*report.Table{report.AgreementTable(ag), report.AgreementIntervalsTable(ag)}, report.AnnotatorTables(ag)...)
	a.Methods = report.AgreementMethods(ag, len(js), report.English)
	a.figures = func() ([]report.Figure, error) { return report.AgreementFigures(ag) }
	a.Summary = []string{fmt.Sprintf("%d judgements by %d experts: %s.", len(js), len(ag.Annotators), strings.Join(ag.Annotators, ", "))}
	if len(ag.Pairs) == 0 {
		a.Summary = append(a.Summary, "Agreement needs two experts who judged the same items (round 1).")
	}
	for _, p := range ag.Pairs {
		for _, q := range []struct {
			name, label string
			b           agreement.Binary
		}{{"plausibility", "Plausibility", p.Plausibility}, {"cancellation", "Cancellation correctness", p.Cancellation}} {
			a.Confusions = append(a.Confusions, Confusion{Name: q.name + "-" + p.A + "-" + p.B, Question: q.label, A: p.A, B: p.B, M: q.b.Confusion})
		}
	}
	return a
}

// ContextAnalysis analyses a context survey study's answers.
func ContextAnalysis(as []contextsurvey.ContextAnswer) *Analysis {
	a := &Analysis{Command: "pragmalab analyze context --answers answers.csv"}
	c := contextsurvey.ComputeContext(as)
	a.Result = c
	a.Summary = []string{fmt.Sprintf("%d answers on %d passages in %d surveys.", c.Overall.Judgements, c.Overall.Items, len(c.SurveyOrder))}
	a.Tables = append(report.ContextTables(c), report.ContextIntervalsTable(c), report.ContextKindPeriodTable(c))
	a.Methods = report.ContextMethods(c, report.English)
	a.figures = func() ([]report.Figure, error) { return report.ContextFigures(c) }
	return a
}

// ExplanationsAnalysis analyses an explanation-rating study's judgments.
func ExplanationsAnalysis(rs []modelhuman.ExplanationRating) *Analysis {
	a := &Analysis{Command: "pragmalab analyze explanations --ratings explanation_ratings.csv"}
	e := modelhuman.ComputeExplanations(rs)
	a.Result = e
	a.Summary = []string{fmt.Sprintf("%d ratings of model explanations.", len(rs))}
	a.Tables = []*report.Table{report.ExplanationsTable(e), report.ExplanationsIntervalsTable(e)}
	a.Methods = report.ExplanationsMethods(e, len(rs), report.English)
	a.figures = func() ([]report.Figure, error) { return report.ExplanationFigures(e) }
	return a
}

// AnalysisInputs is what a study's analysis reads from the store, by kind:
// a crowd study's ratings (nil when none) and options, a judgement
// study's ratings by condition and options, an expert study's
// judgements, a context study's final answers. The other fields are empty.
type AnalysisInputs struct {
	Ratings    *toplines.Ratings
	Options    toplines.Options
	Judgements []agreement.Judgement
	Context    []contextsurvey.ContextAnswer
	// Conditions are a judgement study's ratings (nil when none) with
	// Options its exclusion rules and Declared its conditions.
	Conditions *conditions.Ratings
	Declared   []string
}

// AnalysisInputs reads study st's analysis inputs, the same rows its
// Analysis page reads (the R companion's zip is built from them).
func (s *Service) AnalysisInputs(ctx context.Context, st *domain.Study) (AnalysisInputs, error) {
	var in AnalysisInputs
	var err error
	switch st.Kind {
	case domain.KindCrowd:
		if in.Ratings, err = CrowdRatings(ctx, s.db, st.ID); err != nil || in.Ratings == nil {
			return in, err
		}
		in.Options, err = CrowdOptions(ctx, s.db, st.ID)
	case domain.KindJudgement:
		set, err := CrowdSettings(st)
		if err != nil {
			return in, err
		}
		rows, err := CrowdRatingRows(ctx, s.db, st.ID)
		if err != nil || rows == nil {
			return in, err
		}
		if in.Options, err = crowdOptions(ctx, s.db, st.ID, set); err != nil {
			return in, err
		}
		in.Declared = set.Conditions
		in.Conditions, err = conditionsRatings(rows, ScalePoints(set), set.Conditions)
		return in, err
	case domain.KindExpert:
		in.Judgements, err = Judgements(ctx, s.db, st.ID)
	case domain.KindContext:
		in.Context, err = ContextAnswers(ctx, s.db, st.ID)
	}
	return in, err
}

// CrowdAnalysisRows returns what the analysis of crowd study studyID
// reads — its settings, its rating rows (nil when no item was rated) and
// its analysis options — for a caller that renames the participants
// before analysing, as the data package does (docs/formats.md#data-package).
func (s *Service) CrowdAnalysisRows(ctx context.Context, studyID int64) (domain.CrowdSettings, []toplines.RatingRow, toplines.Options, error) {
	_, set, err := s.db.CrowdStudy(ctx, studyID)
	if err != nil {
		return set, nil, toplines.Options{}, err
	}
	rows, err := CrowdRatingRows(ctx, s.db, studyID)
	if err != nil {
		return set, nil, toplines.Options{}, err
	}
	opt, err := crowdOptions(ctx, s.db, studyID, set)
	return set, rows, opt, err
}
