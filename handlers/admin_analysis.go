package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"pragmalab/domain"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"pragmalab/analysis/report"
	"pragmalab/studies"
	"pragmalab/templates"
)

// analysisStudy loads the study and its analysis, computed once per
// change of the study's data (studies.Service.Analysis); failures are
// rendered.
func (h *Handler) analysisStudy(w http.ResponseWriter, r *http.Request) (*domain.Study, *studies.Analysis, bool) {
	id, err := idParam(r, "study")
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	s, a, err := h.Service.Analysis(r.Context(), id)
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
	if a.Problem != nil {
		// The platform's own export failed the reader: a bug worth showing plainly.
		h.Log.Error("analysis of export", "study", s.ID, "err", a.Problem)
	}
	v, err := analysisView(h.nav(w, r, s), s, a)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	ms, err := h.Comparisons.ModelsBesideHumans(r.Context(), s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Models = modelsView(s.ID, ms)
	// The participants' integrity, below the toplines' paragraphs
	// (docs/statistics.md#integrity-methods).
	if len(v.Methods) > 0 {
		p, err := h.Comparisons.IntegrityMethods(r.Context(), s)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		if p != "" {
			v.Methods = append(v.Methods, p)
		}
	}
	if h.rCompanionOffered(s, a) {
		v.RCompanion = templates.StudyURL(s.ID, "/analysis/r-companion.zip")
	}
	h.render(w, r, http.StatusOK, templates.Analysis(v))
}

// analysisView lays an analysis out for the page.
func analysisView(nav templates.Nav, s *domain.Study, a *studies.Analysis) (templates.AnalysisView, error) {
	base := templates.StudyURL(s.ID, "/analysis/")
	v := templates.AnalysisView{Nav: nav, StudyID: s.ID, Kind: s.Kind, Command: a.Command, PlanCommand: a.PlanCommand,
		Empty: a.Empty, Summary: append(slices.Clip(a.Summary), a.Notes...)}
	if a.ExportFile != "" {
		v.Export = templates.StudyURL(s.ID, "/export/"+a.ExportFile)
	}
	for _, e := range a.Excluded {
		v.Excluded = append(v.Excluded, templates.ExcludedView{ID: e.ID, Reason: e.Reason})
	}
	for _, c := range a.Confusions {
		v.Confusions = append(v.Confusions, templates.ConfusionView{Name: c.Name, Question: c.Question, A: c.A, B: c.B, M: c.M})
	}
	if a.Problem != nil {
		v.Problem = "The study's export could not be analysed: " + a.Problem.Error()
		return v, nil
	}
	for _, t := range a.Tables {
		v.Tables = append(v.Tables, tableView(t, base))
	}
	if a.Result != nil {
		v.ResultJSON = base + "result.json"
		v.LaTeX = base + "tables.tex"
	}
	if a.Methods != nil {
		v.Methods = a.Methods.Paragraphs
		v.MethodsText, v.MethodsMarkdown = base+"methods.txt", base+"methods.md"
		for _, l := range []struct {
			lang  report.Lang
			label string
		}{{report.Italian, "Italiano"}, {report.German, "Deutsch"}} {
			if a.MethodsIn[l.lang] != nil {
				v.MethodsLangs = append(v.MethodsLangs, templates.MethodsLang{Label: l.label, Lang: string(l.lang),
					Text: base + "methods-" + string(l.lang) + ".txt", Markdown: base + "methods-" + string(l.lang) + ".md"})
			}
		}
	}
	if a.HasFigures() {
		figs, err := a.Figures()
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
func tableView(t *report.Table, base string) templates.AnalysisTable {
	tv := templates.AnalysisTable{Name: t.Name, Title: t.Title, Columns: t.Columns, Notes: t.Notes,
		CSV: base + t.Name + ".csv", JSON: base + t.Name + ".json", LaTeX: base + t.Name + ".tex", Numeric: make([]bool, len(t.Columns)),
		Collapsed: len(t.Rows) > 20}
	for ri, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = report.Text(c)
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
// paragraph; methods-it and methods-de where the analysis writes it in
// Italian and German) (docs/formats.md#analysis-downloads).
func (h *Handler) AnalysisDownload(w http.ResponseWriter, r *http.Request) {
	s, a, ok := h.analysisStudy(w, r)
	if !ok {
		return
	}
	name, format := chi.URLParam(r, "table"), chi.URLParam(r, "format")
	if a.Problem != nil {
		h.Error(w, r, domain.Errorf(domain.EINVALID, "the study's export could not be analysed: %v", a.Problem))
		return
	}
	if name == "methods" && a.Methods != nil {
		p, err := h.Comparisons.IntegrityMethods(r.Context(), s)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		if p != "" && (format == "txt" || format == "md") {
			m := *a.Methods
			m.Paragraphs = append(slices.Clone(m.Paragraphs), p)
			text := m.Text()
			if format == "md" {
				text = m.Markdown()
			}
			w.Header().Set("Content-Type", downloadTypes[format])
			w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="study-%d-%s.%s"`, s.ID, name, format))
			io.WriteString(w, text)
			return
		}
	}
	var buf bytes.Buffer
	found, err := writeAnalysisDownload(&buf, a, name, format)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if !found {
		h.NotFound(w, r)
		return
	}
	ctype := downloadTypes[format]
	if ctype == "" {
		ctype = "text/csv; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="study-%d-%s.%s"`, s.ID, name, format))
	w.Write(buf.Bytes())
}

// downloadTypes are the content types of the analysis downloads by file
// extension; CSV is the default.
var downloadTypes = map[string]string{
	"json": "application/json",
	"tex":  "text/plain; charset=utf-8",
	"txt":  "text/plain; charset=utf-8",
	"md":   "text/markdown; charset=utf-8",
}

// writeAnalysisDownload writes the download name.format of the analysis
// a to buf; found is false when the analysis has no such download.
func writeAnalysisDownload(buf *bytes.Buffer, a *studies.Analysis, name, format string) (found bool, err error) {
	switch {
	case name == "methods" && (format == "txt" || format == "md") && a.Methods != nil:
		if format == "txt" {
			buf.WriteString(a.Methods.Text())
		} else {
			buf.WriteString(a.Methods.Markdown())
		}
		return true, nil
	case strings.HasPrefix(name, "methods-") && (format == "txt" || format == "md") && a.MethodsIn[report.Lang(strings.TrimPrefix(name, "methods-"))] != nil:
		m := a.MethodsIn[report.Lang(strings.TrimPrefix(name, "methods-"))]
		if format == "txt" {
			buf.WriteString(m.Text())
		} else {
			buf.WriteString(m.Markdown())
		}
		return true, nil
	case name == "tables" && format == "tex" && len(a.Tables) > 0:
		for _, t := range a.Tables {
			if err := t.WriteLaTeX(buf); err != nil {
				return true, err
			}
		}
		return true, nil
	case name == "result" && format == "json" && a.Result != nil:
		enc := json.NewEncoder(buf)
		enc.SetIndent("", "  ")
		return true, enc.Encode(a.Result)
	}
	return writeTableDownload(buf, a.Table(name), format)
}

// writeTableDownload writes one table as CSV, JSON or LaTeX; found is
// false for no table or another format.
func writeTableDownload(buf *bytes.Buffer, t *report.Table, format string) (found bool, err error) {
	if t == nil || (format != "csv" && format != "json" && format != "tex") {
		return false, nil
	}
	write := t.WriteCSV
	switch format {
	case "json":
		write = t.WriteJSON
	case "tex":
		write = t.WriteLaTeX
	}
	return true, write(buf)
}

// AnalysisPlot handles GET /admin/studies/{study}/analysis/plots/{figure}.{format}:
// one figure as PDF, SVG or PNG (2×).
func (h *Handler) AnalysisPlot(w http.ResponseWriter, r *http.Request) {
	_, a, ok := h.analysisStudy(w, r)
	if !ok {
		return
	}
	name, format := chi.URLParam(r, "figure"), chi.URLParam(r, "format")
	if !a.HasFigures() || (format != "svg" && format != "png" && format != "pdf") {
		h.NotFound(w, r)
		return
	}
	b, found, err := a.Plot(name, format)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if !found {
		h.NotFound(w, r)
		return
	}
	ctype := map[string]string{"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}[format]
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}
