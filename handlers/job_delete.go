package handlers

import (
	"fmt"
	"net/http"

	"pragmalab/templates"
)

// DeleteJob handles POST /admin/studies/{study}/jobs/{job}/delete: a job
// that is not running goes, with its prompts and answers.
func (h *Handler) DeleteJob(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyForm(w, r)
	if !ok {
		return
	}
	id, err := idParam(r, "job")
	if err == nil {
		err = h.Store.DeleteJob(r.Context(), s.ID, id)
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.Log.Info("job deleted", "study", s.ID, "job", id)
	auditf(r, "job #%d deleted", id)
	h.flash(w, r, fmt.Sprintf("Job %d deleted.", id))
	redirect(w, r, templates.StudyURL(s.ID, "/jobs"))
}
