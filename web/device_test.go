package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"pragmalab/signin"
	"pragmalab/studies"
)

// loginFrom posts a login from c (its cookies, the device cookie among
// them) with the client address addr behind the trusted proxy.
func (c *client) loginFrom(addr, username, password string) page {
	c.env.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.env.srv.URL+"/admin/login",
		strings.NewReader(url.Values{"username": {username}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.env.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Fly-Client-IP", addr)
	return c.do(req)
}

// TestNoLockoutByStrangers: a browser that logged in before carries a
// signed device cookie and still logs in after strangers have locked the
// account from ten addresses; a fresh browser is refused as before, and a
// forged or other account's device cookie helps nothing. The lock is in
// the audit log once, and `admin unlock` (the Service call the command
// makes) lifts it for the fresh browser too.
func TestNoLockoutByStrangers(t *testing.T) {
	e := newTestEnvConfig(t, func(c *Config) { c.TrustedProxyHeader = "Fly-Client-IP" })
	ctx := context.Background()
	if _, err := e.db.CreateAdmin(ctx, "admin", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	owner := e.newClient()
	owner.loginFrom("192.0.2.10", "admin", "correct horse battery").mustStatus(t, http.StatusSeeOther)
	u, _ := url.Parse(e.srv.URL + "/admin/login")
	var device string
	for _, c := range owner.hc.Jar.Cookies(u) {
		if c.Name == "pragmalab_device" {
			device = c.Value
		}
	}
	if device == "" {
		t.Fatal("a successful login set no device cookie")
	}

	// Strangers: ten wrong passwords from ten addresses, then more.
	for i := range 12 {
		e.newClient().loginFrom(fmt.Sprintf("203.0.113.%d", i+1), "admin", "guess")
	}
	e.newClient().loginFrom("198.51.100.7", "admin", "correct horse battery").mustStatus(t, http.StatusTooManyRequests)

	// A forged device cookie (the account's name, a wrong signature) is
	// no device.
	forged := e.newClient()
	forged.hc.Jar.SetCookies(u, []*http.Cookie{{Name: "pragmalab_device", Value: device[:len(device)-4] + "AAAA", Path: "/admin/login"}})
	forged.loginFrom("198.51.100.8", "admin", "correct horse battery").mustStatus(t, http.StatusTooManyRequests)

	// The owner's browser, from the same address as a stranger even, gets
	// in.
	owner.loginFrom("203.0.113.1", "admin", "correct horse battery").mustStatus(t, http.StatusSeeOther)

	entries, _ := e.db.AuditLog(ctx, 0, 100)
	locks := 0
	for _, en := range entries {
		if en.Action == signin.ActionLoginLockout {
			locks++
		}
	}
	if locks != 1 {
		t.Errorf("%d lockout entries in the audit log, want 1 (the lock, not each refusal)", locks)
	}

	// pragmalab admin unlock: the fresh browser gets in at once.
	svc := signin.New(e.db, nil)
	if err := svc.UnlockLogin(ctx, studies.CLIActor, "Admin"); err != nil {
		t.Fatal(err)
	}
	e.newClient().loginFrom("198.51.100.9", "admin", "correct horse battery").mustStatus(t, http.StatusSeeOther)
	entries, _ = e.db.AuditLog(ctx, 0, 100)
	if len(entries) == 0 || entries[0].Action != signin.ActionLoginUnlock || entries[0].Actor != studies.CLIActor {
		t.Errorf("the unlock is not the latest audit entry: %+v", entries[0])
	}
	if err := svc.UnlockLogin(ctx, studies.CLIActor, "nobody"); err == nil {
		t.Error("unlocking an unknown account succeeded")
	}
}
