package handlers

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/studies"
	"pragmalab/templates"
)

// A study's design as one file (docs/studies.md#design-file): downloaded
// from the study's page, and a new study made from one on the dashboard.

// DownloadDesign handles GET /admin/studies/{study}/design.json.
func (h *Handler) DownloadDesign(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	d, err := h.Service.StudyDesign(r.Context(), s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	attachment(w, "application/json; charset=utf-8", fmt.Sprintf("design-study%d.json", s.ID))
	if err := studies.WriteDesign(w, d); err != nil {
		h.Log.Error("download design", "study", s.ID, "err", err)
	}
}

// DownloadOpeningDesign handles GET
// /admin/studies/{study}/design-at-opening.json: the design file the study
// opened with, byte for byte as it was kept (docs/studies.md#frozen-design).
func (h *Handler) DownloadOpeningDesign(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	b, _, err := h.Store.OpeningDesign(r.Context(), s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	attachment(w, "application/json; charset=utf-8", fmt.Sprintf("design-study%d-at-opening.json", s.ID))
	w.Write(b)
}

// DownloadDesignVersion handles GET
// /admin/studies/{study}/design-versions/{version}.json: design version
// k's file, as it was kept when it started (docs/studies.md#design-versions).
func (h *Handler) DownloadDesignVersion(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	k, err := strconv.Atoi(strings.TrimSuffix(chi.URLParam(r, "version"), ".json"))
	if err != nil || k < 1 {
		h.Error(w, r, domain.Errorf(domain.ENOTFOUND, "design version %q not found", chi.URLParam(r, "version")))
		return
	}
	b, err := h.Store.DesignVersionFile(r.Context(), s.ID, k)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	attachment(w, "application/json; charset=utf-8", fmt.Sprintf("design-study%d-version%d.json", s.ID, k))
	w.Write(b)
}

// CreateStudyFromDesign handles POST /admin/studies/design: a new draft
// study from an uploaded design file, all or nothing; a refused file is
// named on the dashboard with the field at fault.
func (h *Handler) CreateStudyFromDesign(w http.ResponseWriter, r *http.Request) {
	name, data, err := uploadedFile(w, r, "design")
	fail := func(err error) {
		if domain.ErrorCode(err) == domain.EINVALID {
			msg := fmt.Sprintf("Nothing was created: %s", domain.ErrorMessage(err))
			if name != "" {
				msg = fmt.Sprintf("Nothing was created from %s: %s", filepath.Base(name), domain.ErrorMessage(err))
			}
			h.renderStudies(w, r, http.StatusBadRequest, templates.StudyForm{Lang: "en", DesignError: msg})
			return
		}
		h.Error(w, r, err)
	}
	if err != nil {
		fail(err)
		return
	}
	s, n, err := h.Service.CreateStudyFromDesign(r.Context(), data, r.PostFormValue("name"))
	if err != nil {
		fail(err)
		return
	}
	auditStudy(r, s.ID)
	auditf(r, "%s", studies.AuditStudyFromDesign(s, filepath.Base(name), n))
	h.flash(w, r, fmt.Sprintf("Study %q created from %s: %s. Build its batches on this page.", s.Name, filepath.Base(name), n))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// ItemsTemplate handles GET /admin/studies/{study}/template/{file}: the
// file to fill in for the study's kind (docs/items.md#fields) — items.csv
// for expert and crowd studies (a judgement study's in its own columns,
// docs/items.md#judgement-items), passages.tsv for context and explain
// studies, outputs.csv for explain studies.
func (h *Handler) ItemsTemplate(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	var data []byte
	switch file := chi.URLParam(r, "file"); {
	case file == "items.csv" && (s.Kind == domain.KindExpert || s.Kind == domain.KindCrowd):
		conds, _, err := h.Service.DeclaredConditions(r.Context(), s.ID)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		attachment(w, "text/csv; charset=utf-8", "items-template.csv")
		data = itemfiles.ItemsTemplateCSV(conds)
	case file == "items.csv" && s.Kind == domain.KindJudgement:
		// The judgement columns, a minimal pair in the study's own
		// conditions, a check and a practice item (docs/items.md#judgement-items).
		conds, _, err := h.Service.DeclaredConditions(r.Context(), s.ID)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		attachment(w, "text/csv; charset=utf-8", "items-template.csv")
		data = itemfiles.JudgementTemplateCSV(conds)
	case file == "passages.tsv" && (s.Kind == domain.KindContext || s.Kind == domain.KindExplain):
		attachment(w, "text/tab-separated-values; charset=utf-8", "passages-template.tsv")
		data = itemfiles.PassagesTemplateTSV()
	case file == "outputs.csv" && s.Kind == domain.KindExplain:
		attachment(w, "text/csv; charset=utf-8", "outputs-template.csv")
		data = itemfiles.OutputsTemplateCSV()
	default:
		h.NotFound(w, r)
		return
	}
	w.Write(data)
}
