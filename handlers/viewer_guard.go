package handlers

import (
	"net/http"

	"pragmalab/domain"
)

// NoViewerAnswers refuses any answer (anything but GET and HEAD) sent to a
// participant's pages by a browser logged in as a viewer: a viewer reads
// and changes nothing, and that holds on the participants' side too, even
// for a link learnt elsewhere (docs/deploy.md#security). A browser without
// an admin session, or with an owner's, is not affected.
func (h *Handler) NoViewerAnswers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		if _, err := r.Cookie(adminSession); err == nil {
			sess, _ := h.Sessions.Get(r, adminSession)
			token, _ := sess.Values["token"].(string)
			if a, err := h.Store.SessionAdmin(r.Context(), token); err == nil && !a.CanChange() {
				h.Error(w, r, domain.Errorf(domain.EFORBIDDEN, "This browser is logged in as a viewer account, which changes nothing, participants' answers included. Log out (or use another browser) to answer."))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
