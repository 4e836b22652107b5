package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
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
	var pages int
	if err := e.db.Writer().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Writer().Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile("../cli/demo/items.jsonl")
	var big bytes.Buffer
	for i := range 40 {
		big.Write(bytes.ReplaceAll(data, []byte(`"id":"`), []byte(fmt.Sprintf(`"id":"%d-`, i))))
	}
	owner.upload(fmt.Sprintf("/admin/studies/%d/items", studies[0].ID), "file", "items.jsonl", big.Bytes()).
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
