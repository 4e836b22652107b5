package web

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"pragmalab/domain"
	"strings"
	"testing"

	"pragmalab/store"
)

// testEnv is a running server on a fresh database.
type testEnv struct {
	t      *testing.T
	db     *store.DB
	srv    *httptest.Server
	server *Server
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	return newTestEnvWith(t, func(string) string { return "" })
}

// newTestEnvWith is newTestEnv with the server's environment variables.
func newTestEnvWith(t *testing.T, getenv func(string) string) *testEnv {
	t.Helper()
	return newTestEnvConfig(t, func(c *Config) { c.Getenv = getenv })
}

// newTestEnvConfig is newTestEnv with the server's Config changed by set.
func newTestEnvConfig(t *testing.T, set func(*Config)) *testEnv {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Getenv: func(string) string { return "" }}
	if set != nil {
		set(&cfg)
	}
	s, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return &testEnv{t: t, db: db, srv: ts, server: s}
}

// client is a browser: a cookie jar, and redirects not followed so tests
// see where each post leads.
type client struct {
	env *testEnv
	hc  *http.Client
}

func (e *testEnv) newClient() *client {
	jar, _ := cookiejar.New(nil)
	return &client{env: e, hc: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// adminClient creates an admin (an owner) and logs in.
func (e *testEnv) adminClient() *client {
	e.t.Helper()
	return e.accountClient("researcher", domain.RoleOwner)
}

// accountClient creates an admin with the role and logs in.
func (e *testEnv) accountClient(username, role string) *client {
	e.t.Helper()
	if _, err := e.db.CreateAdminWithRole(context.Background(), username, "correct horse battery", role); err != nil {
		e.t.Fatal(err)
	}
	c := e.newClient()
	resp := c.post("/admin/login", url.Values{"username": {username}, "password": {"correct horse battery"}})
	if resp.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("login: status %d", resp.StatusCode)
	}
	return c
}

type page struct {
	*http.Response
	Body string
}

func (c *client) do(req *http.Request) page {
	c.env.t.Helper()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.env.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{resp, string(b)}
}

func (c *client) get(path string) page {
	c.env.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.env.srv.URL+path, nil)
	return c.do(req)
}

// post sends a same-origin form post, as a browser would.
func (c *client) post(path string, form url.Values) page {
	c.env.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.env.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.env.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.do(req)
}

// upload posts one file as a multipart form.
func (c *client) upload(path, field, filename string, data []byte) page {
	c.env.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile(field, filename)
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, c.env.srv.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", c.env.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.do(req)
}

// location is where a redirect points, as a path.
func (p page) location() string {
	u, _ := url.Parse(p.Header.Get("Location"))
	if u == nil {
		return ""
	}
	if u.RawQuery != "" {
		return u.Path + "?" + u.RawQuery
	}
	return u.Path
}

func (p page) mustStatus(t *testing.T, want int) page {
	t.Helper()
	if p.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d\n%s", p.Request.Method, p.Request.URL.Path, p.StatusCode, want, short(p.Body))
	}
	return p
}

func (p page) mustContain(t *testing.T, subs ...string) page {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(p.Body, s) {
			t.Fatalf("%s %s: page lacks %q\n%s", p.Request.Method, p.Request.URL.Path, s, short(p.Body))
		}
	}
	return p
}

// short cuts a page for a failure message, keeping its main part.
func short(body string) string {
	if i := strings.Index(body, "<main"); i >= 0 {
		body = body[i:]
	}
	if len(body) > 3000 {
		body = body[:3000] + "…"
	}
	return body
}

// openStudy opens a study through its admin page, as the researcher does:
// the go-live checklist must pass.
func (c *client) openStudy(t *testing.T, studyPath string) {
	t.Helper()
	c.post(studyPath+"/state", url.Values{"state": {domain.StateOpen}}).mustStatus(t, http.StatusSeeOther)
}
