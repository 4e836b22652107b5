package handlers

import (
	"net/http"
	"pragmalab/domain"
	"strconv"

	"pragmalab/store"
	"pragmalab/templates"
)

// explainScreens loads the expert of the URL and their screens.
func (h *Handler) explainScreens(w http.ResponseWriter, r *http.Request) (*expertCtx, []store.ExplainScreen, bool) {
	e, ok := h.impaqtsExpert(w, r, domain.KindExplain)
	if !ok {
		return nil, nil, false
	}
	screens, err := h.DB.ExplainScreens(r.Context(), e.annotator.ID)
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	return e, screens, true
}

func rated(screens []store.ExplainScreen) (n, firstOpen int) {
	for _, s := range screens {
		if s.Judgment != "" {
			n++
		} else if firstOpen == 0 {
			firstOpen = s.Position
		}
	}
	return n, firstOpen
}

func explainURL(e *expertCtx, pos int) string {
	if pos == 0 {
		return "/x/" + e.annotator.Token + "/done"
	}
	return templates.ExplainScreenURL(e.annotator.Token, pos)
}

// ExplainLanding handles GET /x/{token}: the task and where to go on.
func (h *Handler) ExplainLanding(w http.ResponseWriter, r *http.Request) {
	e, screens, ok := h.explainScreens(w, r)
	if !ok {
		return
	}
	n, open := rated(screens)
	h.render(w, r, http.StatusOK, templates.ExplainLanding(templates.ExplainLandingView{
		Lang: e.study.Lang, Token: e.annotator.Token, Name: e.study.Name,
		Screens: len(screens), Rated: n, Next: open,
	}))
}

func (h *Handler) explainScreenView(e *expertCtx, screens []store.ExplainScreen, pos int) templates.ExplainScreenView {
	n, _ := rated(screens)
	return templates.ExplainScreenView{Lang: e.study.Lang, Token: e.annotator.Token, Total: len(screens), Rated: n, Screen: screens[pos-1]}
}

// ExplainScreenPage handles GET /x/{token}/{pos}.
func (h *Handler) ExplainScreenPage(w http.ResponseWriter, r *http.Request) {
	e, screens, ok := h.explainScreens(w, r)
	if !ok {
		return
	}
	pos, ok := position(r, len(screens))
	if !ok {
		h.NotFound(w, r)
		return
	}
	if err := h.DB.ScreenShown(r.Context(), store.FlowExplain, e.annotator.ID, pos); err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.ExplainScreen(h.explainScreenView(e, screens, pos)))
}

// ExplainAnswer handles POST /x/{token}/{pos}: the judgment (1–5, in the
// order of the screen) is committed before the next screen; without one
// the screen comes back asking for it. Sending it again replaces it.
func (h *Handler) ExplainAnswer(w http.ResponseWriter, r *http.Request) {
	e, screens, ok := h.explainScreens(w, r)
	if !ok {
		return
	}
	pos, ok := h.answerForm(w, r, len(screens))
	if !ok {
		return
	}
	i, err := strconv.Atoi(r.PostFormValue("judgment"))
	if err != nil || i < 1 || i > len(store.Judgments) {
		v := h.explainScreenView(e, screens, pos)
		v.Error = templates.TI(e.study.Lang, "ex_required")
		h.render(w, r, http.StatusUnprocessableEntity, templates.ExplainScreen(v))
		return
	}
	if err := h.DB.SaveExplainRating(r.Context(), e.annotator.ID, pos, store.Judgments[i-1], rtParam(r)); err != nil {
		h.Error(w, r, err)
		return
	}
	screens[pos-1].Judgment = store.Judgments[i-1]
	next := 0
	if pos < len(screens) {
		next = pos + 1
	} else {
		_, next = rated(screens)
	}
	http.Redirect(w, r, explainURL(e, next), http.StatusSeeOther)
}

// ExplainDone handles GET /x/{token}/done.
func (h *Handler) ExplainDone(w http.ResponseWriter, r *http.Request) {
	e, screens, ok := h.explainScreens(w, r)
	if !ok {
		return
	}
	if _, open := rated(screens); open != 0 {
		http.Redirect(w, r, explainURL(e, open), http.StatusSeeOther)
		return
	}
	if len(screens) == 0 {
		http.Redirect(w, r, "/x/"+e.annotator.Token, http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.ExplainDone(templates.ExplainDoneView{
		Lang: e.study.Lang, Token: e.annotator.Token, Total: len(screens),
	}))
}
