package e2e

import (
	"context"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
	"pragmalab/web"
)

// fakeProlific seeds prolifictest's crowd study in db and starts a fake
// Prolific holding the submissions of its study psid; vars point a server
// at the fake (add to them before serving).
func fakeProlific(t *testing.T, db *store.DB, psid string) (cs *domain.Study, fake *prolifictest.Server, vars map[string]string) {
	t.Helper()
	cs, err := prolifictest.SeedCrowdStudy(context.Background(), db, psid)
	if err != nil {
		t.Fatal(err)
	}
	fake = prolifictest.NewServer("e2e-prolific-token-QWERTYUIOP123")
	t.Cleanup(fake.Close)
	fake.AddFixtureSubmissions(psid)
	return cs, fake, map[string]string{prolific.TokenEnv: fake.Token, prolific.APIEnv: fake.URL}
}

// TestProlificPageInBrowser links a crowd study to a fake Prolific, syncs it
// with the button and reads the page on a desktop and on a phone: the table
// of participants with both statuses fits, and the bonus form works
// without JavaScript. Screenshots go to $PRAGMALAB_SCREENSHOTS when set.
func TestProlificPageInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	db := openStore(t)
	const psid = "64eeeeeeeeeeeeeeeeeeeeee"
	cs, fake, vars := fakeProlific(t, db, psid)
	createResearcher(t, db)
	ts, _ := serve(t, db, web.Config{Getenv: func(k string) string { return vars[k] }})
	page := ts.URL + "/admin/studies/" + strconv.FormatInt(cs.ID, 10) + "/prolific"

	logInResearcher(t, ctx, ts.URL)
	step(t, ctx, "link the study", chromedp.Navigate(page), chromedp.WaitVisible(testID("prolific-study-id")),
		chromedp.SendKeys(testID("prolific-study-id"), psid), chromedp.Submit(testID("prolific-study-id")),
		chromedp.WaitVisible(testID("sync")))
	// The table is there before the sync too: wait for what only a sync
	// shows, the submission of somebody who never reached pragmalab.
	step(t, ctx, "sync", chromedp.Click(testID("sync")), chromedp.WaitVisible(testID("never-"+prolifictest.PID(4))))
	status := get(t, ctx, "read a status", chromedp.Text(`[data-testid="prow-`+prolifictest.PID(1)+`"] [data-testid="prolific-status"]`))
	if status != prolific.StatusAwaitingReview {
		t.Fatalf("participant 1 shows %q on Prolific", status)
	}
	step(t, ctx, "desktop", chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(testID("prolific-participants")))
	screenshot(t, ctx, "prolific-desktop")
	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(), chromedp.WaitVisible(testID("prolific-participants")))
	screenshot(t, ctx, "prolific-phone")
	if w := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 400 {
		t.Errorf("the Prolific page is %d px wide on a 390 px phone: it scrolls sideways", w)
	}
	// The bonus form: a fixed amount for the completed, included
	// participant, shown with its total before anything is sent.
	step(t, ctx, "plan a bonus", chromedp.SendKeys(`input[name="amount"]`, "0.40"), chromedp.Click(testID("bonus-plan")),
		chromedp.WaitVisible(testID("bonus-total")))
	if got := get(t, ctx, "read the total", chromedp.Text(testID("bonus-total"))); got != "Bonuses: 1, 0.40 in all before Prolific's fees." {
		t.Errorf("bonus total %q", got)
	}
	screenshot(t, ctx, "prolific-bonus-phone")
	if fake.Calls("POST bonus-payments") != 0 {
		t.Error("planning a bonus sent something")
	}
}
