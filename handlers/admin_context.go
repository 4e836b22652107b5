package handlers

import (
	"bytes"
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strconv"

	"pragmalab/analysis/contextsurvey"
	"pragmalab/studies"
	"pragmalab/templates"
)

// passageSummary is the view of a study's passage counts.
func passageSummary(c studies.PassageCounts) templates.PassageSummary {
	return templates.PassageSummary{Total: c.Total, Counts: c.Counts}
}

// contextStudyPage is the admin page of a context-expansion study.
func (h *Handler) contextStudyPage(w http.ResponseWriter, r *http.Request, s *domain.Study) {
	h.contextStudyPageWith(w, r, s, http.StatusOK, "")
}

func (h *Handler) contextStudyPageWith(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, errMsg string) {
	v := templates.ContextStudyView{Nav: h.studyNav(w, r, s), Audit: h.auditLog(r.Context(), s.ID), Study: s, BaseURL: baseURL(r)}
	v.Nav.Error = errMsg
	rep, err := h.Service.ContextStudy(r.Context(), s)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Settings, v.Report, v.Passages = rep.Settings, rep.Settings.Report, passageSummary(rep.Passages)
	v.Surveys, v.Annotators, v.Assignments = rep.Surveys, rep.Annotators, rep.Assignments
	h.render(w, r, status, templates.ContextStudy(v))
}

// importPassages takes an uploaded IMPAQTS-PID TSV into a context or
// explain study (POST /admin/studies/{study}/items), all or nothing.
func (h *Handler) importPassages(w http.ResponseWriter, r *http.Request, s *domain.Study, name string, data []byte) {
	n, err := h.Service.ImportPassages(r.Context(), s.ID, name, bytes.NewReader(data))
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.Log.Info("passages imported", "study", s.ID, "passages", n)
	auditf(r, "%s", studies.AuditPassagesImported(n, name))
	h.flash(w, r, fmt.Sprintf("Imported %d passages from %s.", n, name))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// formInt reads a whole number from a form, keeping def when it is absent.
func formInt(r *http.Request, name string, def int) (int, error) {
	v := r.PostFormValue(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, domain.Errorf(domain.EINVALID, "%s must be a whole number", name)
	}
	return n, nil
}

// BuildContextSurveys handles POST /admin/studies/{study}/surveys: saves
// the settings and samples the surveys, balanced by kind × period.
func (h *Handler) BuildContextSurveys(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindContext)
	if !ok {
		return
	}
	set, err := studies.ContextSettingsOf(s)
	for _, f := range []struct {
		name string
		v    *int
	}{{"surveys", &set.Surveys}, {"per_survey", &set.PerSurvey}, {"experts_per_survey", &set.ExpertsPerSurvey}, {"max_sentences", &set.MaxSentences}} {
		if err == nil {
			*f.v, err = formInt(r, f.name, *f.v)
		}
	}
	var plan contextsurvey.SurveyPlan
	if err == nil {
		plan, err = h.Service.BuildContextSurveys(r.Context(), s, set)
	}
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	msg := fmt.Sprintf("Built %d surveys of %d passages, balanced by kind × period (seed %d).", set.Surveys, set.PerSurvey, s.Seed)
	if !plan.Balanced() {
		msg = fmt.Sprintf("Built %d surveys, balanced as far as the data allows (seed %d): see the report below.", set.Surveys, s.Seed)
	}
	h.flash(w, r, msg)
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// InviteContextExpert handles POST /admin/studies/{study}/context/experts:
// a new expert with an invitation link, assigned the chosen survey or the
// one with the fewest experts.
func (h *Handler) InviteContextExpert(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindContext)
	if !ok {
		return
	}
	surveyID, _ := strconv.ParseInt(r.PostFormValue("survey"), 10, 64)
	a, err := h.Service.InviteContextExpert(r.Context(), s.ID, r.PostFormValue("name"), surveyID)
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.flash(w, r, fmt.Sprintf("Invited %s: copy their link from the table below.", a.Name))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// ExportContextAnswers handles GET
// /admin/studies/{study}/export/context_answers.csv: the context answers
// export (docs/formats.md#context-answers-export).
func (h *Handler) ExportContextAnswers(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	attachment(w, "text/csv; charset=utf-8", fmt.Sprintf("context-answers-study%d.csv", s.ID))
	if err := h.Store.ExportContextAnswers(r.Context(), s.ID, w); err != nil {
		h.Log.Error("export context answers", "study", s.ID, "err", err)
		return
	}
	h.exported(r, s.ID)
}
