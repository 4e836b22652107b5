package handlers

import (
	"net/http"

	"pragmalab/store"
	"pragmalab/templates"
)

// explainStudyPage is a placeholder until explain.go's admin page is written; delete this file then.
func (h *Handler) explainStudyPage(w http.ResponseWriter, r *http.Request, s *store.Study) {
	h.render(w, r, http.StatusNotImplemented, templates.ErrorPage("en", http.StatusNotImplemented, "This kind of study is not built yet."))
}
