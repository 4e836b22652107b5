package e2e

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/web"
)

// TestProlificPlanInBrowser fills the Plan form (a plain GET form, no
// JavaScript needed) on a desktop and on a phone: the
// result, the widths now and Add places fit without sideways scrolling,
// and the page passes the axe audit.
func TestProlificPlanInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	bg := context.Background()
	db := openStore(t)
	cs, err := prolifictest.SeedPlanStudy(bg, db)
	if err != nil {
		t.Fatal(err)
	}
	const psid = "64abababababababababab00"
	fake := prolifictest.NewServer("e2e-prolific-token-QWERTYUIOP123")
	t.Cleanup(fake.Close)
	fake.AddStudy(psid, "plan on Prolific")
	if err := db.LinkProlific(bg, cs.ID, psid); err != nil {
		t.Fatal(err)
	}
	createResearcher(t, db)
	vars := map[string]string{prolific.TokenEnv: fake.Token, prolific.APIEnv: fake.URL}
	ts, _ := serve(t, db, web.Config{Getenv: func(k string) string { return vars[k] }})
	prolificPage := ts.URL + "/admin/studies/" + strconv.FormatInt(cs.ID, 10) + "/prolific"
	logInResearcher(t, ctx, ts.URL)
	for _, vp := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		opts := []chromedp.EmulateViewportOption{}
		if vp.w < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		step(t, ctx, vp.name, chromedp.EmulateViewport(vp.w, vp.h, opts...), chromedp.Navigate(prolificPage),
			chromedp.WaitVisible(testID("plan-link")), chromedp.Click(testID("plan-link")), chromedp.WaitVisible(testID("plan-form")),
			chromedp.SetValue(testID("plan-width"), "0.12"), chromedp.Submit(testID("plan-width")), chromedp.WaitVisible(testID("plan-result")))
		screenshot(t, ctx, "prolific-plan-"+vp.name)
		if !has(t, ctx, "plan-needed") || !has(t, ctx, "plan-cost") || !has(t, ctx, "plan-add-places") {
			t.Errorf("%s: no participants needed, cost or Add places for a width the simulated studies reach", vp.name)
		}
		if !has(t, ctx, "plan-current") {
			t.Errorf("%s: no widths now", vp.name)
		}
		if w := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > int(vp.w)+10 {
			t.Errorf("the Plan page is %d px wide at %d px: it scrolls sideways", w, vp.w)
		}
	}
	axeAudit(t, ctx, "the Plan page")
	if os.Getenv("PRAGMALAB_SCREENSHOTS") != "" {
		t.Logf("screenshots in %s", os.Getenv("PRAGMALAB_SCREENSHOTS"))
	}
}

func has(t *testing.T, ctx context.Context, id string) bool {
	t.Helper()
	return get(t, ctx, "has "+id, chromedp.Evaluate[bool](`document.querySelector('[data-testid="`+id+`"]') !== null`))
}
