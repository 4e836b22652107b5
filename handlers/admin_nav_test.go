package handlers_test

import (
	"context"
	"fmt"
	"net/url"
	"pragmalab/domain"
	"strings"
	"testing"
)

// TestMetricsInNavigation: an owner finds the metrics page in the admin
// navigation of every admin page and the link opens it; a viewer, whom
// the page refuses, is not shown the link.
func TestMetricsInNavigation(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	a := e.admin()
	for _, path := range []string{"/admin/", "/admin/accounts", fmt.Sprintf("/admin/studies/%d", e.study)} {
		a.get(path)
		if !strings.Contains(a.body, `<a href="/admin/metrics" data-testid="nav-metrics">`) {
			t.Errorf("%s: no link to the metrics page in the navigation\n%.600s", path, a.body)
		}
	}
	a.get("/admin/metrics")
	if !a.has("metric-answers") {
		t.Fatalf("the linked metrics page: status %d", a.resp.StatusCode)
	}
	if _, err := e.db.CreateAdminWithRole(context.Background(), "watcher", "correct horse battery", domain.RoleViewer); err != nil {
		t.Fatal(err)
	}
	v := e.browser()
	v.post("/admin/login", url.Values{"username": {"watcher"}, "password": {"correct horse battery"}})
	v.get("/admin/")
	if !v.has("studies") || v.has("nav-metrics") {
		t.Errorf("a viewer's dashboard: status %d, metrics link shown: %v", v.resp.StatusCode, v.has("nav-metrics"))
	}
}
