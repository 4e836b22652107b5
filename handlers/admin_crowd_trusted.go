package handlers

import (
	"net/http"

	"pragmalab/domain"
	"pragmalab/templates"
)

// SetCrowdTrusted handles POST
// /admin/studies/{study}/crowd/participants/{participant}/trusted: the
// form's trusted is "1" to mark the participant as one LLM-echo compares
// the others with (docs/statistics.md#llm-echo-against-a-reference), "0"
// to unmark.
func (h *Handler) SetCrowdTrusted(w http.ResponseWriter, r *http.Request) {
	s, _, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	pid, err := idParam(r, "participant")
	v := r.PostFormValue("trusted")
	if err == nil && v != "0" && v != "1" {
		err = domain.Errorf(domain.EINVALID, "trusted must be 1 or 0, got %q", v)
	}
	if err == nil {
		err = h.Store.SetCrowdTrusted(r.Context(), s.ID, pid, v == "1")
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if v == "1" {
		h.flash(w, r, "Marked as a trusted reference for LLM-echo.")
	} else {
		h.flash(w, r, "No longer a trusted reference for LLM-echo.")
	}
	redirect(w, r, templates.StudyURL(s.ID, ""))
}
