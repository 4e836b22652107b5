package handlers

import "net/http"

// ProlificPlanPage handles GET /admin/studies/{study}/prolific/plan.
func (h *Handler) ProlificPlanPage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	h.renderProlific(w, r, s, p, http.StatusOK, "")
}
