package handlers

import (
	"fmt"
	"net/http"
	"pragmalab/domain"

	"github.com/go-chi/chi/v5"

	"pragmalab/studies"
	"pragmalab/templates"
)

// PilotScope lets ?pilot=include on an admin page or download add the
// pilot answers to its rows; without it they are left out
// (docs/studies.md#pilots).
func (h *Handler) PilotScope(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("pilot") == "include" {
			r = r.WithContext(studies.IncludePilot(r.Context()))
		}
		next.ServeHTTP(w, r)
	})
}

// PilotEntry handles GET /p/{token}, a study's pilot link: the real
// participant or expert flow, in any state of the study, with everything
// stored marked as pilot. A crowd pilot link opens a new pilot session
// each time it is opened in a new browser.
func (h *Handler) PilotEntry(w http.ResponseWriter, r *http.Request) {
	v, err := h.Service.EnterPilot(r.Context(), chi.URLParam(r, "token"), func(studyID int64) string {
		return crowdToken(r, studyID)
	})
	if err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if domain.IsCrowdKind(v.Kind) {
		base := crowdBase(v.StudyID)
		if v.CrowdToken != "" {
			h.setCrowdCookie(w, v.StudyID, v.CrowdToken)
		}
		redirect(w, r, base+"/screen")
		return
	}
	redirect(w, r, "/e/"+v.Annotator)
}

// Pilot handles POST /admin/studies/{study}/pilot: action "new" makes a
// new pilot link (revoking the old one), "revoke" ends it, "wipe" deletes
// the pilot sessions and their answers.
func (h *Handler) Pilot(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	var msg string
	switch r.PostFormValue("action") {
	case "new":
		err = h.Service.NewPilotLink(r.Context(), s.ID)
		msg = "A new pilot link is ready; any earlier one no longer works."
	case "revoke":
		err = h.Store.RevokePilotLink(r.Context(), s.ID)
		msg = "The pilot link is revoked; the pilot answers are kept apart until you wipe them."
	case "wipe":
		var n int
		n, err = h.Store.WipePilot(r.Context(), s.ID)
		msg = fmt.Sprintf("Wiped the pilot sessions and their %d answers.", n)
	default:
		err = domain.Errorf(domain.EINVALID, "unknown pilot action")
	}
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.Log.Info("pilot", "study", s.ID, "action", r.PostFormValue("action"))
	h.flash(w, r, msg)
	redirect(w, r, templates.StudyURL(s.ID, ""))
}
