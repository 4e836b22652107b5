package handlers

import (
	"net/http"

	"pragmalab/store"
	"pragmalab/templates"
)

// contextStudyPage is a placeholder until context.go's admin page is written; delete this file then.
func (h *Handler) contextStudyPage(w http.ResponseWriter, r *http.Request, s *store.Study) {
	h.render(w, r, http.StatusNotImplemented, templates.ErrorPage("en", http.StatusNotImplemented, "This kind of study is not built yet."))
}

// importPassages is a placeholder until the IMPAQTS import is written.
func (h *Handler) importPassages(w http.ResponseWriter, r *http.Request, s *store.Study, name string, data []byte) {
	h.render(w, r, http.StatusNotImplemented, templates.ErrorPage("en", http.StatusNotImplemented, "Passage import is not built yet."))
}
