package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"pragmalab/domain"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// login posts a login form from a fresh client with extra headers.
func (e *testEnv) tryLogin(username, password string, header http.Header) page {
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/admin/login",
		strings.NewReader(url.Values{"username": {username}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, vs := range header {
		req.Header[k] = vs
	}
	return e.newClient().do(req)
}

// TestLoginLimitHoldsInParallel: 200 wrong passwords sent at once from one
// address are checked at most as often as the limit allows; the others
// get 429 with Retry-After without bcrypt being run for them.
func TestLoginLimitHoldsInParallel(t *testing.T) {
	e := newTestEnv(t)
	if _, err := e.db.CreateAdmin(context.Background(), "researcher", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	var checked, refused, other atomic.Int32
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := e.tryLogin("researcher", fmt.Sprintf("wrong guess %d", i), nil)
			switch p.StatusCode {
			case http.StatusUnauthorized:
				checked.Add(1)
			case http.StatusTooManyRequests:
				if p.Header.Get("Retry-After") == "" {
					t.Error("429 without Retry-After")
				}
				refused.Add(1)
			default:
				other.Add(1)
			}
		}()
	}
	wg.Wait()
	if checked.Load() > 10 || other.Load() > 0 || refused.Load() < 190 {
		t.Fatalf("of 200 parallel wrong logins %d were checked (limit 10), %d refused, %d other", checked.Load(), refused.Load(), other.Load())
	}
	// The right password is refused too while the account is locked.
	e.tryLogin("researcher", "correct horse battery", nil).mustStatus(t, http.StatusTooManyRequests)
}

// TestLoginLimitPerAccount: guesses at one account from many addresses
// (behind a trusted proxy) are limited too, and other accounts still log in.
func TestLoginLimitPerAccount(t *testing.T) {
	e := newTestEnvConfig(t, func(c *Config) { c.TrustedProxyHeader = "Fly-Client-IP" })
	ctx := context.Background()
	e.db.CreateAdmin(ctx, "researcher", "correct horse battery")
	e.db.CreateAdmin(ctx, "colleague", "another good password")
	for i := range 10 {
		e.tryLogin("researcher", "wrong", http.Header{"Fly-Client-IP": {fmt.Sprintf("203.0.113.%d", i+1)}}).mustStatus(t, http.StatusUnauthorized)
	}
	e.tryLogin("researcher", "wrong", http.Header{"Fly-Client-IP": {"198.51.100.7"}}).mustStatus(t, http.StatusTooManyRequests)
	e.tryLogin("colleague", "another good password", http.Header{"Fly-Client-IP": {"198.51.100.7"}}).mustStatus(t, http.StatusSeeOther)
}

// TestClientAddressFromTrustedHeaderOnly: without a configured header a
// client cannot escape the limit by sending Fly-Client-IP; with it, one
// client's failures do not lock out another behind the same proxy.
func TestClientAddressFromTrustedHeaderOnly(t *testing.T) {
	t.Run("not configured", func(t *testing.T) {
		e := newTestEnv(t)
		e.db.CreateAdmin(context.Background(), "researcher", "correct horse battery")
		for i := range 10 {
			// a different username each time, so only the client limit counts
			e.tryLogin(fmt.Sprintf("guess%d", i), "wrong", http.Header{"Fly-Client-IP": {fmt.Sprintf("203.0.113.%d", i+1)}}).mustStatus(t, http.StatusUnauthorized)
		}
		e.tryLogin("researcher", "correct horse battery", http.Header{"Fly-Client-IP": {"198.51.100.7"}}).mustStatus(t, http.StatusTooManyRequests)
	})
	t.Run("Fly-Client-IP", func(t *testing.T) {
		e := newTestEnvConfig(t, func(c *Config) { c.TrustedProxyHeader = "Fly-Client-IP" })
		e.db.CreateAdmin(context.Background(), "researcher", "correct horse battery")
		attacker := http.Header{"Fly-Client-IP": {"203.0.113.9"}}
		for i := range 10 {
			e.tryLogin(fmt.Sprintf("guess%d", i), "wrong", attacker).mustStatus(t, http.StatusUnauthorized)
		}
		e.tryLogin("guess", "wrong", attacker).mustStatus(t, http.StatusTooManyRequests)
		e.tryLogin("researcher", "correct horse battery", http.Header{"Fly-Client-IP": {"198.51.100.7"}}).mustStatus(t, http.StatusSeeOther)
	})
}

// cookieHeader is the Cookie header the client's jar sends to the server.
func (c *client) cookieHeader() string {
	u, _ := url.Parse(c.env.srv.URL)
	var parts []string
	for _, ck := range c.hc.Jar.Cookies(u) {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	return strings.Join(parts, "; ")
}

// replay sends GET /admin with a stolen Cookie header from a fresh client.
func (e *testEnv) replay(cookie string) page {
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/admin", nil)
	req.Header.Set("Cookie", cookie)
	return e.newClient().do(req)
}

func TestLogoutEndsTheSessionOnTheServer(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	stolen := admin.cookieHeader()
	e.replay(stolen).mustStatus(t, http.StatusOK)
	admin.post("/admin/logout", nil).mustStatus(t, http.StatusSeeOther)
	if p := e.replay(stolen); p.StatusCode != http.StatusSeeOther || !strings.HasPrefix(p.location(), "/admin/login") {
		t.Fatalf("a cookie replayed after logout: status %d, location %q", p.StatusCode, p.location())
	}
}

func TestPasswordResetEndsEverySession(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	other := e.newClient()
	other.post("/admin/login", url.Values{"username": {"researcher"}, "password": {"correct horse battery"}}).mustStatus(t, http.StatusSeeOther)
	other.get("/admin").mustStatus(t, http.StatusOK)
	if err := e.db.SetPassword(context.Background(), "researcher", "a brand new password"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*client{admin, other} {
		c.get("/admin").mustStatus(t, http.StatusSeeOther)
	}
}

// testClock is a clock the test moves; safe for the server's goroutines.
type testClock struct{ ns atomic.Int64 }

func (c *testClock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func TestSessionLifetimesEnforcedByTheServer(t *testing.T) {
	e := newTestEnv(t)
	clk := &testClock{}
	clk.ns.Store(time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC).UnixNano())
	e.db.Now = clk.now
	admin := e.adminClient()

	// Used every 100 minutes, the session lives until 12 h after login.
	for elapsed := 100 * time.Minute; elapsed < 12*time.Hour; elapsed += 100 * time.Minute {
		clk.advance(100 * time.Minute)
		admin.get("/admin").mustStatus(t, http.StatusOK)
	}
	clk.advance(12*time.Hour - 7*100*time.Minute)
	admin.get("/admin").mustStatus(t, http.StatusSeeOther)

	// Unused for 2 hours, a session ends.
	admin = e.newClient()
	admin.post("/admin/login", url.Values{"username": {"researcher"}, "password": {"correct horse battery"}}).mustStatus(t, http.StatusSeeOther)
	clk.advance(119 * time.Minute)
	admin.get("/admin").mustStatus(t, http.StatusOK)
	clk.advance(2 * time.Hour)
	admin.get("/admin").mustStatus(t, http.StatusSeeOther)
}

// TestViewerChangesNothing posts, as a viewer, to every state-changing
// route of the admin area (found by walking the router, so a new route is
// covered without being listed here): each is refused with 403, while the
// viewer reads the same study's pages and exports.
func TestViewerChangesNothing(t *testing.T) {
	e := newTestEnv(t)
	owner := e.adminClient()
	s, _ := expertStudy(t, e, owner)
	viewer := e.accountClient("reader", domain.RoleViewer)
	before, _ := e.db.AuditLog(context.Background(), s.ID, 0)

	n := 0
	err := chi.Walk(e.server.router.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method == http.MethodGet || method == http.MethodHead || !strings.HasPrefix(route, "/admin/") || route == "/admin/login" || route == "/admin/logout" {
			return nil
		}
		path := route
		for _, p := range []string{"{study}", "{item}", "{round}", "{participant}", "{annotator}", "{job}", "{admin}", "{upload}", "{rule}"} {
			path = strings.ReplaceAll(path, p, "1")
		}
		if strings.Contains(path, "{") {
			t.Errorf("route %s: unknown parameter", route)
			return nil
		}
		n++
		p := viewer.post(path, url.Values{"name": {"x"}, "role": {"owner"}, "check": {"low"}})
		if p.StatusCode != http.StatusForbidden || !strings.Contains(p.Body, "viewer") {
			t.Errorf("viewer %s %s: status %d, want 403", method, path, p.StatusCode)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 25 {
		t.Fatalf("only %d state-changing admin routes found", n)
	}
	after, _ := e.db.AuditLog(context.Background(), s.ID, 0)
	if len(after) != len(before) {
		t.Errorf("refused posts were logged: %d entries, want %d", len(after), len(before))
	}
	admins, _ := e.db.Admins(context.Background())
	for _, a := range admins {
		if a.Username == "reader" && a.Role != domain.RoleViewer {
			t.Errorf("the viewer made itself %s", a.Role)
		}
	}
	path := fmt.Sprintf("/admin/studies/%d", s.ID)
	viewer.get(path).mustStatus(t, http.StatusOK).mustContain(t, "viewer, read only")
	viewer.get(path+"/export/judgements.csv").mustStatus(t, http.StatusOK)
	viewer.get(path+"/export/audit.csv").mustStatus(t, http.StatusOK)
	viewer.get("/admin/accounts").mustStatus(t, http.StatusOK).mustContain(t, `data-testid="viewer-note"`)
}

func TestAuditLogOfAStudy(t *testing.T) {
	e := newTestEnv(t)
	owner := e.adminClient()
	s, experts := expertStudy(t, e, owner)
	path := fmt.Sprintf("/admin/studies/%d", s.ID)
	// A refused import changes nothing and is not logged.
	owner.upload(path+"/items", "file", "bad.csv", []byte("id,type\n1,x\n")).mustStatus(t, http.StatusBadRequest)

	es, err := e.db.AuditLog(context.Background(), s.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Actor != "researcher" {
			t.Errorf("entry %+v: actor %q", es[i], es[i].Actor)
		}
		got = append(got, es[i].Action)
	}
	want := []string{"create study", "import items", "build expert batches", "invite expert", "invite expert", "assign round", "change study state"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("audit log %q, want %q", got, want)
	}
	if d := es[len(es)-2].Detail; d != "20 items from items.jsonl" {
		t.Errorf("import detail %q", d)
	}
	// In words: the experts' names and the batch's number, not the ids
	// of the form (expert="5,6").
	if d := es[0].Detail; d != `state: open` {
		t.Errorf("state detail %q, want %q", d, "state: open")
	}
	if d, want := es[1].Detail, fmt.Sprintf("batch 1; experts: %s, %s; round 1", experts[0].Name, experts[1].Name); d != want {
		t.Errorf("assign detail %q, want %q", d, want)
	}

	owner.get(path).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="audit-log"`, "build expert batches", "20 items from items.jsonl")
	p := owner.get(path+"/export/audit.csv").mustStatus(t, http.StatusOK)
	recs, err := csv.NewReader(strings.NewReader(p.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "id,at,actor,study_id,action,detail" || len(recs) != 1+len(want) || recs[2][4] != "import items" {
		t.Fatalf("audit CSV:\n%s", p.Body)
	}
}

func TestAccountsPage(t *testing.T) {
	e := newTestEnv(t)
	owner := e.adminClient()
	p := owner.post("/admin/accounts", url.Values{"username": {"ben"}, "role": {"viewer"}}).mustStatus(t, http.StatusOK)
	i := strings.Index(p.Body, `<code class="secret">`)
	if i < 0 {
		t.Fatalf("no password shown:\n%s", short(p.Body))
	}
	password := p.Body[i+len(`<code class="secret">`):]
	password = password[:strings.Index(password, "<")]
	ben := e.newClient()
	ben.post("/admin/login", url.Values{"username": {"ben"}, "password": {password}}).mustStatus(t, http.StatusSeeOther)
	ben.post("/admin/studies", url.Values{"name": {"S"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusForbidden)

	admins, _ := e.db.Admins(context.Background())
	var benID, ownerID int64
	for _, a := range admins {
		if a.Username == "ben" {
			benID = a.ID
		} else {
			ownerID = a.ID
		}
	}
	owner.post(fmt.Sprintf("/admin/accounts/%d/role", benID), url.Values{"role": {"owner"}}).mustStatus(t, http.StatusSeeOther)
	ben.post("/admin/studies", url.Values{"name": {"S"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther)
	// Ben demotes the first owner; the last owner cannot be demoted.
	ben.post(fmt.Sprintf("/admin/accounts/%d/role", ownerID), url.Values{"role": {"viewer"}}).mustStatus(t, http.StatusSeeOther)
	ben.post(fmt.Sprintf("/admin/accounts/%d/role", benID), url.Values{"role": {"viewer"}}).mustStatus(t, http.StatusConflict).mustContain(t, "only owner")
	// A new password logs ben out everywhere.
	ben.post(fmt.Sprintf("/admin/accounts/%d/password", benID), nil).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="new-password"`)
	ben.get("/admin").mustStatus(t, http.StatusSeeOther)

	es, _ := e.db.AuditLog(context.Background(), 0, 0)
	var log []string
	for i := len(es) - 1; i >= 0; i-- {
		log = append(log, es[i].Actor+": "+es[i].Action+": "+es[i].Detail)
	}
	want := []string{"researcher: create account: created ben as viewer", "researcher: change role: ben: viewer → owner",
		"ben: change role: researcher: owner → viewer", "ben: reset password: new password for ben; its sessions ended"}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("account log:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range log {
		if strings.Contains(l, password) {
			t.Fatal("a password reached the audit log")
		}
	}
}

// TestDiskFull: a write that finds no room is rolled back and answered
// with 503 and a message saying nothing was saved.
func TestDiskFull(t *testing.T) {
	e := newTestEnv(t)
	owner := e.adminClient()
	owner.post("/admin/studies", url.Values{"name": {"Validation"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther)
	studies, _ := e.db.Studies(context.Background())
	big := fillDisk(t, e)
	p := owner.upload(fmt.Sprintf("/admin/studies/%d/items", studies[0].ID), "file", "items.jsonl", big)
	p.mustStatus(t, http.StatusServiceUnavailable).mustContain(t, "The disk is full — nothing was saved")
	if items, _ := e.db.ListItems(context.Background(), studies[0].ID); len(items) != 0 {
		t.Fatalf("%d items saved on a full disk", len(items))
	}
}

// fillDisk stops the writer connection growing the database file
// (SQLITE_FULL, as on a full disk) and returns an items file too large to
// fit in it: 40 copies of the demo items.
func fillDisk(t *testing.T, e *testEnv) []byte {
	t.Helper()
	var pages int
	if err := e.db.Writer().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Writer().Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../cli/demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var big bytes.Buffer
	for i := range 40 {
		big.Write(bytes.ReplaceAll(data, []byte(`"id":"`), []byte(fmt.Sprintf(`"id":"%d-`, i))))
	}
	return big.Bytes()
}

// syncBuffer is a log sink the server's goroutines write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestCrossOriginRefusalLogsTheRouteNotTheToken(t *testing.T) {
	var logs syncBuffer
	e := newTestEnvConfig(t, func(c *Config) { c.Log = slog.New(slog.NewTextHandler(&logs, nil)) })
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/e/SECRETINVITATIONTOKEN/b/3/1", strings.NewReader("plausible=yes"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	e.newClient().do(req).mustStatus(t, http.StatusForbidden)
	out := logs.String()
	if strings.Contains(out, "SECRETINVITATIONTOKEN") || !strings.Contains(out, "/e/{token}/b/{assignment}/{pos}") {
		t.Fatalf("log:\n%s", out)
	}
}

func TestHSTSAndNoStaticListing(t *testing.T) {
	plain := newTestEnv(t)
	if h := plain.newClient().get("/healthz").Header.Get("Strict-Transport-Security"); h != "" {
		t.Errorf("HSTS without --secure-cookies: %q", h)
	}
	secure := newTestEnvConfig(t, func(c *Config) { c.SecureCookies = true })
	if h := secure.newClient().get("/healthz").Header.Get("Strict-Transport-Security"); !strings.HasPrefix(h, "max-age=") {
		t.Errorf("HSTS with --secure-cookies: %q", h)
	}
	c := plain.newClient()
	c.get("/static/").mustStatus(t, http.StatusNotFound)
	c.get("/static/style.css").mustStatus(t, http.StatusOK)
}
