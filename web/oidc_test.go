package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/signin"
	"pragmalab/signin/oidctest"
)

// Institutional sign-in (docs/deploy.md#institutional-sign-in-openid-connect)
// against the in-process identity provider of signin/oidctest, through
// the real router, middleware, cookies and session store.

const (
	oidcClientID = "pragmalab-test"
	oidcSecret   = "client-secret-for-tests-only"
)

// oidcEnv is a server configured for the fake provider idp.
func oidcEnv(t *testing.T) (*testEnv, *oidctest.Provider) {
	t.Helper()
	idp := oidctest.New(oidcClientID, oidcSecret)
	t.Cleanup(idp.Close)
	env := map[string]string{
		signin.EnvOIDCIssuer:       idp.URL,
		signin.EnvOIDCClientID:     oidcClientID,
		signin.EnvOIDCClientSecret: oidcSecret,
		signin.EnvOIDCName:         "Test University",
	}
	return newTestEnvWith(t, func(k string) string { return env[k] }), idp
}

// oidcEnvLogged is oidcEnv with every log line, at the most verbose level,
// kept in log.
func oidcEnvLogged(t *testing.T, log *syncBuffer) (*testEnv, *oidctest.Provider) {
	t.Helper()
	idp := oidctest.New(oidcClientID, oidcSecret)
	t.Cleanup(idp.Close)
	env := map[string]string{signin.EnvOIDCIssuer: idp.URL, signin.EnvOIDCClientID: oidcClientID, signin.EnvOIDCClientSecret: oidcSecret}
	return newTestEnvConfig(t, func(c *Config) {
		c.Getenv = func(k string) string { return env[k] }
		c.Log = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}), idp
}

// TestOIDCNothingSecretLogged: the client secret, the state, the code and
// the nonce of a sign-in, accepted or refused, appear in no log line.
func TestOIDCNothingSecretLogged(t *testing.T) {
	var log syncBuffer
	e, idp := oidcEnvLogged(t, &log)
	e.allow(domain.OIDCDomain, "uni.edu", domain.RoleViewer)
	idp.SignIn(oidctest.Person{Subject: "u-7007", Email: "ada@uni.edu", EmailVerified: true})
	var secrets []string
	for i, tamper := range []func(oidctest.Claims){nil, func(c oidctest.Claims) { c["aud"] = "x" }} {
		idp.Tamper(tamper)
		c := e.newClient()
		u := c.toProvider(t, "")
		q := u.Query()
		secrets = append(secrets, q.Get("state"), q.Get("code"))
		want := []int{http.StatusSeeOther, http.StatusForbidden}[i]
		c.follow(t, u.String()).mustStatus(t, want)
	}
	idp.Tamper(nil)
	out := log.String()
	if !strings.Contains(out, "login") || !strings.Contains(out, "institutional sign-in refused") {
		t.Fatalf("the log lacks the sign-in and the refusal:\n%s", out)
	}
	for _, s := range append(secrets, oidcSecret) {
		if s != "" && strings.Contains(out, s) {
			t.Errorf("the log shows a secret %q:\n%s", s, out)
		}
	}
}

func (e *testEnv) allow(kind, value, role string) {
	e.t.Helper()
	if _, err := e.db.AddOIDCRule(context.Background(), domain.OIDCRule{Kind: kind, Value: value, Role: role, CreatedBy: "test"}); err != nil {
		e.t.Fatal(err)
	}
}

// follow GETs an absolute address (the provider's or ours) with the
// browser's cookies, not following redirects.
func (c *client) follow(t *testing.T, addr string) page {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.do(req)
}

// toProvider starts a sign-in from the login page's link and returns the
// provider's answer: a redirect back to our callback with code and state.
func (c *client) toProvider(t *testing.T, next string) *url.URL {
	t.Helper()
	start := c.get(templatesOIDCLoginURL(next)).mustStatus(t, http.StatusSeeOther)
	back := c.follow(t, start.Header.Get("Location")).mustStatus(t, http.StatusFound)
	u, err := url.Parse(back.Header.Get("Location"))
	if err != nil || u.Path != signin.OIDCCallbackPath {
		t.Fatalf("the provider sent the browser to %q", back.Header.Get("Location"))
	}
	return u
}

