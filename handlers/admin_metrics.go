package handlers

import (
	"net/http"
	"net/http/pprof"
	"pragmalab/domain"

	"pragmalab/templates"
)

// OwnerOnly lets only owners through, reading as well as changing: the
// operator's pages (metrics, Go's profiles) show the server's insides —
// its command line, memory and goroutines — which viewers have no need
// to see.
func (h *Handler) OwnerOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !CurrentAdmin(r.Context()).CanChange() {
			h.Error(w, r, domain.Errorf(domain.EFORBIDDEN, "This page is for owners of the platform."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// MetricsPage handles GET /admin/metrics: answers per second, the write
// queue's waits, the database's size and the open participants.
func (h *Handler) MetricsPage(w http.ResponseWriter, r *http.Request) {
	m, err := h.Service.Metrics(r.Context())
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
