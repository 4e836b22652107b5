package handlers

import (
	"net/http"
	"pragmalab/domain"
	"strconv"

	"pragmalab/store"
	"pragmalab/templates"
)

// impaqtsExpert loads the expert whose invitation token is in the URL, for
// a study of the given kind; a wrong token or kind is a plain 404.
func (h *Handler) impaqtsExpert(w http.ResponseWriter, r *http.Request, kind string) (*expertCtx, bool) {
	e, ok := h.expert(w, r)
	if !ok {
		return nil, false
	}
	if e.study.Kind != kind {
		h.Error(w, r, domain.Errorf(domain.ENOTFOUND, "this invitation link is not valid"))
		return nil, false
	}
	return e, true
}

// contextSurvey is one expert's survey as the participant pages need it.
type contextSurvey struct {
	e         *expertCtx
	a         *store.ContextAssignment
	questions []store.ContextQuestion
	settings  store.ContextSettings
}

func (c *contextSurvey) answered() int {
	n := 0
	for _, q := range c.questions {
		if q.Final() {
			n++
		}
	}
	return n
}

// firstOpen is the first question without a final answer, or 0.
func (c *contextSurvey) firstOpen() int {
	for _, q := range c.questions {
		if !q.Final() {
			return q.Position
		}
	}
	return 0
}

// contextSurveyOf loads the expert's assignment named in the URL, refusing
// one that belongs to anybody else.
func (h *Handler) contextSurveyOf(w http.ResponseWriter, r *http.Request) (*contextSurvey, bool) {
	e, ok := h.impaqtsExpert(w, r, domain.KindContext)
	if !ok {
		return nil, false
	}
	c := &contextSurvey{e: e}
	aid, err := idParam(r, "assignment")
	if err == nil {
		c.a, err = h.DB.AnnotatorContextAssignment(r.Context(), e.annotator.ID, aid)
	}
	if err == nil {
		c.questions, err = h.DB.ContextQuestions(r.Context(), c.a.ID)
	}
	if err == nil {
		c.settings, err = contextSettings(e.study)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	return c, true
}

func (c *contextSurvey) url(pos int) string {
	if pos == 0 {
		return templates.ContextSurveyURL(c.e.annotator.Token, c.a.ID) + "/done"
	}
	return templates.ContextQuestionURL(c.e.annotator.Token, c.a.ID, pos)
}

// ContextLanding handles GET /c/{token}: the task and the expert's surveys.
func (h *Handler) ContextLanding(w http.ResponseWriter, r *http.Request) {
	e, ok := h.impaqtsExpert(w, r, domain.KindContext)
	if !ok {
		return
	}
	as, err := h.DB.AnnotatorContextAssignments(r.Context(), e.annotator.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.ContextLanding(templates.ContextLandingView{
		Lang: e.study.Lang, Token: e.annotator.Token, Name: e.study.Name, Assignments: as,
	}))
}

// ContextResume handles GET /c/{token}/s/{assignment}: on to the first
// question without a final answer, or the end of the survey.
func (h *Handler) ContextResume(w http.ResponseWriter, r *http.Request) {
	c, ok := h.contextSurveyOf(w, r)
	if !ok {
		return
	}
	http.Redirect(w, r, c.url(c.firstOpen()), http.StatusSeeOther)
}

// ContextQuestionPage handles GET /c/{token}/s/{assignment}/{pos}.
func (h *Handler) ContextQuestionPage(w http.ResponseWriter, r *http.Request) {
	c, ok := h.contextSurveyOf(w, r)
	if !ok {
		return
	}
	pos, ok := position(r, len(c.questions))
	if !ok {
		h.NotFound(w, r)
		return
	}
	q := c.questions[pos-1]
	if err := h.DB.ScreenShown(r.Context(), store.FlowContext, c.a.ID, pos); err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.ContextQuestion(templates.ContextQuestionView{
		Lang: c.e.study.Lang, Token: c.e.annotator.Token, AID: c.a.ID,
		Total: len(c.questions), Answered: c.answered(), Question: q, Max: q.MaxShown(c.settings.MaxSentences),
	}))
}

// ContextAnswer handles POST /c/{token}/s/{assignment}/{pos}: "sufficient",
// "more" or "restart", each committed (durably) before the
// next page. An open question comes back with one more sentence; a final
// one moves on to the next question.
func (h *Handler) ContextAnswer(w http.ResponseWriter, r *http.Request) {
	c, ok := h.contextSurveyOf(w, r)
	if !ok {
		return
	}
	pos, ok := h.answerForm(w, r, len(c.questions))
	if !ok {
		return
	}
	seen, err := strconv.Atoi(r.PostFormValue("seen"))
	if err != nil || seen < 0 || seen > store.MaxContextSentences {
		h.Error(w, r, domain.Errorf(domain.EINVALID, "the form is incomplete: please answer again"))
		return
	}
	q, err := h.DB.ContextAct(r.Context(), c.e.annotator.ID, c.a.ID, pos, seen, r.PostFormValue("action"), c.settings.MaxSentences, rtParam(r))
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if !q.Final() {
		http.Redirect(w, r, c.url(pos), http.StatusSeeOther)
		return
	}
	c.questions[pos-1].Shown, c.questions[pos-1].Sufficient = q.Shown, q.Sufficient
	next := c.firstOpen()
	if pos < len(c.questions) {
		next = pos + 1
	}
	http.Redirect(w, r, c.url(next), http.StatusSeeOther)
}

// ContextDone handles GET /c/{token}/s/{assignment}/done.
func (h *Handler) ContextDone(w http.ResponseWriter, r *http.Request) {
	c, ok := h.contextSurveyOf(w, r)
	if !ok {
		return
	}
	if open := c.firstOpen(); open != 0 {
		http.Redirect(w, r, c.url(open), http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.ContextDone(templates.ContextDoneView{
		Lang: c.e.study.Lang, Token: c.e.annotator.Token, AID: c.a.ID, Total: len(c.questions),
	}))
}
