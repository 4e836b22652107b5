package handlers

import (
	"net/http"
	"strconv"

	"pragmalab/domain"
	"pragmalab/studies"
	"pragmalab/templates"
)

// contextSurveyOf opens the expert's survey named in the URL, refusing one
// that belongs to anybody else or an invitation to another kind of study.
func (h *Handler) contextSurveyOf(w http.ResponseWriter, r *http.Request) (*studies.Invitation, *studies.ContextSession, bool) {
	e, ok := h.expert(w, r)
	if !ok {
		return nil, nil, false
	}
	err := e.OfKind(domain.KindContext)
	var aid int64
	if err == nil {
		aid, err = idParam(r, "assignment")
	}
	var c *studies.ContextSession
	if err == nil {
		c, err = e.ContextSession(r.Context(), aid)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	return e, c, true
}

func contextURL(e *studies.Invitation, c *studies.ContextSession, pos int) string {
	if pos == 0 {
		return templates.ContextSurveyURL(e.Token(), c.Assignment.ID) + "/done"
	}
	return templates.ContextQuestionURL(e.Token(), c.Assignment.ID, pos)
}

// ContextLanding handles GET /c/{token}: the task and the expert's surveys.
func (h *Handler) ContextLanding(w http.ResponseWriter, r *http.Request) {
	e, ok := h.expert(w, r)
	if !ok {
		return
	}
	as, err := e.ContextAssignments(r.Context())
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v := templates.ContextLandingView{Lang: e.Study.Lang, Token: e.Token(), Name: e.Study.Name}
	for _, a := range as {
		v.Assignments = append(v.Assignments, templates.ContextSurveyRow{
			ID: a.ID, SurveyNumber: a.SurveyNumber, Total: a.Total, Answered: a.Answered, Done: a.Done(),
		})
	}
	h.render(w, r, http.StatusOK, templates.ContextLanding(v))
}

// ContextResume handles GET /c/{token}/s/{assignment}: on to the first
// question without a final answer, or the end of the survey.
func (h *Handler) ContextResume(w http.ResponseWriter, r *http.Request) {
	e, c, ok := h.contextSurveyOf(w, r)
	if !ok {
		return
	}
	http.Redirect(w, r, contextURL(e, c, c.Next()), http.StatusSeeOther)
}

// ContextQuestionPage handles GET /c/{token}/s/{assignment}/{pos}.
func (h *Handler) ContextQuestionPage(w http.ResponseWriter, r *http.Request) {
	e, c, ok := h.contextSurveyOf(w, r)
	if !ok {
		return
	}
	pos, ok := position(r, c.Len())
	if !ok {
		h.NotFound(w, r)
		return
	}
	if err := c.Show(r.Context(), pos); err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.ContextQuestion(templates.ContextQuestionView{
		Lang: e.Study.Lang, Token: e.Token(), AID: c.Assignment.ID,
		Total: c.Len(), Answered: c.Answered(), Question: c.Question(pos), Max: c.MaxShown(pos),
		Decoy: h.traps(e.Token()).Decoy,
	}))
}

// ContextAnswer handles POST /c/{token}/s/{assignment}/{pos}: "sufficient",
// "more" or "restart", each committed (durably) before the
// next page. An open question comes back with one more sentence; a final
// one moves on to the next question.
func (h *Handler) ContextAnswer(w http.ResponseWriter, r *http.Request) {
	e, c, ok := h.contextSurveyOf(w, r)
	if !ok {
		return
	}
	pos, ok := h.answerForm(w, r, c.Len())
	if !ok {
		return
	}
	seen, err := strconv.Atoi(r.PostFormValue("seen"))
	if err != nil {
		seen = -1 // Act refuses the incomplete form
	}
	next, err := c.Act(r.Context(), pos, seen, r.PostFormValue("action"), rtParam(r), integrityParam(r, h.traps(e.Token()).Decoy.Name))
	if err != nil {
		h.Error(w, r, err)
		return
	}
	http.Redirect(w, r, contextURL(e, c, next), http.StatusSeeOther)
}

// ContextDone handles GET /c/{token}/s/{assignment}/done.
func (h *Handler) ContextDone(w http.ResponseWriter, r *http.Request) {
	e, c, ok := h.contextSurveyOf(w, r)
	if !ok {
		return
	}
	if open := c.Next(); open != 0 {
		http.Redirect(w, r, contextURL(e, c, open), http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.ContextDone(templates.ContextDoneView{
		Lang: e.Study.Lang, Token: e.Token(), AID: c.Assignment.ID, Total: c.Len(),
	}))
}
