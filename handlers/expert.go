package handlers

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"pragmalab/domain"
	"pragmalab/studies"
	"pragmalab/templates"
)

// expert opens the invitation whose token is in the URL. The token is the
// expert's credential, so a wrong one gets the same 404 as a missing page.
func (h *Handler) expert(w http.ResponseWriter, r *http.Request) (*studies.Invitation, bool) {
	in, err := h.Service.Invitation(r.Context(), chi.URLParam(r, "token"))
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	if in.Closed() {
		h.studyClosed(w, r, in.Study.Lang)
		return nil, false
	}
	if in.Annotator.Pilot {
		templates.MarkPilot(r.Context())
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if in.Unavailable() {
		h.studyUnavailable(w, r, in.Study)
		return nil, false
	}
	return in, true
}

// ExpertLanding handles GET /e/{token}: definitions and the expert's batches.
func (h *Handler) ExpertLanding(w http.ResponseWriter, r *http.Request) {
	e, ok := h.expert(w, r)
	if !ok {
		return
	}
	// The IMPAQTS studies share the invitation tokens; their pages live
	// under /c (context survey) and /x (rating explanations).
	switch e.Study.Kind {
	case domain.KindContext:
		http.Redirect(w, r, "/c/"+e.Token(), http.StatusSeeOther)
		return
	case domain.KindExplain:
		http.Redirect(w, r, "/x/"+e.Token(), http.StatusSeeOther)
		return
	}
	as, err := e.ExpertAssignments(r.Context())
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v := templates.ExpertLandingView{Lang: e.Study.Lang, Token: e.Token(), Name: e.Study.Name}
	for _, a := range as {
		v.Assignments = append(v.Assignments, templates.ExpertBatchRow{
			ID: a.ID, BatchNumber: a.BatchNumber, Total: a.Total, Answered: a.Answered, Done: a.Done(),
		})
	}
	h.render(w, r, http.StatusOK, templates.ExpertLanding(v))
}

// expertBatch opens the expert's batch named in the URL, refusing one
// that belongs to anybody else.
func (h *Handler) expertBatch(w http.ResponseWriter, r *http.Request) (*studies.Invitation, *studies.ExpertSession, bool) {
	e, ok := h.expert(w, r)
	if !ok {
		return nil, nil, false
	}
	aid, err := idParam(r, "assignment")
	var b *studies.ExpertSession
	if err == nil {
		b, err = e.ExpertSession(r.Context(), aid)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	return e, b, true
}

// ExpertResume handles GET /e/{token}/b/{assignment}: on to the first
// unanswered screen, or the completion page.
func (h *Handler) ExpertResume(w http.ResponseWriter, r *http.Request) {
	e, b, ok := h.expertBatch(w, r)
	if !ok {
		return
	}
	http.Redirect(w, r, screenURL(e, b, b.Next()), http.StatusSeeOther)
}

func screenURL(e *studies.Invitation, b *studies.ExpertSession, pos int) string {
	base := "/e/" + e.Token() + "/b/" + strconv.FormatInt(b.Assignment.ID, 10)
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

// ExpertScreen handles GET /e/{token}/b/{assignment}/{pos}. Before the first
// item of a type that has no answer yet, the type's instructions come first.
func (h *Handler) ExpertScreen(w http.ResponseWriter, r *http.Request) {
	e, b, ok := h.expertBatch(w, r)
	if !ok {
		return
	}
	pos, ok := position(r, b.Len())
	if !ok {
		h.NotFound(w, r)
		return
	}
	s := b.Screen(pos)
	if b.NeedsIntro(pos) && r.URL.Query().Get("intro") != "seen" {
		h.render(w, r, http.StatusOK, templates.ExpertIntro(templates.ExpertIntroView{
			Lang: e.Study.Lang, Token: e.Token(), AID: b.Assignment.ID, Position: pos, Type: s.Item.Type,
		}))
		return
	}
	if err := b.Show(r.Context(), pos); err != nil {
		h.Error(w, r, err)
		return
	}
	v := h.screenView(e, b, pos)
	if s.Answer != nil {
		v.Answer = *s.Answer
	}
	h.render(w, r, http.StatusOK, templates.ExpertItem(v))
}

func (h *Handler) screenView(e *studies.Invitation, b *studies.ExpertSession, pos int) templates.ExpertItemView {
	return templates.ExpertItemView{
		Lang: e.Study.Lang, Token: e.Token(), AID: b.Assignment.ID, Position: pos,
		Total: b.Len(), Answered: b.Answered(), Item: b.Screen(pos).Item, Decoy: h.traps(e.Token()).Decoy,
	}
}

// ExpertAnswer handles POST /e/{token}/b/{assignment}/{pos}: the answer is
// committed before the next screen is shown; sending it twice changes
// nothing, and an earlier screen's answer can be changed the same way.
func (h *Handler) ExpertAnswer(w http.ResponseWriter, r *http.Request) {
	e, b, ok := h.expertBatch(w, r)
	if !ok {
		return
	}
	pos, ok := h.answerForm(w, r, b.Len())
	if !ok {
		return
	}
	j := domain.Judgement{
		Plausible:           r.PostFormValue("plausible"),
		CancellationCorrect: r.PostFormValue("cancellation_correct"),
		AltImplicature:      r.PostFormValue("alt_implicature"),
		AltCancellation:     r.PostFormValue("alt_cancellation"),
		RTms:                rtParam(r),
		Integrity:           integrityParam(r, h.traps(e.Token()).Decoy.Name),
	}
	next, err := b.Answer(r.Context(), pos, j)
	if err != nil {
		if domain.ErrorCode(err) != domain.EINVALID {
			h.Error(w, r, err)
			return
		}
		v := h.screenView(e, b, pos)
		v.Answer, v.Error = j, domain.ErrorMessage(err)
		h.render(w, r, http.StatusUnprocessableEntity, templates.ExpertItem(v))
		return
	}
	http.Redirect(w, r, screenURL(e, b, next), http.StatusSeeOther)
}

// ExpertDone handles GET /e/{token}/b/{assignment}/done.
func (h *Handler) ExpertDone(w http.ResponseWriter, r *http.Request) {
	e, b, ok := h.expertBatch(w, r)
	if !ok {
		return
	}
	if next := b.Next(); next != 0 {
		http.Redirect(w, r, screenURL(e, b, next), http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.ExpertDone(templates.ExpertDoneView{
		Lang: e.Study.Lang, Token: e.Token(), AID: b.Assignment.ID, Total: b.Len(),
	}))
}
