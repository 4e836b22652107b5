package e2e

import (
	"context"
	"pragmalab/domain"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/web"
)

// TestAccountsAndAuditInTheBrowser: an owner logs in, creates a viewer on
// the accounts page and sees the new password once; the viewer logs in,
// sees the study's audit log and is refused a change; at phone width and
// on a desktop.
func TestAccountsAndAuditInTheBrowser(t *testing.T) {
	ctx := newBrowser(t)
	bctx := context.Background()
	db := openStore(t)
	if _, err := db.CreateAdmin(bctx, "lea", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	s := &domain.Study{Kind: domain.KindExpert, Name: "Scalar items", Lang: "en"}
	db.CreateStudy(bctx, s)
	db.Audit(bctx, "lea", s.ID, "import items", "=HYPERLINK(\"http://evil.example\") from items.csv")
	ts, _ := serve(t, db, web.Config{})

	login := func(user, password string) {
		step(t, ctx, "log in as "+user,
			chromedp.Navigate(ts.URL+"/admin/login"),
			chromedp.SendKeys(`input[name=username]`, user),
			chromedp.SendKeys(`input[name=password]`, password+"\r"),
			chromedp.WaitVisible(`header.admin-nav`),
		)
	}
	for _, width := range []int64{1280, 390} {
		height := int64(900)
		step(t, ctx, "viewport", chromedp.EmulateViewport(width, height, chromedp.EmulateScale(1)))
		login("lea", "correct horse battery")
		viewer := "ben" + map[int64]string{1280: "d", 390: "m"}[width]
		step(t, ctx, "create a viewer",
			chromedp.Click(testID("nav-accounts")),
			chromedp.WaitVisible(testID("new-account")),
			chromedp.SendKeys(`input[name=username]`, viewer),
			chromedp.Click(`input[name=role][value=viewer]`),
			chromedp.Submit(`[data-testid="new-account"]`),
			chromedp.WaitVisible(testID("new-password")),
		)
		password := get(t, ctx, "new password", chromedp.Text(`code.secret`))
		screenshot(t, ctx, "accounts-"+map[int64]string{1280: "desktop", 390: "phone"}[width])
		step(t, ctx, "log out", chromedp.Click(`form[action="/admin/logout"] button`), chromedp.WaitVisible(testID("login-form")))

		login(viewer, strings.TrimSpace(password))
		step(t, ctx, "study page with its log",
			chromedp.Navigate(ts.URL+"/admin/studies/1"),
			chromedp.WaitVisible(testID("audit-log")),
			chromedp.WaitVisible(testID("nav-viewer")),
		)
		log := get(t, ctx, "audit log", chromedp.Text(testID("audit-log")))
		if !strings.Contains(log, "import items") || !strings.Contains(log, "=HYPERLINK") {
			t.Fatalf("audit log on the study page: %q", log)
		}
		screenshot(t, ctx, "study-viewer-"+map[int64]string{1280: "desktop", 390: "phone"}[width])
		// A viewer is shown no form it could not submit (docs/deploy.md#viewers-view):
		// the only one left is "Log out".
		forms := get(t, ctx, "forms a viewer sees", chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll('form')).map(f => f.getAttribute('action'))`))
		if len(forms) != 1 || forms[0] != "/admin/logout" {
			t.Fatalf("a viewer's study page shows the forms %v; want only /admin/logout", forms)
		}
		step(t, ctx, "log out", chromedp.Navigate(ts.URL+"/admin/studies/1"), chromedp.Click(`form[action="/admin/logout"] button`), chromedp.WaitVisible(testID("login-form")))
	}
	if as, _ := db.Annotators(bctx, s.ID); len(as) != 0 {
		t.Fatalf("a viewer invited %d experts", len(as))
	}
}
