package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"pragmalab/domain"
	"pragmalab/signin"
	"pragmalab/signin/oidctest"
	"pragmalab/web"
)

// TestOIDCSignInInTheBrowser: the login page offers "Sign in with Test
// University"; following it (by mouse on a desktop, by keyboard on a
// phone) goes through the in-process identity provider and back, signed
// in; a person no rule admits gets the refusal page and no session.
func TestOIDCSignInInTheBrowser(t *testing.T) {
	ctx := newBrowser(t)
	db := openStore(t)
	idp := oidctest.New("pragmalab-e2e", "e2e-client-secret")
	t.Cleanup(idp.Close)
	env := map[string]string{
		signin.EnvOIDCIssuer:       idp.URL,
		signin.EnvOIDCClientID:     "pragmalab-e2e",
		signin.EnvOIDCClientSecret: "e2e-client-secret",
		signin.EnvOIDCName:         "Test University",
	}
	ts, _ := serve(t, db, web.Config{Getenv: func(k string) string { return env[k] }})
	if _, err := db.AddOIDCRule(context.Background(), domain.OIDCRule{Kind: domain.OIDCDomain, Value: "uni.edu", Role: domain.RoleOwner, CreatedBy: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{1280, 390} {
		device := map[int64]string{1280: "desktop", 390: "phone"}[width]
		idp.SignIn(oidctest.Person{Subject: "u-" + device, Email: "ada-" + device + "@uni.edu", EmailVerified: true})
		step(t, ctx, "viewport", chromedp.EmulateViewport(width, 900, chromedp.EmulateScale(1)))
		step(t, ctx, "login page", chromedp.Navigate(ts.URL+"/admin/login"), chromedp.WaitVisible(testID("oidc-sign-in")))
		screenshot(t, ctx, "oidc-login-"+device)
		if device == "desktop" {
			step(t, ctx, "sign in by mouse", chromedp.Click(testID("oidc-sign-in")))
		} else {
			step(t, ctx, "sign in by keyboard", chromedp.Focus(testID("oidc-sign-in")), chromedp.KeyEvent(kb.Enter))
		}
		step(t, ctx, "signed in", chromedp.WaitVisible(`header.admin-nav`))
		nav := get(t, ctx, "nav", chromedp.Text(`header.admin-nav`))
		if !strings.Contains(nav, "ada-"+device+"@uni.edu") {
			t.Fatalf("signed in as %q", nav)
		}
		// Each click waits for the page it leads to: a click racing the
		// navigation finds a node of the page being left.
		step(t, ctx, "the accounts page", chromedp.Click(testID("nav-accounts")), chromedp.WaitVisible(testID("oidc-rules-link")))
		step(t, ctx, "the sign-in rules", chromedp.Click(testID("oidc-rules-link")),
			chromedp.WaitVisible(testID("oidc-rule-uni.edu")), chromedp.WaitVisible(testID("oidc-new-rule")))
		screenshot(t, ctx, "oidc-rules-"+device)
		step(t, ctx, "log out", chromedp.Click(`form[action="/admin/logout"] button`), chromedp.WaitVisible(testID("login-form")))

		idp.SignIn(oidctest.Person{Subject: "x-" + device, Email: "eve@elsewhere.org", EmailVerified: true})
		step(t, ctx, "an unknown account", chromedp.Click(testID("oidc-sign-in")), chromedp.WaitVisible(testID("oidc-refused")))
		msg := get(t, ctx, "refusal", chromedp.Text(testID("oidc-refused")))
		if !strings.Contains(msg, "eve@elsewhere.org may not sign in here") {
			t.Fatalf("refusal %q", msg)
		}
		screenshot(t, ctx, "oidc-refused-"+device)
		step(t, ctx, "back to the login page", chromedp.Click(testID("back-to-login")), chromedp.WaitVisible(testID("login-form")))
	}
	// Both sign-ins logged out, so any session left was opened by a refusal.
	if n, _ := db.SessionCount(context.Background()); n != 0 {
		t.Errorf("%d sessions left after logging out: a refused sign-in opened one", n)
	}
}
