package handlers

import (
	"bytes"
	"fmt"
	"net/http"
	"pragmalab/domain"

	"pragmalab/studies"
	"pragmalab/templates"
)

// explainSettings reads an explain study's settings over the defaults.
func explainSettings(s *domain.Study) (domain.ExplainSettings, error) {
	return studies.ExplainSettingsOf(s)
}

// explainStudyPage is the admin page of an explanation-rating study.
func (h *Handler) explainStudyPage(w http.ResponseWriter, r *http.Request, s *domain.Study) {
	h.explainStudyPageWith(w, r, s, http.StatusOK, "")
}

func (h *Handler) explainStudyPageWith(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, errMsg string) {
	v := templates.ExplainStudyView{Nav: h.studyNav(w, r, s), Audit: h.auditLog(r.Context(), s.ID), Study: s, BaseURL: baseURL(r)}
	v.Nav.Error = errMsg
	rep, err := h.Service.ExplainStudy(r.Context(), s)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Settings, v.Passages, v.Progress = rep.Settings, passageSummary(rep.Passages), rep.Progress
	v.Outputs, v.Unassigned, v.Annotators = rep.Outputs, rep.Unassigned, rep.Annotators
	h.render(w, r, status, templates.ExplainStudy(v))
}

// ImportOutputs handles POST /admin/studies/{study}/outputs: a CSV of model
// outputs (item_id, strategy, model, output), all or nothing.
func (h *Handler) ImportOutputs(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err == nil {
		err = studies.TakesOutputs(s)
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	name, data, err := uploadedFile(w, r, "file")
	n := 0
	if err == nil {
		n, err = h.Service.ImportOutputs(r.Context(), s, name, bytes.NewReader(data))
	}
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	auditf(r, "%s", studies.AuditOutputsImported(n, name))
	h.flash(w, r, fmt.Sprintf("Imported %d model outputs from %s.", n, name))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// SaveExplainSettings handles POST /admin/studies/{study}/explain/settings.
func (h *Handler) SaveExplainSettings(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindExplain)
	if !ok {
		return
	}
	set, err := explainSettings(s)
	if err == nil {
		set.PerExpert, err = formInt(r, "per_expert", set.PerExpert)
	}
	if err == nil {
		set.Overlap, err = formInt(r, "overlap", set.Overlap)
	}
	if err == nil {
		err = h.Service.SaveExplainSettings(r.Context(), s.ID, set)
	}
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.flash(w, r, fmt.Sprintf("Each expert gets %d screens; each screen is rated by %d expert(s).", set.PerExpert, set.Overlap))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// InviteExplainExpert handles POST /admin/studies/{study}/explain/experts:
// a new expert with an invitation link and their screens.
func (h *Handler) InviteExplainExpert(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindExplain)
	if !ok {
		return
	}
	a, n, err := h.Service.InviteExplainExpert(r.Context(), s, r.PostFormValue("name"))
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.flash(w, r, fmt.Sprintf("Invited %s with %d screens: copy their link from the table below.", a.Name, n))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// AssignExplainScreens handles POST
// /admin/studies/{study}/explain/experts/{annotator}/assign: more screens
// for an expert, e.g. after more outputs were imported.
func (h *Handler) AssignExplainScreens(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindExplain)
	if !ok {
		return
	}
	aid, err := idParam(r, "annotator")
	n := 0
	if err == nil {
		n, err = h.Service.AssignExplainScreens(r.Context(), s, aid)
	}
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.flash(w, r, fmt.Sprintf("Assigned %d more screens.", n))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// ExportExplanationRatings handles GET
// /admin/studies/{study}/export/explanation_ratings.csv: the explanation
// ratings export (docs/formats.md#explanation-ratings-export).
func (h *Handler) ExportExplanationRatings(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	attachment(w, "text/csv; charset=utf-8", fmt.Sprintf("explanation-ratings-study%d.csv", s.ID))
	if err := h.Store.ExportExplanationRatings(r.Context(), s.ID, w); err != nil {
		h.Log.Error("export explanation ratings", "study", s.ID, "err", err)
		return
	}
	h.exported(r, s.ID)
}
