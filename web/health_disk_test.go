package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestHealthzDegradedWhenDiskFull (docs/deploy.md#monitoring): while writes are
// answered 503 for lack of space, /healthz says degraded and why, as it
// does for a lagging replica; the first write that commits again clears it.
func TestHealthzDegradedWhenDiskFull(t *testing.T) {
	e := newTestEnv(t)
	owner := e.adminClient()
	owner.post("/admin/studies", url.Values{"name": {"Validation"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther)
	studies, _ := e.db.Studies(context.Background())
	if h := e.newClient().get("/healthz"); h.Header.Get("X-Pragmalab-Health") != "ok" {
		t.Fatalf("/healthz before: %q", h.Body)
	}
	big := fillDisk(t, e)
	owner.upload(fmt.Sprintf("/admin/studies/%d/items", studies[0].ID), "file", "items.jsonl", big).
		mustStatus(t, http.StatusServiceUnavailable)
	h := e.newClient().get("/healthz")
	if h.StatusCode != http.StatusOK || h.Header.Get("X-Pragmalab-Health") != "degraded" || !strings.Contains(string(h.Body), "disk is full") {
		t.Fatalf("/healthz with a full disk: %d %q %q", h.StatusCode, h.Header.Get("X-Pragmalab-Health"), h.Body)
	}
	// Room again: the next write commits and the verdict is ok.
	if _, err := e.db.Writer().Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	owner.post("/admin/studies", url.Values{"name": {"After"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther)
	if h := e.newClient().get("/healthz"); h.Header.Get("X-Pragmalab-Health") != "ok" {
		t.Fatalf("/healthz after a write committed: %q", h.Body)
	}
}
