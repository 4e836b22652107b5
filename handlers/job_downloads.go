package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"pragmalab/analysis/report"
	"pragmalab/runner"
	"pragmalab/scoring"

	"github.com/go-chi/chi/v5"
)

// JobResults handles GET /admin/studies/{study}/jobs/{job}/results.{format}:
// per-item results as CSV or JSON.
func (h *Handler) JobResults(w http.ResponseWriter, r *http.Request) {
	_, res, err := h.jobResults(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	j := res.Job
	format := chi.URLParam(r, "format")
	if format != "csv" && format != "json" {
		h.NotFound(w, r)
		return
	}
	name := fmt.Sprintf("job-%d-%s.%s", j.ID, j.Task, format)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	if format == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		if err := res.WriteCSV(w); err != nil {
			h.Log.Error("job csv", "job", j.ID, "err", err)
		}
		return
	}
	out := res.JSON().(map[string]any)
	if j.Task == string(scoring.TrueFalse) {
		c, err := h.comparison(r.Context(), res)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		out["humans"] = c.Human
		if c.Human != nil {
			out["comparison"] = c.Models[0].JSON()
		}
		if c.Human != nil && c.Toplines != nil {
			out["human_correlation"] = res.CorrelateWithHumans(c.Toplines)
		}
	}
	if scoring.IsHumanTask(scoring.Task(j.Task)) {
		eps, _ := altEpsilon(r)
		c, err := h.Comparisons.CompareJobWithHumans(r.Context(), res, eps)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		if c != nil {
			out["humans"] = c
		}
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}

// JobBars handles GET /admin/studies/{study}/jobs/{job}/bars/{measure}.{format}:
// the model-vs-human bar chart of one measure, with 95 % intervals, as
// SVG, PNG or PDF.
func (h *Handler) JobBars(w http.ResponseWriter, r *http.Request) {
	_, res, err := h.jobResults(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	j := res.Job
	measure, format := chi.URLParam(r, "measure"), chi.URLParam(r, "format")
	if !slices.Contains(runner.Measures, measure) || !slices.Contains(report.PlotFormats, format) || j.Task != string(scoring.TrueFalse) {
		h.NotFound(w, r)
		return
	}
	c, err := h.comparison(r.Context(), res)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	p, err := c.Bars(measure)
	if err == nil {
		var b []byte
		if b, err = report.PlotBytes(p, format); err == nil {
			ct := map[string]string{"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf"}[format]
			w.Header().Set("Content-Type", ct)
			w.Write(b)
			return
		}
	}
	h.Error(w, r, fmt.Errorf("bars of job %d: %w", j.ID, err))
}
