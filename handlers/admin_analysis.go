package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strings"

	"github.com/go-chi/chi/v5"

	"pragmalab/analysis"
	"pragmalab/studies"
	"pragmalab/templates"
)

// studyAnalysis is a study's analysis, computed from the rows the study's
// export writes — so the page shows exactly what `pragmalab analyze` prints
// for the exported file (the export→analyze round-trip tests hold the two
// together).
type studyAnalysis struct {
	command  string // the CLI command giving the same figures
	export   string // URL of the export it was computed from
	empty    string // why there is nothing to show yet
	problem  error  // the export could not be analysed
	result   any    // the JSON of docs/formats.md#analysis-json-output
	summary  []string
	excluded []templates.ExcludedView
	tables   []*analysis.Table
	confs    []templates.ConfusionView
	figures  func() ([]analysis.Figure, error)
	methods  *analysis.Methods
}

// analyse reads the study's rows — the rows its export writes — and
// analyses them.
func (h *Handler) analyse(ctx context.Context, s *domain.Study) (*studyAnalysis, error) {
	switch s.Kind {
	case domain.KindExpert:
		return h.analyseExpert(ctx, s)
	case domain.KindCrowd:
		return h.analyseCrowd(ctx, s)
	case domain.KindContext:
		as, err := studies.ContextAnswers(ctx, h.DB, s.ID)
		if err != nil {
			return nil, err
		}
		if len(as) == 0 {
			return &studyAnalysis{command: "pragmalab analyze context --answers answers.csv", empty: "No expert has given a final answer yet."}, nil
		}
		a := contextAnalysis(as)
		a.export = templates.StudyURL(s.ID, "/export/context_answers.csv")
		return a, nil
	case domain.KindExplain:
		rs, err := studies.ExplanationRatings(ctx, h.DB, s.ID)
		if err != nil {
			return nil, err
		}
		if len(rs) == 0 {
			return &studyAnalysis{command: "pragmalab analyze explanations --ratings explanation_ratings.csv", empty: "No explanation has been rated yet."}, nil
		}
		a := explanationsAnalysis(rs)
		a.export = templates.StudyURL(s.ID, "/export/explanation_ratings.csv")
		return a, nil
	}
	return &studyAnalysis{empty: "There is no analysis for this kind of study."}, nil
}

// analyseCrowd analyses the ratings of the participants who completed a
// batch, with the study's exclusion thresholds and the researcher's
// include/exclude decisions.
func (h *Handler) analyseCrowd(ctx context.Context, s *domain.Study) (*studyAnalysis, error) {
	opt, err := studies.CrowdOptions(ctx, h.DB, s.ID)
	if err != nil {
		return nil, err
	}
	rs, err := studies.CrowdRatings(ctx, h.DB, s.ID)
	if err != nil {
		return &studyAnalysis{command: toplinesCommand(opt), problem: err}, nil
	}
	if rs == nil {
		return &studyAnalysis{command: "pragmalab analyze toplines --ratings ratings.csv", empty: "No participant has completed a batch yet."}, nil
	}
	a := ratingsAnalysis(rs, opt)
	a.export = templates.StudyURL(s.ID, "/export/ratings.csv")
	return a, nil
}

func (h *Handler) analyseExpert(ctx context.Context, s *domain.Study) (*studyAnalysis, error) {
	a := &studyAnalysis{command: "pragmalab analyze agreement --judgements judgements.csv", export: templates.StudyURL(s.ID, "/export/judgements.csv")}
	js, err := studies.Judgements(ctx, h.DB, s.ID)
	if err != nil {
		return nil, err
	}
	if len(js) == 0 {
		a.empty = "No expert has judged an item yet."
		return a, nil
	}
	ag := analysis.ComputeAgreement(js)
	a.result = ag
	a.tables = []*analysis.Table{analysis.AgreementTable(ag), analysis.AgreementIntervalsTable(ag)}
	a.methods = analysis.AgreementMethods(ag, len(js), analysis.English)
	a.figures = func() ([]analysis.Figure, error) { return analysis.AgreementFigures(ag) }
	a.summary = []string{fmt.Sprintf("%d judgements by %d experts: %s.", len(js), len(ag.Annotators), strings.Join(ag.Annotators, ", "))}
	if len(ag.Pairs) == 0 {
		a.summary = append(a.summary, "Agreement needs two experts who judged the same items (round 1).")
	}
	for _, p := range ag.Pairs {
		for _, q := range []struct {
			name, label string
			b           analysis.Binary
		}{{"plausibility", "Plausibility", p.Plausibility}, {"cancellation", "Cancellation correctness", p.Cancellation}} {
			a.confs = append(a.confs, templates.ConfusionView{Name: q.name + "-" + p.A + "-" + p.B, Question: q.label, A: p.A, B: p.B, M: q.b.Confusion})
		}
	}
	return a, nil
}

