package handlers

import (
	"net/http"
	"net/http/pprof"

	"pragmalab/templates"
)

// OwnerOnly guards the operator's pages (metrics, profiles). Every admin
// is an owner today; the owner/viewer roles add their check here, and the
// routes behind it need no change.
func (h *Handler) OwnerOnly(next http.Handler) http.Handler {
	return next
}

// MetricsPage handles GET /admin/metrics: answers per second, the write
// queue's waits, the database's size and the open participants.
func (h *Handler) MetricsPage(w http.ResponseWriter, r *http.Request) {
	m, err := h.DB.Metrics(r.Context())
	if err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Refresh", "10")
	h.render(w, r, http.StatusOK, templates.Metrics(templates.MetricsView{Nav: h.nav(w, r, nil), M: m}))
}

// Pprof serves Go's profiles under /admin/debug/pprof/ (index, cmdline,
// profile, symbol, trace, and the named profiles: heap, goroutine, …).
// net/http/pprof also registers itself on http.DefaultServeMux, which
// pragmalab never serves.
func (h *Handler) Pprof() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return http.StripPrefix("/admin", mux)
}
