package handlers

import (
	"fmt"
	"net/http"
	"time"
)

// Healthz handles GET /healthz, the platform's health check: "ok", or
// "degraded" with the reason when the database's replica lags past its
// threshold or fails (docs/deploy.md#monitoring). A degraded server still
// serves, so the answer stays 200: a health check that restarted the
// machine would interrupt participants and replicate nothing sooner. The
// X-Pragmalab-Health header carries the verdict for monitors.
func (h *Handler) Healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	rep := h.Service.Replication()
	if !rep.Degraded() {
		w.Header().Set("X-Pragmalab-Health", "ok")
		w.Write([]byte("ok\n"))
		return
	}
	w.Header().Set("X-Pragmalab-Health", "degraded")
	reason := fmt.Sprintf("replication lag %s (threshold %s)", rep.Lag.Round(time.Second), rep.MaxLag)
	if rep.Error != "" {
		// The page is public: the error itself (which names the replica)
		// is for the owners' metrics page.
		reason = "replication failing, see /admin/metrics; " + reason
	}
	fmt.Fprintf(w, "degraded, still serving: %s\n", reason)
}
