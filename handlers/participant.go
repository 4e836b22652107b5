package handlers

import (
	"net/http"

	"pragmalab/templates"
)

// ParticipantPages is the middleware of the participant areas (/e, /s,
// /c, /x): each request carries a pilot mark, which the area's opener sets
// for a pilot's session, so every page of a pilot link shows the pilot
// banner (docs/studies.md#pilots).
func (h *Handler) ParticipantPages(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(templates.WithPilotMark(r.Context())))
	})
}
