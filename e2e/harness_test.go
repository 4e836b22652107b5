package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/store"
	"pragmalab/web"
)

// The one harness of the browser tests (docs/testing.md#browser-tests-and-screenshots):
// openStore and serve start what every test needs, screenshot saves what
// it sees.

// openStore opens a store on a new file in the test's temporary folder,
// closed when the test ends.
func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "e2e.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// serve starts pragmalab's web server over db, with cfg's other settings
// (its DB and, when unset, Log are filled in), on a local address closed
// when the test ends.
func serve(t *testing.T, db *store.DB, cfg web.Config) (*httptest.Server, *web.Server) {
	t.Helper()
	cfg.DB = db
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := web.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts, srv
}

// researcher logs in to the admin pages of the browser tests: created by
// createResearcher, logged in by logInResearcher.
const researcher, researcherPassword = "researcher", "correct horse battery"

// createResearcher creates the researcher's admin account in db.
func createResearcher(t *testing.T, db *store.DB) {
	t.Helper()
	if _, err := db.CreateAdmin(context.Background(), researcher, researcherPassword); err != nil {
		t.Fatal(err)
	}
}

// logInResearcher logs the browser in as the researcher on the server at
// base and waits for the admin page it lands on (its navigation, which
// the login page has not).
func logInResearcher(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	step(t, ctx, "log in", chromedp.Navigate(base+"/admin/login"),
		chromedp.SendKeys(`input[name="username"]`, researcher), chromedp.SendKeys(`input[name="password"]`, researcherPassword),
		chromedp.Submit(`input[name="password"]`), chromedp.WaitVisible(`a[href="/admin"]`))
}

// screenshot saves a PNG of the whole page, or of the first element each
// selector of names, as DIR/name.png when PRAGMALAB_SCREENSHOTS names a
// folder; otherwise it does nothing.
func screenshot(t *testing.T, ctx context.Context, name string, of ...chromedp.CSS) {
	t.Helper()
	dir := os.Getenv("PRAGMALAB_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	if len(of) > 0 {
		png = get(t, ctx, "screenshot "+name, chromedp.Screenshot(of[0]))
	} else {
		png = get(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHarness checks the browser plumbing the study tests rely on: keys
// reach the page, a form posts, and the Prolific redirect is trapped
// without the network.
func TestHarness(t *testing.T) {
	ctx := newBrowser(t)
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<!doctype html><form method="post" action="/answer"><fieldset><legend>Rate</legend>
<label><input type="radio" name="rating" value="1">1</label><label><input type="radio" name="rating" value="7">7</label></fieldset>
<button>Next</button></form>
<script>document.addEventListener('keydown', e => { const r = document.querySelector('input[value="'+e.key+'"]'); if (r) { r.checked = true; r.form.submit(); } });</script>`)
		case "/answer":
			r.ParseForm()
			got <- r.PostFormValue("rating")
			http.Redirect(w, r, "https://app.prolific.com/submissions/complete?cc=ABC123", http.StatusSeeOther)
		}
	}))
	defer srv.Close()
	trap := trapProlific(t, ctx)
	step(t, ctx, "open page", chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.CSS("fieldset")))
	step(t, ctx, "press 7", chromedp.KeyEvent("7"))
	u := trap.wait(t, "https://app.prolific.com/submissions/complete")
	if u != "https://app.prolific.com/submissions/complete?cc=ABC123" {
		t.Fatalf("redirect %q", u)
	}
	if r := <-got; r != "7" {
		t.Fatalf("rating %q, want 7 (the key press)", r)
	}
	step(t, ctx, "prolific page shown", chromedp.WaitVisible(testID("prolific")))
}
