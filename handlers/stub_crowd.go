package handlers

import (
	"net/http"

	"pragmalab/store"
	"pragmalab/templates"
)

// crowdStudyPage is a placeholder until crowd.go's admin page is written; delete this file then.
func (h *Handler) crowdStudyPage(w http.ResponseWriter, r *http.Request, s *store.Study) {
	h.render(w, r, http.StatusNotImplemented, templates.ErrorPage("en", http.StatusNotImplemented, "This kind of study is not built yet."))
}
