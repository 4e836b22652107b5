package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"strconv"
	"strings"
	"testing"
)

// TestMetricsPage: the operator's metrics page counts the answers just
// given and the open participant, and is for logged-in admins only.
func TestMetricsPage(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	p := e.browser()
	p.get(e.entry(pidN(1), "s1"))
	p.post(e.base()+"/consent", nil)
	p.training()
	for range 3 {
		p.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(p.position())}, "rating": {"5"}})
	}
	anon := e.browser().get("/admin/metrics")
	if anon.has("metric-answers") || !anon.has("login-form") {
		t.Fatalf("metrics without login: status %d\n%s", anon.resp.StatusCode, anon.body)
	}
	a := e.admin()
	a.get("/admin/metrics")
	if a.resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics: status %d\n%s", a.resp.StatusCode, a.body)
	}
	for id, want := range map[string]string{
		"metric-answers": ">3 (0.1/s)<",
		"metric-open":    ">1 (1)<",
		"metric-writes":  ">11<", // entry, consent, 6 training answers, 3 answers
	} {
		i := strings.Index(a.body, `data-testid="`+id+`"`)
		if i < 0 || !strings.Contains(a.body[i:min(len(a.body), i+200)], want) {
			t.Errorf("%s: want %q in\n%s", id, want, a.body[max(0, i):min(len(a.body), max(0, i)+200)])
		}
	}
	if !a.has("metric-wait") || !a.has("metric-size") || strings.Contains(a.body, `data-testid="metric-size">0.0 MB`) {
		t.Fatalf("metrics page without the queue wait or the database size:\n%s", a.body)
	}
}

// TestPprofBehindLogin: Go's profiles are served under /admin/debug/pprof/
// to a logged-in admin, and to nobody else.
func TestPprofBehindLogin(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	for _, path := range []string{"/admin/debug/pprof/", "/admin/debug/pprof/goroutine?debug=1", "/admin/debug/pprof/cmdline"} {
		anon := e.browser().get(path)
		if strings.Contains(anon.body, "goroutine profile") || strings.Contains(anon.body, "Types of profiles") || !anon.has("login-form") {
			t.Fatalf("%s without login: status %d\n%.300s", path, anon.resp.StatusCode, anon.body)
		}
	}
	a := e.admin()
	for path, want := range map[string]string{
		"/admin/debug/pprof/":                  "Types of profiles available",
		"/admin/debug/pprof/goroutine?debug=1": "goroutine profile: total",
		"/admin/debug/pprof/heap?debug=1":      "heap profile:",
	} {
		a.get(path)
		if a.resp.StatusCode != http.StatusOK || !strings.Contains(a.body, want) {
			t.Errorf("%s: status %d, want %q in\n%.300s", path, a.resp.StatusCode, want, a.body)
		}
	}
	a.get("/admin/debug/pprof/profile?seconds=1")
	if a.resp.StatusCode != http.StatusOK || a.resp.Header.Get("Content-Type") != "application/octet-stream" || len(a.body) == 0 {
		t.Fatalf("CPU profile: status %d, type %q, %d bytes", a.resp.StatusCode, a.resp.Header.Get("Content-Type"), len(a.body))
	}
}

// TestOperatorPagesOwnerOnly: a viewer, who may read every study, is
// refused the metrics and the profiles.
func TestOperatorPagesOwnerOnly(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	if _, err := e.db.CreateAdminWithRole(context.Background(), "watcher", "correct horse battery", domain.RoleViewer); err != nil {
		t.Fatal(err)
	}
	v := e.browser()
	v.post("/admin/login", url.Values{"username": {"watcher"}, "password": {"correct horse battery"}})
	v.get("/admin/")
	if v.resp.StatusCode != http.StatusOK {
		t.Fatalf("viewer's study list: status %d", v.resp.StatusCode)
	}
	for _, path := range []string{"/admin/metrics", "/admin/debug/pprof/", "/admin/debug/pprof/goroutine?debug=1"} {
		v.get(path)
		if v.resp.StatusCode != http.StatusForbidden || v.has("metric-answers") || strings.Contains(v.body, "goroutine profile") {
			t.Errorf("%s as a viewer: status %d\n%.300s", path, v.resp.StatusCode, v.body)
		}
	}
}
