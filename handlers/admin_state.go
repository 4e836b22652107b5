package handlers

import (
	"fmt"
	"net/http"
	"pragmalab/domain"

	"pragmalab/templates"
)

// studyNav is the admin header of a study's own page, with its state panel:
// the state, the go-live checklist and the changes of state.
func (h *Handler) studyNav(w http.ResponseWriter, r *http.Request, s *domain.Study) templates.Nav {
	n := h.nav(w, r, s)
	v := templates.StudyStateView{StudyID: s.ID, State: s.State}
	st, err := h.Service.StudyState(r.Context(), s)
	v.Missing, v.Changes, v.Pilot = st.Missing, st.Changes, st.Pilot
	if st.PilotToken != "" {
		v.PilotURL = baseURL(r) + "/p/" + st.PilotToken
	}
	if err != nil {
		h.Log.Error("study state panel", "study", s.ID, "err", err)
		n.Error = "The study's state could not be read."
	}
	n.State = &v
	return n
}

// SetStudyState handles POST /admin/studies/{study}/state: open (through
// the go-live checklist, refused with the list of what is missing), pause,
// close or back to draft.
func (h *Handler) SetStudyState(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	state := r.PostFormValue("state")
	if err := h.Service.SetStudyState(r.Context(), s, state, actor(r)); err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.Log.Info("study state", "study", s.ID, "state", state, "admin", actor(r))
	h.flash(w, r, fmt.Sprintf("The study is now %s.", state))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// studyUnavailable answers a participant or expert of a study that is not
// open with the page of its state, in the study's language.
func (h *Handler) studyUnavailable(w http.ResponseWriter, r *http.Request, s *domain.Study) {
	status := http.StatusForbidden
	if s.State == domain.StatePaused {
		status = http.StatusServiceUnavailable
	}
	h.render(w, r, status, templates.StudyUnavailable(s.Lang, s.State, domain.IsCrowdKind(s.Kind)))
}
