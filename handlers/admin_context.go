package handlers

import (
	"bytes"
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strconv"

	"pragmalab/analysis"
	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/templates"
)

// contextSettings reads a context study's settings over the defaults.
func contextSettings(s *domain.Study) (store.ContextSettings, error) {
	set := store.DefaultContextSettings()
	if err := s.DecodeSettings(&set); err != nil {
		return set, err
	}
	return set, nil
}

// passageSummary counts a study's passages for its admin page.
func (h *Handler) passageSummary(r *http.Request, studyID int64) (templates.PassageSummary, error) {
	counts, total, err := h.DB.PassageCounts(r.Context(), studyID)
	return templates.PassageSummary{Total: total, Counts: counts}, err
}

// contextStudyPage is the admin page of a context-expansion study.
func (h *Handler) contextStudyPage(w http.ResponseWriter, r *http.Request, s *domain.Study) {
	h.contextStudyPageWith(w, r, s, http.StatusOK, "")
}

func (h *Handler) contextStudyPageWith(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, errMsg string) {
	ctx := r.Context()
	v := templates.ContextStudyView{Nav: h.studyNav(w, r, s), Audit: h.auditLog(r.Context(), s.ID), Study: s, BaseURL: baseURL(r)}
	v.Nav.Error = errMsg
	var err error
	if v.Settings, err = contextSettings(s); err == nil {
		v.Report = v.Settings.Report
		v.Passages, err = h.passageSummary(r, s.ID)
	}
	if err == nil {
		v.Surveys, err = h.DB.ContextSurveys(ctx, s.ID)
	}
	if err == nil {
		v.Annotators, err = h.DB.Annotators(ctx, s.ID)
	}
	if err == nil {
		v.Assignments, err = h.DB.ContextAssignments(ctx, s.ID)
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, status, templates.ContextStudy(v))
}

// importPassages takes an uploaded IMPAQTS-PID TSV into a context or
// explain study (POST /admin/studies/{study}/items), all or nothing.
func (h *Handler) importPassages(w http.ResponseWriter, r *http.Request, s *domain.Study, name string, data []byte) {
	ps, err := studies.ParsePassagesTSV(bytes.NewReader(data))
	if err != nil {
		h.failOnStudyPage(w, r, s, domain.Errorf(domain.EINVALID, "Nothing was imported from %s: %v", name, err))
		return
	}
	if err := h.DB.ImportPassages(r.Context(), s.ID, ps); err != nil {
		if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ECONFLICT {
			err = domain.Errorf(code, "Nothing was imported from %s: %s", name, domain.ErrorMessage(err))
		}
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.Log.Info("passages imported", "study", s.ID, "passages", len(ps))
	auditf(r, "%d passages from %s", len(ps), name)
	h.flash(w, r, fmt.Sprintf("Imported %d passages from %s.", len(ps), name))
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
	ctx := r.Context()
	set, err := contextSettings(s)
	for _, f := range []struct {
		name string
		v    *int
	}{{"surveys", &set.Surveys}, {"per_survey", &set.PerSurvey}, {"experts_per_survey", &set.ExpertsPerSurvey}, {"max_sentences", &set.MaxSentences}} {
		if err == nil {
			*f.v, err = formInt(r, f.name, *f.v)
		}
	}
	var plan analysis.SurveyPlan
	if err == nil {
		plan, err = studies.BuildContextSurveys(ctx, h.DB, s, set)
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
	ctx := r.Context()
	surveyID, _ := strconv.ParseInt(r.PostFormValue("survey"), 10, 64)
	surveys, err := h.DB.ContextSurveys(ctx, s.ID)
	if err == nil && len(surveys) == 0 {
		err = domain.Errorf(domain.EINVALID, "build the surveys before inviting experts")
	}
	var a *store.Annotator
	if err == nil {
		a, err = h.DB.CreateAnnotator(ctx, s.ID, r.PostFormValue("name"))
	}
	if err == nil {
		_, err = h.DB.AssignContextSurvey(ctx, s.ID, a.ID, surveyID)
	}
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
	if err := h.DB.ExportContextAnswers(r.Context(), s.ID, w); err != nil {
		h.Log.Error("export context answers", "study", s.ID, "err", err)
		return
	}
	h.exported(r, s.ID)
}
