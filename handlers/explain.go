package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"pragmalab/studies"
	"pragmalab/templates"
)

// explainScreens opens the explanation-rating session of the URL's expert.
func (h *Handler) explainScreens(w http.ResponseWriter, r *http.Request) (*studies.Invitation, *studies.ExplainSession, bool) {
	e, ok := h.expert(w, r)
	if !ok {
		return nil, nil, false
	}
	x, err := e.ExplainSession(r.Context())
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	return e, x, true
}

func explainURL(e *studies.Invitation, pos int) string {
	if pos == 0 {
		return "/x/" + e.Token() + "/done"
	}
	return templates.ExplainScreenURL(e.Token(), pos)
}

// ExplainLanding handles GET /x/{token}: the task and where to go on.
func (h *Handler) ExplainLanding(w http.ResponseWriter, r *http.Request) {
	e, x, ok := h.explainScreens(w, r)
	if !ok {
		return
	}
	h.render(w, r, http.StatusOK, templates.ExplainLanding(templates.ExplainLandingView{
		Lang: e.Study.Lang, Token: e.Token(), Name: e.Study.Name,
		Screens: x.Len(), Rated: x.Rated(), Next: x.Next(),
	}))
}

func (h *Handler) explainScreenView(e *studies.Invitation, x *studies.ExplainSession, pos int) templates.ExplainScreenView {
	return templates.ExplainScreenView{Lang: e.Study.Lang, Token: e.Token(), Total: x.Len(), Rated: x.Rated(), Screen: x.Screen(pos),
		Decoy: h.traps(e.Token()).Decoy}
}

// ExplainScreenPage handles GET /x/{token}/{pos}.
func (h *Handler) ExplainScreenPage(w http.ResponseWriter, r *http.Request) {
	e, x, ok := h.explainScreens(w, r)
	if !ok {
		return
	}
	pos, ok := position(r, x.Len())
	if !ok {
		h.NotFound(w, r)
		return
	}
	if err := x.Show(r.Context(), pos); err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.ExplainScreen(h.explainScreenView(e, x, pos)))
}

// ExplainAnswer handles POST /x/{token}/{pos}: the judgment (1–5, in the
// order of the screen) is committed before the next screen; without one
// the screen comes back asking for it. Sending it again replaces it.
func (h *Handler) ExplainAnswer(w http.ResponseWriter, r *http.Request) {
	e, x, ok := h.explainScreens(w, r)
	if !ok {
		return
	}
	pos, ok := h.answerForm(w, r, x.Len())
	if !ok {
		return
	}
	i, err := strconv.Atoi(r.PostFormValue("judgment"))
	if err != nil {
		i = 0 // none chosen
	}
	next, err := x.Answer(r.Context(), pos, i, rtParam(r), integrityParam(r, h.traps(e.Token()).Decoy.Name))
	if errors.Is(err, studies.ErrNoJudgment) {
		v := h.explainScreenView(e, x, pos)
		v.Error = templates.TI(e.Study.Lang, "ex_required")
		h.render(w, r, http.StatusUnprocessableEntity, templates.ExplainScreen(v))
		return
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	http.Redirect(w, r, explainURL(e, next), http.StatusSeeOther)
}

// ExplainDone handles GET /x/{token}/done.
func (h *Handler) ExplainDone(w http.ResponseWriter, r *http.Request) {
	e, x, ok := h.explainScreens(w, r)
	if !ok {
		return
	}
	if open := x.Next(); open != 0 {
		http.Redirect(w, r, explainURL(e, open), http.StatusSeeOther)
		return
	}
	if x.Len() == 0 {
		http.Redirect(w, r, "/x/"+e.Token(), http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.ExplainDone(templates.ExplainDoneView{
		Lang: e.Study.Lang, Token: e.Token(), Total: x.Len(),
	}))
}
