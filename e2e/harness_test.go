package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
)

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
