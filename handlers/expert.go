package handlers

import (
	"net/http"
	"pragmalab/domain"
	"strconv"

	"github.com/go-chi/chi/v5"

	"pragmalab/store"
	"pragmalab/templates"
)

// expertCtx is what every expert page needs: who, in which study, which batch.
type expertCtx struct {
	annotator *store.Annotator
	study     *domain.Study
}

// expert loads the expert whose invitation token is in the URL. The token is
// the expert's credential, so a wrong one gets the same 404 as a missing page.
func (h *Handler) expert(w http.ResponseWriter, r *http.Request) (*expertCtx, bool) {
	a, err := h.DB.AnnotatorByToken(r.Context(), chi.URLParam(r, "token"))
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	s, err := h.DB.Study(r.Context(), a.StudyID)
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	if s.Archived() {
		h.studyClosed(w, r, s.Lang)
		return nil, false
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if s.State != domain.StateOpen && !a.Pilot {
		h.studyUnavailable(w, r, s)
		return nil, false
	}
	return &expertCtx{annotator: a, study: s}, true
}

// ExpertLanding handles GET /e/{token}: definitions and the expert's batches.
func (h *Handler) ExpertLanding(w http.ResponseWriter, r *http.Request) {
	e, ok := h.expert(w, r)
	if !ok {
		return
	}
	// The IMPAQTS studies share the invitation tokens; their pages live
	// under /c (context survey) and /x (rating explanations).
	switch e.study.Kind {
	case domain.KindContext:
		http.Redirect(w, r, "/c/"+e.annotator.Token, http.StatusSeeOther)
		return
	case domain.KindExplain:
		http.Redirect(w, r, "/x/"+e.annotator.Token, http.StatusSeeOther)
		return
	}
	as, err := h.DB.AnnotatorAssignments(r.Context(), e.annotator.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.ExpertLanding(templates.ExpertLandingView{
		Lang: e.study.Lang, Token: e.annotator.Token, Name: e.study.Name, Assignments: as,
	}))
}

// expertBatch loads the expert's assignment named in the URL, refusing one
// that belongs to anybody else, and its screens.
func (h *Handler) expertBatch(w http.ResponseWriter, r *http.Request) (*expertCtx, *store.Assignment, []store.Screen, bool) {
	e, ok := h.expert(w, r)
	if !ok {
		return nil, nil, nil, false
	}
	aid, err := idParam(r, "assignment")
	var a *store.Assignment
	if err == nil {
		a, err = h.DB.AnnotatorAssignment(r.Context(), e.annotator.ID, aid)
	}
	var screens []store.Screen
	if err == nil {
		screens, err = h.DB.Screens(r.Context(), a.ID)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, nil, false
	}
	return e, a, screens, true
}

// ExpertResume handles GET /e/{token}/b/{assignment}: on to the first
// unanswered screen, or the completion page.
func (h *Handler) ExpertResume(w http.ResponseWriter, r *http.Request) {
	e, a, screens, ok := h.expertBatch(w, r)
	if !ok {
		return
	}
	for _, s := range screens {
		if s.Answer == nil {
			http.Redirect(w, r, screenURL(e, a, s.Position), http.StatusSeeOther)
			return
		}
	}
	http.Redirect(w, r, screenURL(e, a, 0), http.StatusSeeOther)
}

func screenURL(e *expertCtx, a *store.Assignment, pos int) string {
	base := "/e/" + e.annotator.Token + "/b/" + strconv.FormatInt(a.ID, 10)
	if pos == 0 {
		return base + "/done"
	}
	return base + "/" + strconv.Itoa(pos)
}

// position reads the {pos} parameter as one of n screens (1…n).
func position(r *http.Request, n int) (int, bool) {
	pos, err := strconv.Atoi(chi.URLParam(r, "pos"))
	return pos, err == nil && pos >= 1 && pos <= n
}

func answered(screens []store.Screen) int {
	n := 0
	for _, s := range screens {
		if s.Answer != nil {
			n++
		}
	}
	return n
}

// ExpertScreen handles GET /e/{token}/b/{assignment}/{pos}. Before the first
// item of a type that has no answer yet, the type's instructions come first.
func (h *Handler) ExpertScreen(w http.ResponseWriter, r *http.Request) {
	e, a, screens, ok := h.expertBatch(w, r)
	if !ok {
		return
	}
	pos, ok := position(r, len(screens))
	if !ok {
		h.NotFound(w, r)
		return
	}
	s := screens[pos-1]
	firstOfType := pos == 1 || screens[pos-2].Item.Type != s.Item.Type
	if firstOfType && s.Answer == nil && r.URL.Query().Get("intro") != "seen" {
		h.render(w, r, http.StatusOK, templates.ExpertIntro(templates.ExpertIntroView{
			Lang: e.study.Lang, Token: e.annotator.Token, AID: a.ID, Position: pos, Type: s.Item.Type,
		}))
		return
	}
	if err := h.DB.ScreenShown(r.Context(), store.FlowExpert, a.ID, pos); err != nil {
		h.Error(w, r, err)
		return
	}
	v := h.screenView(e, a, screens, pos)
	if s.Answer != nil {
		v.Answer = *s.Answer
	}
	h.render(w, r, http.StatusOK, templates.ExpertItem(v))
}

func (h *Handler) screenView(e *expertCtx, a *store.Assignment, screens []store.Screen, pos int) templates.ExpertItemView {
	return templates.ExpertItemView{
		Lang: e.study.Lang, Token: e.annotator.Token, AID: a.ID, Position: pos,
		Total: len(screens), Answered: answered(screens), Item: screens[pos-1].Item,
	}
}

// ExpertAnswer handles POST /e/{token}/b/{assignment}/{pos}: the answer is
// committed before the next screen is shown; sending it twice changes
// nothing, and an earlier screen's answer can be changed the same way.
func (h *Handler) ExpertAnswer(w http.ResponseWriter, r *http.Request) {
	e, a, screens, ok := h.expertBatch(w, r)
	if !ok {
		return
	}
	pos, ok := h.answerForm(w, r, len(screens))
	if !ok {
		return
	}
	j := store.Judgement{
		Plausible:           r.PostFormValue("plausible"),
		CancellationCorrect: r.PostFormValue("cancellation_correct"),
		AltImplicature:      r.PostFormValue("alt_implicature"),
		AltCancellation:     r.PostFormValue("alt_cancellation"),
		RTms:                rtParam(r),
	}
	if err := h.DB.SaveJudgement(r.Context(), e.annotator.ID, a.ID, pos, j); err != nil {
		if domain.ErrorCode(err) != domain.EINVALID {
			h.Error(w, r, err)
			return
		}
		v := h.screenView(e, a, screens, pos)
		v.Answer, v.Error = j, domain.ErrorMessage(err)
		h.render(w, r, http.StatusUnprocessableEntity, templates.ExpertItem(v))
		return
	}
	screens[pos-1].Answer = &j
	// Go on to the next screen; after the last, to the first screen still
	// unanswered (one skipped by going back and forth), else to the end.
	next := 0
	if pos < len(screens) {
		next = pos + 1
	} else {
		for _, s := range screens {
			if s.Answer == nil {
				next = s.Position
				break
			}
		}
	}
	http.Redirect(w, r, screenURL(e, a, next), http.StatusSeeOther)
}

// ExpertDone handles GET /e/{token}/b/{assignment}/done.
func (h *Handler) ExpertDone(w http.ResponseWriter, r *http.Request) {
	e, a, screens, ok := h.expertBatch(w, r)
	if !ok {
		return
	}
	for _, s := range screens {
		if s.Answer == nil {
			http.Redirect(w, r, screenURL(e, a, s.Position), http.StatusSeeOther)
			return
		}
	}
	h.render(w, r, http.StatusOK, templates.ExpertDone(templates.ExpertDoneView{
		Lang: e.study.Lang, Token: e.annotator.Token, AID: a.ID, Total: len(screens),
	}))
}
