package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Healthz handles GET /healthz, the platform's health check: "ok", or
// "degraded" with the reason when writes find the disk full (answered 503
// until one commits again), or when the database's replica lags past its
// threshold or fails (docs/deploy.md#monitoring). A degraded server still
// serves, so the answer stays 200: a health check that restarted the
// machine would interrupt participants and replicate nothing sooner. The
// X-Pragmalab-Health header carries the verdict for monitors.
func (h *Handler) Healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	rep := h.Service.Replication()
	since, full := h.Store.DiskFull()
	if !rep.Degraded() && !full {
		w.Header().Set("X-Pragmalab-Health", "ok")
		w.Write([]byte("ok\n"))
		return
	}
	w.Header().Set("X-Pragmalab-Health", "degraded")
	var reasons []string
	if full {
		reasons = append(reasons, fmt.Sprintf("the disk is full: writes are refused with 503 since %s", since.Format(time.RFC3339)))
	}
	if rep.Degraded() {
		reason := fmt.Sprintf("replication lag %s (threshold %s)", rep.Lag.Round(time.Second), rep.MaxLag)
		if rep.Error != "" {
			// The page is public: the error itself (which names the replica)
			// is for the owners' metrics page.
			reason = "replication failing, see /admin/metrics; " + reason
		}
		reasons = append(reasons, reason)
	}
	fmt.Fprintf(w, "degraded, still serving: %s\n", strings.Join(reasons, "; "))
}