// toplinesCommand is the CLI command that gives the same toplines as the
// page, with the study's thresholds and the researcher's decisions.
func toplinesCommand(opt analysis.Options) string {
	cmd := fmt.Sprintf("pragmalab analyze toplines --ratings ratings.csv --high-pass %d --low-pass %d --max-failed %d", opt.HighPass, opt.LowPass, opt.MaxFailed)
	if len(opt.Exclude) > 0 {
		cmd += " --exclude " + strings.Join(opt.Exclude, ",")
	}
	if len(opt.Include) > 0 {
		cmd += " --include " + strings.Join(opt.Include, ",")
	}
	return cmd
}

// ratingsAnalysis analyses a crowd study's ratings with the study's
// exclusion settings and the researcher's overrides (in opt).
func ratingsAnalysis(rs *analysis.Ratings, opt analysis.Options) *studyAnalysis {
	a := &studyAnalysis{command: toplinesCommand(opt)}
	t := analysis.ComputeToplines(rs, opt)
	a.result = t
	ps := t.Participants
	a.summary = []string{
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
			a.excluded = append(a.excluded, templates.ExcludedView{ID: p.ID, Reason: fmt.Sprintf("excluded by the researcher (failed %d of %d checks)", p.FailedChecks, p.Checks)})
		case p.Excluded:
			a.excluded = append(a.excluded, templates.ExcludedView{ID: p.ID, Reason: fmt.Sprintf("failed %d of %d attention checks", p.FailedChecks, p.Checks)})
		case p.ZeroVariance:
			a.excluded = append(a.excluded, templates.ExcludedView{ID: p.ID, Reason: fmt.Sprintf("all %d ratings equal: no z-scores", p.Ratings)})
		case p.ChecksOnly:
			a.excluded = append(a.excluded, templates.ExcludedView{ID: p.ID, Reason: fmt.Sprintf("rated only the %d attention checks, no item", p.Checks)})
		}
	}
	a.tables = []*analysis.Table{analysis.ToplinesTable(t), analysis.ToplinesIntervalsTable(t), analysis.ItemMeansTable(t), analysis.ParticipantsTable(t)}
	a.methods = analysis.ToplinesMethods(t, rs.NumRows(), analysis.English)
	a.figures = func() ([]analysis.Figure, error) { return analysis.ToplinesFiguresWithIntervals(t) }
	return a
}

// contextAnalysis analyses a context survey study's answers.
func contextAnalysis(as []analysis.ContextAnswer) *studyAnalysis {
	a := &studyAnalysis{command: "pragmalab analyze context --answers answers.csv"}
	c := analysis.ComputeContext(as)
	a.result = c
	a.summary = []string{fmt.Sprintf("%d answers on %d passages in %d surveys.", c.Overall.Judgements, c.Overall.Items, len(c.SurveyOrder))}
	a.tables = append(analysis.ContextTables(c), analysis.ContextIntervalsTable(c), analysis.ContextKindPeriodTable(c))
	a.methods = analysis.ContextMethods(c, analysis.English)
	a.figures = func() ([]analysis.Figure, error) { return analysis.ContextFigures(c) }
	return a
}

// explanationsAnalysis analyses an explanation-rating study's judgments.
func explanationsAnalysis(rs []analysis.ExplanationRating) *studyAnalysis {
	a := &studyAnalysis{command: "pragmalab analyze explanations --ratings explanation_ratings.csv"}
	e := analysis.ComputeExplanations(rs)
	a.result = e
	a.summary = []string{fmt.Sprintf("%d ratings of model explanations.", len(rs))}
	a.tables = []*analysis.Table{analysis.ExplanationsTable(e), analysis.ExplanationsIntervalsTable(e)}
	a.methods = analysis.ExplanationsMethods(e, len(rs), analysis.English)
	a.figures = func() ([]analysis.Figure, error) { return analysis.ExplanationFigures(e) }
	return a
}

// analysisStudy loads the study and its analysis; failures are rendered.
func (h *Handler) analysisStudy(w http.ResponseWriter, r *http.Request) (*domain.Study, *studyAnalysis, bool) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	a, err := h.analyse(r.Context(), s)
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	return s, a, true
}

// AnalysisPage handles GET /admin/studies/{study}/analysis: the study's
// tables, confusion matrices and figures, each downloadable.
func (h *Handler) AnalysisPage(w http.ResponseWriter, r *http.Request) {
	s, a, ok := h.analysisStudy(w, r)
	if !ok {
		return
	}
	if a.problem != nil {
		// The platform's own export failed the reader: a bug worth showing plainly.
		h.Log.Error("analysis of export", "study", s.ID, "err", a.problem)
	}
	v, err := analysisView(h.nav(w, r, s), s, a)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Analysis(v))
}

