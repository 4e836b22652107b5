package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/web"
)

// TestProlificLifeInBrowser: a signed delivery frees a place and the page
// shows it; the message form previews on a phone without JavaScript
// tricks; nothing scrolls sideways at 390 px.
func TestProlificLifeInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	bg := context.Background()
	db := openStore(t)
	const psid = "64ffffffffffffffffffffff"
	cs, fake, vars := fakeProlific(t, db, psid)
	createResearcher(t, db)
	if err := db.LinkProlific(bg, cs.ID, psid); err != nil {
		t.Fatal(err)
	}
	vars[prolific.WebhookSecretEnv] = "e2e-secret"
	ts, _ := serve(t, db, web.Config{Getenv: func(k string) string { return vars[k] }})
	page := ts.URL + "/admin/studies/" + strconv.FormatInt(cs.ID, 10) + "/prolific"

	body := []byte(`{"resource_id":"sub3","event_type":"submission.status.change","status":"RETURNED"}`)
	if code, err := prolifictest.Deliver(ts.URL+"/webhooks/prolific", "e2e-secret", "evt-e2e", time.Now(), body); err != nil || code != 200 {
		t.Fatalf("delivery: %d %v", code, err)
	}
	logInResearcher(t, ctx, ts.URL)
	for _, vp := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		opts := []chromedp.EmulateViewportOption{}
		if vp.w < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		step(t, ctx, vp.name, chromedp.EmulateViewport(vp.w, vp.h, opts...), chromedp.Navigate(page), chromedp.WaitVisible(testID("hook-last")))
		screenshot(t, ctx, "prolific-life-"+vp.name)
		if w := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > int(vp.w)+10 {
			t.Errorf("the Prolific page is %d px wide at %d px: it scrolls sideways", w, vp.w)
		}
	}
	step(t, ctx, "preview a message", chromedp.Click(`input[name="to"][value="completed"]`),
		chromedp.SetValue(`select[name="template"]`, "question"), chromedp.Submit(`select[name="template"]`),
		chromedp.WaitVisible(testID("message-preview")))
	screenshot(t, ctx, "prolific-message-phone")
	if got := get(t, ctx, "recipients", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="message-recipients"] li').length`)); got != 2 {
		t.Errorf("the preview lists %d recipients, want 2", got)
	}
	if len(fake.Messages()) != 0 {
		t.Error("the preview sent a message")
	}
}
