package e2e

import (
	"context"
	"pragmalab/domain"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pragmalab/runner"
	"pragmalab/scoring/scoringtest"
	"pragmalab/web"
)

// TestScoringJobLiveProgress launches a model job from the admin form in a
// browser, watches the answered count grow without reloading the page, and
// cancels the job with the button.
func TestScoringJobLiveProgress(t *testing.T) {
	ctx := newBrowser(t)
	bg := context.Background()
	db := openStore(t)
	s := &domain.Study{Kind: domain.KindExpert, Name: "Scoring study", Lang: "en"}
	if err := db.CreateStudy(bg, s); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(bg, s.ID, runner.SyntheticItems(30)); err != nil {
		t.Fatal(err)
	}
	createResearcher(t, db)
	ts, srv := serve(t, db, web.Config{})
	runCtx, stop := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { srv.Jobs.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	model := scoringtest.NewServer(40 * time.Millisecond) // 360 prompts one at a time: ~15 s
	t.Cleanup(model.Close)

	logInResearcher(t, ctx, ts.URL)
	step(t, ctx, "open the scoring page", chromedp.Navigate(ts.URL+"/admin/studies/"+strconv.FormatInt(s.ID, 10)+"/jobs"),
		chromedp.WaitVisible(testID("job-form")))
	step(t, ctx, "fill in the endpoint",
		chromedp.SetValue(testID("job-scorer"), "model"),
		chromedp.SendKeys(testID("job-urls"), model.URL+"/v1"),
		chromedp.SendKeys(testID("job-model"), "fake-live"),
		chromedp.SetValue(`input[name="concurrency"]`, "1"),
		chromedp.Click(testID("job-launch")),
		chromedp.WaitVisible(testID("job-status")))
	// Mark the document: a reload would lose the mark.
	get(t, ctx, "mark the page", chromedp.Evaluate[bool](`window.__notReloaded = true`))
	answered := func() int {
		n, _ := strconv.Atoi(get(t, ctx, "read the count", chromedp.Text(testID("job-answered"))))
		return n
	}
	// The count grows on the page: wait for that state (the job takes
	// ~15 s, so it is reached long before the job ends, however busy the
	// machine), then check it came without a reload.
	first := answered()
	step(t, ctx, "the count grows", chromedp.Poll[chromedp.Void](
		`parseInt(document.querySelector('[data-testid="job-answered"]').textContent, 10) > `+strconv.Itoa(first),
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(stepLimit)))
	if later := answered(); later <= first {
		t.Fatalf("the answered count did not move on the page: %d then %d", first, later)
	}
	if !get(t, ctx, "check the mark", chromedp.Evaluate[bool](`window.__notReloaded === true`)) {
		t.Fatal("the page reloaded; the progress should update in place")
	}
	step(t, ctx, "cancel", chromedp.Click(testID("job-cancel")), chromedp.WaitVisible(testID("job-retry")))
	if st := get(t, ctx, "read the status", chromedp.Text(testID("job-state"))); st != "cancelled" {
		t.Fatalf("status %q after cancel", st)
	}
}
