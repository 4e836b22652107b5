package handlers

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"

	"pragmalab/analysis"
	"pragmalab/analysis/report"
	"pragmalab/comparisons"
	"pragmalab/domain"
	"pragmalab/studies"
	"pragmalab/templates"
)

// AnalysisRCompanion handles GET /admin/studies/{study}/analysis/r-companion.zip:
// the study's R companion (data files and analysis.R) as one zip, beside
// the LaTeX (docs/formats.md#r-companion).
func (h *Handler) AnalysisRCompanion(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if h.RCompanion == nil {
		h.NotFound(w, r)
		return
	}
	var buf bytes.Buffer
	if err := h.RCompanion(r.Context(), s, &buf); err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="study-%d-r-companion.zip"`, s.ID))
	w.Write(buf.Bytes())
}

// rCompanionOffered says whether the Analysis page offers the R companion:
// a server that can write it, a kind that has one, and data.
func (h *Handler) rCompanionOffered(s *domain.Study, a *studies.Analysis) bool {
	return h.RCompanion != nil && a.Result != nil && a.Problem == nil && s.Kind != domain.KindExplain
}

// modelsView lays the study's jobs beside its humans out for the Analysis
// page: one row per job with the alt-test's verdict, the skill against
// chance (the headline), the share of units within the human ceiling
// beside the chance baselines' and the correlation against the split-half
// ceiling.
func modelsView(studyID int64, ms []comparisons.ModelBesideHumans) []templates.ModelHumanRow {
	var out []templates.ModelHumanRow
	for _, m := range ms {
		row := templates.ModelHumanRow{URL: templates.JobURL(studyID, m.JobID, ""), Job: "#" + strconv.FormatInt(m.JobID, 10),
			Task: m.Task, Scorer: m.Scorer, Epsilon: analysis.Fixed(m.Epsilon, 2), Source: m.Source,
			Omega: analysis.Missing, Rho: analysis.Missing, Passed: m.Why, Within: analysis.Missing, Skill: analysis.Missing, ChanceWithin: analysis.Missing,
			R: analysis.Missing, Ceiling: analysis.Missing, Share: analysis.Missing, Other: analysis.Missing}
		if a := m.Alt; a != nil {
			row.Omega, row.Rho, row.Passed = analysis.Fixed(a.WinningRate, 2), analysis.Fixed(a.AdvantageProbability, 2), "no"
			if a.Passed {
				row.Passed = "yes"
			}
			if a.VerdictReason != "" {
				row.Passed = a.VerdictReason
			}
		}
		if m.Within != nil {
			row.Within = fmt.Sprintf("%s (%d units)", analysis.Fixed(*m.Within, 2), m.Units)
		}
		if m.UniformWithin != nil && m.MarginalWithin != nil {
			row.ChanceWithin = analysis.Fixed(*m.UniformWithin, 2) + " · " + analysis.Fixed(*m.MarginalWithin, 2)
		}
		if m.Skill != nil {
			row.Skill = analysis.Fixed(*m.Skill, 2) + " " + analysis.CIText(m.SkillCI) + " vs " + report.BaselineName(m.SkillBaseline)
		} else if m.Within != nil {
			row.Skill = "undefined"
		}
		if c := m.Correlation; c != nil {
			row.R, row.Ceiling, row.Share = report.Text(c.R), report.Text(c.Ceiling), report.Text(c.Share)
		}
		switch {
		case m.ECE != nil:
			row.Other = "ECE " + analysis.Fixed(*m.ECE, 2)
		case m.DeltaA != nil:
			row.Other = "ΔA " + analysis.Fixed(*m.DeltaA, 2)
		}
		out = append(out, row)
	}
	return out
}