// analysisView lays an analysis out for the page.
func analysisView(nav templates.Nav, s *domain.Study, a *studyAnalysis) (templates.AnalysisView, error) {
	base := templates.StudyURL(s.ID, "/analysis/")
	v := templates.AnalysisView{Nav: nav, StudyID: s.ID, Kind: s.Kind, Command: a.command, Export: a.export,
		Empty: a.empty, Summary: a.summary, Excluded: a.excluded, Confusions: a.confs}
	if a.problem != nil {
		v.Problem = "The study's export could not be analysed: " + a.problem.Error()
		return v, nil
	}
	for _, t := range a.tables {
		v.Tables = append(v.Tables, tableView(t, base))
	}
	if a.result != nil {
		v.ResultJSON = base + "result.json"
		v.LaTeX = base + "tables.tex"
	}
	if a.methods != nil {
		v.Methods = a.methods.Paragraphs
		v.MethodsText, v.MethodsMarkdown = base+"methods.txt", base+"methods.md"
	}
	if a.figures != nil {
		figs, err := a.figures()
		if err != nil {
			return v, err
		}
		for _, f := range figs {
			v.Figures = append(v.Figures, templates.FigureView{Name: f.Name, Title: f.Title, SVG: base + "plots/" + f.Name + ".svg",
				PNG: base + "plots/" + f.Name + ".png", PDF: base + "plots/" + f.Name + ".pdf"})
		}
	}
	return v, nil
}

// tableView lays a table out as strings for the page.
func tableView(t *analysis.Table, base string) templates.AnalysisTable {
	tv := templates.AnalysisTable{Name: t.Name, Title: t.Title, Columns: t.Columns, Notes: t.Notes,
		CSV: base + t.Name + ".csv", JSON: base + t.Name + ".json", LaTeX: base + t.Name + ".tex", Numeric: make([]bool, len(t.Columns)),
		Collapsed: len(t.Rows) > 20}
	for ri, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = analysis.Text(c)
			if _, isStr := c.(string); !isStr && ri == 0 {
				tv.Numeric[i] = true
			}
		}
		tv.Rows = append(tv.Rows, cells)
	}
	return tv
}

// AnalysisDownload handles GET /admin/studies/{study}/analysis/{table}.{format}:
// a table as CSV, JSON or LaTeX (.tex), tables.tex (every table), result.json
// (the whole analysis JSON), or methods.txt / methods.md (the methods
// paragraph) (docs/formats.md#analysis-downloads).
func (h *Handler) AnalysisDownload(w http.ResponseWriter, r *http.Request) {
	s, a, ok := h.analysisStudy(w, r)
	if !ok {
		return
	}
	name, format := chi.URLParam(r, "table"), chi.URLParam(r, "format")
	if a.problem != nil {
		h.Error(w, r, domain.Errorf(domain.EINVALID, "the study's export could not be analysed: %v", a.problem))
		return
	}
	var buf bytes.Buffer
	ctype := "text/csv; charset=utf-8"
	switch format {
	case "json":
		ctype = "application/json"
	case "tex", "txt":
		ctype = "text/plain; charset=utf-8"
	case "md":
		ctype = "text/markdown; charset=utf-8"
	}
	switch {
	case name == "methods" && (format == "txt" || format == "md") && a.methods != nil:
		if format == "txt" {
			buf.WriteString(a.methods.Text())
		} else {
			buf.WriteString(a.methods.Markdown())
		}
	case name == "tables" && format == "tex" && len(a.tables) > 0:
		for _, t := range a.tables {
			if err := t.WriteLaTeX(&buf); err != nil {
				h.Error(w, r, err)
				return
			}
		}
	case name == "result" && format == "json" && a.result != nil:
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(a.result); err != nil {
			h.Error(w, r, err)
			return
		}
	default:
		t := findTable(a.tables, name)
		if t == nil || (format != "csv" && format != "json" && format != "tex") {
			h.NotFound(w, r)
			return
		}
		write := t.WriteCSV
		switch format {
		case "json":
			write = t.WriteJSON
		case "tex":
			write = t.WriteLaTeX
		}
		if err := write(&buf); err != nil {
			h.Error(w, r, err)
			return
		}
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="study-%d-%s.%s"`, s.ID, name, format))
	w.Write(buf.Bytes())
}

func findTable(ts []*analysis.Table, name string) *analysis.Table {
	for _, t := range ts {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// AnalysisPlot handles GET /admin/studies/{study}/analysis/plots/{figure}.{format}:
// one figure as PDF, SVG or PNG (2×).
func (h *Handler) AnalysisPlot(w http.ResponseWriter, r *http.Request) {
	_, a, ok := h.analysisStudy(w, r)
	if !ok {
		return
	}
	name, format := chi.URLParam(r, "figure"), chi.URLParam(r, "format")
	if a.figures == nil || (format != "svg" && format != "png" && format != "pdf") {
		h.NotFound(w, r)
		return
	}
	figs, err := a.figures()
	if err != nil {
		h.Error(w, r, err)
		return
	}
	for _, f := range figs {
		if f.Name != name {
			continue
		}
		b, err := analysis.PlotBytes(f.Plot, format)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		ctype := map[string]string{"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}[format]
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
		return
	}
	h.NotFound(w, r)
}