func templatesOIDCLoginURL(next string) string {
	if next == "" {
		return "/admin/oidc/login"
	}
	return "/admin/oidc/login?next=" + url.QueryEscape(next)
}

// oidcSignIn walks a whole sign-in and returns the callback's answer.
func (c *client) oidcSignIn(t *testing.T, next string) page {
	t.Helper()
	return c.follow(t, c.toProvider(t, next).String())
}

func (c *client) cookie(name string) *http.Cookie {
	u, _ := url.Parse(c.env.srv.URL + "/admin/oidc/callback")
	for _, k := range c.hc.Jar.Cookies(u) {
		if k.Name == name {
			return k
		}
	}
	return nil
}

func (c *client) adminCookie(t *testing.T) *http.Cookie {
	t.Helper()
	u, _ := url.Parse(c.env.srv.URL + "/admin")
	for _, k := range c.hc.Jar.Cookies(u) {
		if k.Name == "pragmalab_admin" {
			return &http.Cookie{Name: k.Name, Value: k.Value}
		}
	}
	t.Fatal("no admin cookie")
	return nil
}

func (e *testEnv) counts() (accounts, sessions int) {
	e.t.Helper()
	as, err := e.db.Admins(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	n, err := e.db.SessionCount(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return len(as), n
}

func TestOIDCSignInCreatesAccountAndSession(t *testing.T) {
	e, idp := oidcEnv(t)
	e.allow(domain.OIDCDomain, "uni.edu", domain.RoleViewer)
	idp.SignIn(oidctest.Person{Subject: "u-1001", Email: "Ada@Uni.edu", EmailVerified: true, Name: "Ada"})
	c := e.newClient()
	c.get("/admin/login").mustStatus(t, http.StatusOK).mustContain(t, `data-testid="oidc-sign-in"`, "Sign in with Test University")
	// A wrong password's page offers it too.
	c.post("/admin/login", url.Values{"username": {"nobody"}, "password": {"wrong password"}}).mustStatus(t, http.StatusUnauthorized).mustContain(t, `data-testid="oidc-sign-in"`)

	got := c.oidcSignIn(t, "/admin/accounts").mustStatus(t, http.StatusSeeOther)
	if got.location() != "/admin/accounts" {
		t.Fatalf("after sign-in: sent to %q, want the page asked for", got.location())
	}
	if c.cookie(oidcCookieName) != nil {
		t.Error("the sign-in's state cookie outlived the sign-in")
	}
	for _, k := range got.Cookies() {
		if k.Name == "pragmalab_admin" && (!k.HttpOnly || k.SameSite != http.SameSiteLaxMode) {
			t.Errorf("admin cookie flags: HttpOnly %v, SameSite %v", k.HttpOnly, k.SameSite)
		}
	}
	page := c.get("/admin/accounts").mustStatus(t, http.StatusOK)
	page.mustContain(t, `data-testid="account-ada@uni.edu"`, `data-testid="nav-viewer"`, signin.ActionOIDCFirstSignIn, "created ada@uni.edu as viewer")
	// A viewer's session: changes are refused like any viewer's.
	c.post("/admin/studies", url.Values{"name": {"x"}, "kind": {domain.KindExpert}, "lang": {"en"}}).mustStatus(t, http.StatusForbidden)

	// The second sign-in finds the same account, and writes no new
	// first-sign-in entry; each sign-in is a session of its own.
	accounts, sessions := e.counts()
	c2 := e.newClient()
	c2.oidcSignIn(t, "").mustStatus(t, http.StatusSeeOther)
	c2.get("/admin").mustStatus(t, http.StatusOK).mustContain(t, "ada@uni.edu")
	a2, s2 := e.counts()
	if a2 != accounts || s2 != sessions+1 {
		t.Errorf("second sign-in: accounts %d → %d, sessions %d → %d; want the same account and one more session", accounts, a2, sessions, s2)
	}
	// Signing in again in the same browser rotates its session: the old
	// cookie is worth nothing afterwards.
	oldCookie := c2.adminCookie(t)
	c2.oidcSignIn(t, "").mustStatus(t, http.StatusSeeOther)
	if _, s3 := e.counts(); s3 != s2 {
		t.Errorf("signing in again: sessions %d → %d, want the old one ended", s2, s3)
	}
	if c2.adminCookie(t).Value == oldCookie.Value {
		t.Error("the admin cookie did not change at the new sign-in")
	}
	thief := e.newClient()
	u, _ := url.Parse(e.srv.URL)
	thief.hc.Jar.SetCookies(u, []*http.Cookie{oldCookie})
	if got := thief.get("/admin"); got.StatusCode != http.StatusSeeOther {
		t.Errorf("the cookie of the session before the sign-in still opens /admin (%d)", got.StatusCode)
	}
	log, _ := e.db.AuditLog(context.Background(), 0, 0)
	n := 0
	for _, l := range log {
		if l.Action == signin.ActionOIDCFirstSignIn {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d first-sign-in audit entries, want 1", n)
	}
}

const oidcCookieName = "pragmalab_oidc"

func TestOIDCSignInLinksAccountAndPasswordsStay(t *testing.T) {
	e, idp := oidcEnv(t)
	e.accountClient("bob@uni.edu", domain.RoleOwner) // a password account
	e.allow(domain.OIDCEmail, "bob@uni.edu", domain.RoleViewer)
	idp.SignIn(oidctest.Person{Subject: "u-2002", Email: "bob@uni.edu", EmailVerified: true})
	before, _ := e.counts()
	c := e.newClient()
	c.oidcSignIn(t, "").mustStatus(t, http.StatusSeeOther)
	// Linked, not created: the account keeps its role.
	c.get("/admin/accounts").mustStatus(t, http.StatusOK).mustContain(t, "linked the existing account bob@uni.edu (owner)")
	if after, _ := e.counts(); after != before {
		t.Errorf("accounts %d → %d: linking made an account", before, after)
	}
	// The password still logs in.
	p := e.newClient().post("/admin/login", url.Values{"username": {"bob@uni.edu"}, "password": {"correct horse battery"}})
	p.mustStatus(t, http.StatusSeeOther)

	// Another person of the provider who now holds that address (a new
	// subject) does not get the linked account.
	idp.SignIn(oidctest.Person{Subject: "u-9999", Email: "bob@uni.edu", EmailVerified: true})
	e.newClient().oidcSignIn(t, "").mustStatus(t, http.StatusForbidden).mustContain(t, "already linked to another identity")
}

// TestOIDCRefusals: every token or flow that is not exactly right is
// refused with a page saying so, and neither a session nor an account is
// made.
func TestOIDCRefusals(t *testing.T) {
	e, idp := oidcEnv(t)
	e.allow(domain.OIDCDomain, "uni.edu", domain.RoleOwner)
	good := oidctest.Person{Subject: "u-3003", Email: "cy@uni.edu", EmailVerified: true}
	cases := []struct {
		name   string
		person oidctest.Person
		tamper func(oidctest.Claims)
		// walk does the browser's part; nil: the whole sign-in.
		walk func(t *testing.T, c *client) page
		want string
	}{
		{name: "wrong audience", tamper: func(c oidctest.Claims) { c["aud"] = "another-client" }, want: "expected audience"},
		{name: "expired token", tamper: func(c oidctest.Claims) {
			c["iat"], c["exp"] = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
		}, want: "has expired"},
		{name: "bad nonce", tamper: func(c oidctest.Claims) { c["nonce"] = "not-the-nonce-sent" }, want: "nonce differs"},
		{name: "other issuer", tamper: func(c oidctest.Claims) { c["iss"] = "https://idp.example.org" }, want: "was refused"},
		{name: "unknown account", person: oidctest.Person{Subject: "u-4004", Email: "eve@elsewhere.org", EmailVerified: true}, want: "eve@elsewhere.org may not sign in here"},
		{name: "unverified e-mail", person: oidctest.Person{Subject: "u-5005", Email: "dan@uni.edu"}, want: "has not verified"},
		{name: "no e-mail", person: oidctest.Person{Subject: "u-6006"}, want: "The account u-6006 may not sign in here"},
		{name: "bad state", walk: func(t *testing.T, c *client) page {
			u := c.toProvider(t, "")
			q := u.Query()
			q.Set("state", "forged-"+q.Get("state"))
			u.RawQuery = q.Encode()
			return c.follow(t, u.String())
		}, want: "not started in this browser"},
		{name: "another browser's sign-in", walk: func(t *testing.T, c *client) page {
			u := c.env.newClient().toProvider(t, "") // an attacker's sign-in, completed in the victim's browser
			return c.follow(t, u.String())
		}, want: "not started in this browser"},
		{name: "replayed callback", walk: func(t *testing.T, c *client) page {
			u := c.toProvider(t, "")
			c.follow(t, u.String()).mustStatus(t, http.StatusSeeOther)
			c.post("/admin/logout", nil).mustStatus(t, http.StatusSeeOther)
			return c.follow(t, u.String())
		}, want: "not started in this browser"},
		{name: "provider error", walk: func(t *testing.T, c *client) page {
			u := c.toProvider(t, "")
			q := u.Query()
			q.Del("code")
			q.Set("error", "access_denied")
			q.Set("error_description", "The user cancelled")
			u.RawQuery = q.Encode()
			return c.follow(t, u.String())
		}, want: "did not sign you in: The user cancelled"},
		{name: "provider error not of this browser", walk: func(t *testing.T, c *client) page {
			return c.get(signin.OIDCCallbackPath + "?error=access_denied&error_description=Call+0800+to+unlock&state=x")
		}, want: "not started in this browser"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			who := good
			if tc.person.Subject != "" {
				who = tc.person
			}
			idp.SignIn(who)
			idp.Tamper(tc.tamper)
			defer idp.Tamper(nil)
			accounts, sessions := e.counts()
			c := e.newClient()
			var got page
			if tc.walk != nil {
				got = tc.walk(t, c)
				_, sessions = e.counts() // a walk may sign in on the way
			} else {
				got = c.oidcSignIn(t, "")
			}
			got.mustStatus(t, http.StatusForbidden).mustContain(t, `data-testid="oidc-refused"`, tc.want, `data-testid="back-to-login"`)
			if a, s := e.counts(); s != sessions || (tc.walk == nil && a != accounts) {
				t.Errorf("refused, yet accounts %d → %d, sessions %d → %d", accounts, a, sessions, s)
			}
			if got := c.get("/admin"); got.StatusCode != http.StatusSeeOther || !strings.HasPrefix(got.location(), "/admin/login") {
				t.Errorf("after a refused sign-in /admin answers %d %s, want the login page", got.StatusCode, got.location())
			}
		})
	}

	t.Run("signature by another key", func(t *testing.T) {
		idp.SignIn(good)
		idp.SignWithWrongKey(true)
		defer idp.SignWithWrongKey(false)
		_, sessions := e.counts()
		e.newClient().oidcSignIn(t, "").mustStatus(t, http.StatusForbidden).mustContain(t, "signature")
		if _, s := e.counts(); s != sessions {
			t.Errorf("sessions %d → %d", sessions, s)
		}
	})
}

func TestOIDCNotConfigured(t *testing.T) {
	e := newTestEnv(t)
	c := e.newClient()
	if body := c.get("/admin/login").mustStatus(t, http.StatusOK).Body; strings.Contains(body, "oidc-sign-in") {
		t.Error("the login page offers institutional sign-in that is not configured")
	}
	c.get("/admin/oidc/login").mustStatus(t, http.StatusNotFound)
	c.get("/admin/oidc/callback?code=x&state=y").mustStatus(t, http.StatusNotFound)

	// Half a configuration stops the server with the missing variable named.
	_, err := New(context.Background(), Config{DB: e.db, Log: e.server.cfg.Log, Getenv: func(k string) string {
		if k == signin.EnvOIDCIssuer {
			return "https://idp.example.org"
		}
		return ""
	}})
	if err == nil || !strings.Contains(err.Error(), signin.EnvOIDCClientID) || !strings.Contains(err.Error(), signin.EnvOIDCClientSecret) {
		t.Fatalf("half-configured: %v", err)
	}
}

func TestOIDCRulesPage(t *testing.T) {
	e, _ := oidcEnv(t)
	owner := e.adminClient()
	owner.get("/admin/accounts").mustStatus(t, http.StatusOK).mustContain(t, `href="/admin/accounts/sign-in"`)
	owner.get("/admin/accounts/sign-in").mustStatus(t, http.StatusOK).mustContain(t, "Test University", "/admin/oidc/callback", `data-testid="oidc-no-rules"`)

	owner.post("/admin/accounts/sign-in", url.Values{"kind": {"domain"}, "value": {" @Uni.EDU "}, "role": {"viewer"}}).mustStatus(t, http.StatusSeeOther)
	owner.get("/admin/accounts/sign-in").mustStatus(t, http.StatusOK).mustContain(t, `data-testid="oidc-rule-uni.edu"`, "Allowed uni.edu to sign in as viewer.")
	bad := owner.post("/admin/accounts/sign-in", url.Values{"kind": {"email"}, "value": {"not-an-address"}, "role": {"owner"}}).mustStatus(t, http.StatusBadRequest)
	bad.mustContain(t, `is not of the form name@domain`, `value="not-an-address"`)
	owner.post("/admin/accounts/sign-in", url.Values{"kind": {"domain"}, "value": {"uni.edu"}, "role": {"owner"}}).mustStatus(t, http.StatusBadRequest).mustContain(t, "already a rule")

	rules, _ := e.db.OIDCRules(context.Background())
	if len(rules) != 1 || rules[0].CreatedBy != "researcher" {
		t.Fatalf("rules: %+v", rules)
	}
	viewer := e.accountClient("val", domain.RoleViewer)
	vp := viewer.get("/admin/accounts/sign-in").mustStatus(t, http.StatusOK)
	if strings.Contains(vp.Body, "oidc-new-rule") || strings.Contains(vp.Body, "/delete") {
		t.Error("a viewer is shown the rule forms")
	}
	viewer.post("/admin/accounts/sign-in", url.Values{"kind": {"domain"}, "value": {"evil.org"}, "role": {"owner"}}).mustStatus(t, http.StatusForbidden)

	owner.post("/admin/accounts/sign-in/"+itoa(rules[0].ID)+"/delete", nil).mustStatus(t, http.StatusSeeOther)
	owner.get("/admin/accounts").mustStatus(t, http.StatusOK).mustContain(t, "allowed the domain uni.edu to sign in as viewer", "removed the domain uni.edu (viewer)")
	if rules, _ := e.db.OIDCRules(context.Background()); len(rules) != 0 {
		t.Errorf("rule not deleted: %+v", rules)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestOIDCProviderDown: a provider that does not answer gets a page
// saying so (502) and the password login stays; nothing is stored.
func TestOIDCProviderDown(t *testing.T) {
	e, idp := oidcEnv(t)
	idp.Close()
	c := e.newClient()
	c.get("/admin/oidc/login").mustStatus(t, http.StatusBadGateway).mustContain(t, "Test University could not be reached", "log in with your password")
	if c.cookie(oidcCookieName) != nil {
		t.Error("a sign-in that never started left its cookie")
	}
	if a, s := e.counts(); a != 0 || s != 0 {
		t.Errorf("accounts %d, sessions %d after a failed start", a, s)
	}
}
