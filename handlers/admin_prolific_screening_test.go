package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
	"pragmalab/web"
)

// prolificPageEnv serves prolifictest's crowd study, in Italian, linked to
// a fake Prolific.
func prolificPageEnv(t *testing.T) (*crowdEnv, *prolifictest.Server) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "prolific.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const psid = "64eeeeeeeeeeeeeeeeeeeeee"
	cs, err := prolifictest.SeedCrowdStudy(ctx, db, psid)
	if err != nil {
		t.Fatal(err)
	}
	cs.Lang = "it"
	if err := db.UpdateStudy(ctx, cs); err != nil {
		t.Fatal(err)
	}
	fake := prolifictest.NewServer("page-test-token-0123456789")
	t.Cleanup(fake.Close)
	fake.AddFixtureSubmissions(psid)
	if err := db.LinkProlific(ctx, cs.ID, psid); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{prolific.TokenEnv: fake.Token, prolific.APIEnv: fake.URL}
	s, err := web.New(ctx, web.Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1, Getenv: func(k string) string { return vars[k] }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &crowdEnv{t: t, db: db, srv: srv, web: s, study: cs.ID}, fake
}

func TestProlificPageScreeningCountAndReturn(t *testing.T) {
	e, fake := prolificPageEnv(t)
	a := e.admin()
	page := "/admin/studies/" + strconv.FormatInt(e.study, 10) + "/prolific"
	a.get(page)
	a.must("screening-none")
	a.must("screening-proposed")
	if !strings.Contains(a.body, `value="first-language=Italian"`) {
		t.Errorf("the Italian study does not propose Italian first language:\n%s", a.body)
	}
	a.post(page+"/screening", url.Values{"add": {"first-langage=Italian"}})
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "did you mean first-language") {
		t.Errorf("unknown filter: %d", a.resp.StatusCode)
	}
	a.post(page+"/screening", url.Values{"add": {"first-language=Italian ; first-language = German"}, "range": {"age=18:20"}})
	if !strings.Contains(a.body, "first-language=Italian,German") {
		t.Errorf("two changes in one field:\n%s", a.body)
	}
	a.post(page+"/screening", url.Values{"remove": {"first-language"}})
	a.post(page+"/screening", url.Values{"add": {"first-language=Italian"}, "range": {"age=18:20"}})
	a.must("screening-filters")
	if !strings.Contains(a.body, "first-language=Italian") || a.has("screening-proposed") {
		t.Errorf("after saving:\n%s", a.body)
	}
	a.post(page+"/eligible", nil)
	if !strings.Contains(a.body, "Eligible participants on Prolific: fewer than 25") {
		t.Errorf("count not shown:\n%s", a.body)
	}
	// The page keeps the count and warns before publishing, until the
	// screening changes.
	a.get(page)
	a.must("screening-eligible")
	a.must("screening-warning")
	a.post(page+"/screening", url.Values{"remove": {"age"}})
	if a.has("screening-eligible") || a.has("screening-warning") {
		t.Errorf("a count of another screening is still shown:\n%s", a.body)
	}
	a.post(page+"/sync", nil)
	a.post(page+"/return", url.Values{"pid": {prolifictest.PID(1)}, "reason": {"Encountered technical problems"}})
	if a.resp.StatusCode != http.StatusBadRequest || fake.ReturnRequests("sub1") != 0 {
		t.Errorf("sent without the confirmation box: %d", a.resp.StatusCode)
	}
	a.post(page+"/return", url.Values{"pid": {prolifictest.PID(1)}, "reason": {"Encountered technical problems"}, "confirm": {"yes"}})
	if a.resp.StatusCode != http.StatusOK || fake.ReturnRequests("sub1") != 1 {
		t.Errorf("return: %d, %d requests", a.resp.StatusCode, fake.ReturnRequests("sub1"))
	}
	a.get(page + "/reject?pid=" + prolifictest.PID(2))
	a.must("return-send")
}

func TestProlificScreeningRefusedToViewers(t *testing.T) {
	e, fake := prolificPageEnv(t)
	if _, err := e.db.CreateAdminWithRole(context.Background(), "watcher", "correct horse battery", domain.RoleViewer); err != nil {
		t.Fatal(err)
	}
	v := e.browser()
	v.post("/admin/login", url.Values{"username": {"watcher"}, "password": {"correct horse battery"}})
	page := "/admin/studies/" + strconv.FormatInt(e.study, 10) + "/prolific"
	v.get(page)
	if v.resp.StatusCode != http.StatusOK || v.has("screening-save") || v.has("screening-count") {
		t.Errorf("a viewer sees the screening form (status %d)", v.resp.StatusCode)
	}
	v.post(page+"/screening", url.Values{"add": {"first-language=Italian"}})
	if v.resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer saved the screening: %d", v.resp.StatusCode)
	}
	v.post(page+"/eligible", nil)
	v.post(page+"/return", url.Values{"pid": {prolifictest.PID(1)}, "reason": {"x"}, "confirm": {"yes"}})
	if v.resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer asked for a return: %d", v.resp.StatusCode)
	}
	if sc, _ := e.db.ProlificScreening(context.Background(), e.study); len(sc) != 0 || fake.Calls("POST eligibility-count") != 0 || fake.ReturnRequests("sub1") != 0 {
		t.Errorf("a viewer's requests reached Prolific or the database: %+v, %d counts", sc, fake.Calls("POST eligibility-count"))
	}
}

func TestProlificInboxPageAndTestParticipant(t *testing.T) {
	e, fake := prolificPageEnv(t)
	a := e.admin()
	page := "/admin/studies/" + strconv.FormatInt(e.study, 10) + "/prolific"
	a.post(page+"/sync", nil)
	fake.AddInbound(prolifictest.PID(1), "64eeeeeeeeeeeeeeeeeeeeee", "Old question", time.Now().Add(-time.Hour), false)
	fake.AddInbound(prolifictest.PID(2), "64eeeeeeeeeeeeeeeeeeeeee", "Did my answers save?", time.Now().Add(-2*time.Hour), true)
	a.get(page)
	a.must("inbox-link")
	a.get(page + "/inbox")
	a.must("inbox-unread")
	if strings.Index(a.body, "Did my answers save?") > strings.Index(a.body, "Old question") || !strings.Contains(a.body, "/prolific/message/preview") {
		t.Errorf("unread not first, or no reply form:\n%s", a.body)
	}
	a.post(page+"/test-participant", url.Values{"email": {"me@lab.example"}, "confirm": {"yes"}})
	a.must("test-participant-id")
	if len(fake.TestParticipants()) != 1 {
		t.Errorf("test participants %v", fake.TestParticipants())
	}

	if _, err := e.db.CreateAdminWithRole(context.Background(), "watcher", "correct horse battery", domain.RoleViewer); err != nil {
		t.Fatal(err)
	}
	v := e.browser()
	v.post("/admin/login", url.Values{"username": {"watcher"}, "password": {"correct horse battery"}})
	v.get(page + "/inbox")
	if v.resp.StatusCode != http.StatusOK || v.has("test-participant-create") || strings.Contains(v.body, "/prolific/message/preview") {
		t.Errorf("a viewer sees forms on the inbox (status %d)", v.resp.StatusCode)
	}
	v.post(page+"/test-participant", url.Values{"email": {"other@lab.example"}, "confirm": {"yes"}})
	if v.resp.StatusCode != http.StatusForbidden || len(fake.TestParticipants()) != 1 {
		t.Errorf("a viewer created a test participant: %d", v.resp.StatusCode)
	}
}
