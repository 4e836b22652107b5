package studies

import (
	"context"
	"fmt"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/kept"
	"pragmalab/store"
)

// analysisCacheStudies is how many studies' analyses a Service keeps: the
// studies whose Analysis pages were looked at last.
const analysisCacheStudies = 8

// Analysis returns the study and its analysis — what its Analysis page,
// the page's figures and its downloads show (docs/architecture.md#studies).
//
// The analysis is computed once per change of what it is computed from:
// it is kept with the study's data version (store.StudyDataVersion, which
// triggers raise on every write that changes what the analysis reads — the
// study's settings and items, a completed participant and their ratings, a
// judgement, a final context answer, an output or its rating — whichever
// process wrote; migrations 0171 and 0172), and reused while the version
// is the same — so a participant completing a batch, an exclusion decision
// or a settings change gives a new analysis, while a participant's
// answers under way do not, and the page, its figures and
// its downloads between two writes share one: reading the version is one
// query, where reading the rows is most of a computation.
func (s *Service) Analysis(ctx context.Context, studyID int64) (*domain.Study, *Analysis, error) {
	st, err := s.db.Study(ctx, studyID)
	if err != nil {
		return nil, nil, err
	}
	// The version is read before the rows: they are at least that new.
	v, err := s.db.StudyDataVersion(ctx, studyID)
	if err != nil {
		return nil, nil, err
	}
	key := analysisKey{version: v, pilot: store.PilotIncluded(ctx)}
	// Requests of the same version wait for this computation: it outlives
	// a request that goes away (a page left before its figures came).
	a, err := s.analyses.Get(studyID, key, func() (*Analysis, error) { return s.computeAnalysis(context.WithoutCancel(ctx), st) })
	if err != nil {
		return nil, nil, err
	}
	return st, a, nil
}

// computeAnalysis reads a study's rows and options and analyses them.
func (s *Service) computeAnalysis(ctx context.Context, st *domain.Study) (*Analysis, error) {
	switch st.Kind {
	case domain.KindCrowd:
		return s.versioned(ctx, st, s.crowdAnalysis)
	case domain.KindJudgement:
		return s.versioned(ctx, st, s.judgementAnalysis)
	case domain.KindExpert:
		return s.expertAnalysis(ctx, st)
	case domain.KindContext:
		return s.contextAnalysis(ctx, st)
	case domain.KindExplain:
		return s.explainAnalysis(ctx, st)
	}
	return &Analysis{Empty: "There is no analysis for this kind of study."}, nil
}

// versioned is analyse's analysis of study st, which reads the ratings of
// its current design version (CrowdRatingRows); for a study of several
// versions it says so first, and its printed command picks that version
// from the export (docs/studies.md#design-versions).
func (s *Service) versioned(ctx context.Context, st *domain.Study, analyse func(context.Context, *domain.Study) (*Analysis, error)) (*Analysis, error) {
	a, err := analyse(ctx, st)
	if err != nil || a == nil {
		return a, err
	}
	many, err := s.db.HasDesignVersions(ctx, st.ID)
	if err != nil || !many {
		return a, err
	}
	k, err := s.db.CurrentDesignVersion(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	flag := fmt.Sprintf(" --design-version %d", k)
	if a.Command != "" {
		a.Command += flag
	}
	if a.PlanCommand != "" {
		a.PlanCommand += flag
	}
	earlier := "1"
	if k > 2 {
		earlier = fmt.Sprintf("1 to %d", k-1)
	}
	note := fmt.Sprintf("Design version %d, the current one: the ratings of version %s, given under another design, are not in this analysis; analyse them from the ratings export with --design-version.", k, earlier)
	a.Summary = append([]string{note}, a.Summary...)
	return a, nil
}

// crowdAnalysis is the toplines of a crowd study's completed batches.
func (s *Service) crowdAnalysis(ctx context.Context, st *domain.Study) (*Analysis, error) {
	set, err := CrowdSettings(st)
	if err != nil {
		return nil, err
	}
	opt, err := crowdOptions(ctx, s.db, st.ID, set)
	if err != nil {
		return nil, err
	}
	rows, err := CrowdRatingRows(ctx, s.db, st.ID)
	if err != nil {
		return &Analysis{Command: ToplinesCommand(opt, ScalePoints(set)), Problem: err}, nil
	}
	if rows == nil {
		return &Analysis{Command: ToplinesCommand(opt, ScalePoints(set)), Empty: "No participant has completed a batch yet."}, nil
	}
	rs, err := toplines.NewRatings(rows)
	if err != nil {
		return &Analysis{Command: ToplinesCommand(opt, ScalePoints(set)), Problem: err}, nil
	}
	rs.ScalePoints = ScalePoints(set)
	a := RatingsAnalysis(rs, opt)
	a.ExportFile = "ratings.csv"
	return a, nil
}

// expertAnalysis is the agreement of an expert study's judgements.
func (s *Service) expertAnalysis(ctx context.Context, st *domain.Study) (*Analysis, error) {
	js, err := Judgements(ctx, s.db, st.ID)
	if err != nil {
		return nil, err
	}
	if len(js) == 0 {
		return &Analysis{Command: "pragmalab analyze agreement --judgements judgements.csv", ExportFile: "judgements.csv",
			Empty: "No expert has judged an item yet."}, nil
	}
	return AgreementAnalysis(js), nil
}

// contextAnalysis is the context measures of a context study's final
// answers.
func (s *Service) contextAnalysis(ctx context.Context, st *domain.Study) (*Analysis, error) {
	as, err := ContextAnswers(ctx, s.db, st.ID)
	if err != nil {
		return nil, err
	}
	if len(as) == 0 {
		return &Analysis{Command: "pragmalab analyze context --answers answers.csv", Empty: "No expert has given a final answer yet."}, nil
	}
	a := ContextAnalysis(as)
	a.ExportFile = "context_answers.csv"
	return a, nil
}

// explainAnalysis is the analysis of an explain study's ratings.
func (s *Service) explainAnalysis(ctx context.Context, st *domain.Study) (*Analysis, error) {
	rs, err := ExplanationRatings(ctx, s.db, st.ID)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return &Analysis{Command: "pragmalab analyze explanations --ratings explanation_ratings.csv", Empty: "No explanation has been rated yet."}, nil
	}
	a := ExplanationsAnalysis(rs)
	a.ExportFile = "explanation_ratings.csv"
	return a, nil
}

// analysisKey is what a kept analysis was computed from: the study's data
// version, with or without the pilot's answers.
type analysisKey struct {
	version int64
	pilot   bool
}

// analysisCache keeps the studies' analyses.
type analysisCache = kept.Cache[analysisKey, Analysis]

func newAnalysisCache(max int) *analysisCache { return kept.New[analysisKey, Analysis](max) }
