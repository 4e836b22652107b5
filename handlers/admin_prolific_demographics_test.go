package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/prolific/prolifictest"
)

// The Prolific page downloads the participants with Prolific's
// demographics, keeps them only when told, and the consent page states it
// when it does.
func TestProlificDemographicsDownloadAndKeep(t *testing.T) {
	e, fake := prolificPageEnv(t)
	if err := e.db.SetStudyState(context.Background(), e.study, domain.StateOpen, "test"); err != nil {
		t.Fatal(err)
	}
	fake.SetDemographics(prolifictest.PID(1), map[string]string{"Age": "29", "Language": "Italian"})
	a := e.admin()
	page := "/admin/studies/" + strconv.FormatInt(e.study, 10) + "/prolific"
	a.get(page)
	a.must("demographics-not-kept")
	a.must("plan-link")
	p := e.browser()
	p.get(e.entry("60ffffffffffffffffffffff", "sess-a"))
	p.must("landing")
	if p.has("consent-demographics") {
		t.Error("the consent page mentions demographics the study does not keep")
	}

	a.post(page+"/participants.csv", nil)
	if a.resp.StatusCode != http.StatusOK || !strings.HasPrefix(a.resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("download: %d %s\n%s", a.resp.StatusCode, a.resp.Header.Get("Content-Type"), a.body)
	}
	head := strings.SplitN(a.body, "\n", 2)[0]
	if !strings.Contains(head, "prolific_age") || !strings.Contains(head, "prolific_language") || !strings.Contains(a.body, prolifictest.PID(1)) || !strings.Contains(a.body, "Italian") {
		t.Errorf("export without the demographics:\n%s", a.body)
	}
	if n := e.kept(); n != 0 {
		t.Errorf("%d rows stored with keep off", n)
	}

	a.post(page+"/demographics", url.Values{"keep": {"yes"}})
	a.must("demographics-kept")
	p.get(e.entry("60fffffffffffffffffffffe", "sess-b"))
	p.must("consent-demographics")
	a.post(page+"/participants.csv", nil)
	if n := e.kept(); n == 0 {
		t.Error("nothing stored with keep on")
	}
	a.post(page+"/demographics", nil)
	a.must("demographics-not-kept")
	if n := e.kept(); n != 0 {
		t.Errorf("%d rows left after keep off", n)
	}

	// Prolific failing: the page says so, and no CSV comes.
	fake.Fail("POST demographic-export", http.StatusServiceUnavailable, "maintenance")
	a.post(page+"/participants.csv", nil)
	if a.resp.StatusCode != http.StatusBadRequest || strings.HasPrefix(a.resp.Header.Get("Content-Type"), "text/csv") || !strings.Contains(a.body, "nothing was exported") {
		t.Errorf("a 5xx gave %d %s:\n%s", a.resp.StatusCode, a.resp.Header.Get("Content-Type"), a.body)
	}
}

func TestProlificDemographicsRefusedToViewers(t *testing.T) {
	e, fake := prolificPageEnv(t)
	if _, err := e.db.CreateAdminWithRole(context.Background(), "watcher", "correct horse battery", domain.RoleViewer); err != nil {
		t.Fatal(err)
	}
	v := e.browser()
	v.post("/admin/login", url.Values{"username": {"watcher"}, "password": {"correct horse battery"}})
	page := "/admin/studies/" + strconv.FormatInt(e.study, 10) + "/prolific"
	v.get(page)
	if v.resp.StatusCode != http.StatusOK || v.has("demographics-download") || v.has("demographics-keep") {
		t.Errorf("a viewer sees the demographics forms (status %d)", v.resp.StatusCode)
	}
	v.post(page+"/participants.csv", nil)
	if v.resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer downloaded: %d", v.resp.StatusCode)
	}
	v.post(page+"/demographics", url.Values{"keep": {"yes"}})
	if v.resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer changed keep: %d", v.resp.StatusCode)
	}
	if keep, _ := e.db.KeepDemographics(context.Background(), e.study); keep || fake.Calls("POST demographic-export") != 0 {
		t.Errorf("a viewer's requests reached Prolific or the database")
	}
}

func (e *crowdEnv) kept() int {
	e.t.Helper()
	n, err := e.db.KeptDemographics(context.Background(), e.study)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}
