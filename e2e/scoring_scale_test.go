package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring/scoringtest"
	"pragmalab/web"
)

// TestScoringEstimateAndTwoModels: on a phone and a desktop, the launch
// form estimates the size and cost of two models' jobs without creating
// them, the table scrolls inside the page rather than widening it, and the
// launch creates one job per model.
func TestScoringEstimateAndTwoModels(t *testing.T) {
	ctx := newBrowser(t)
	bg := context.Background()
	db := openStore(t)
	s := &domain.Study{Kind: domain.KindExpert, Name: "Scale study", Lang: "en"}
	if err := db.CreateStudy(bg, s); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(bg, s.ID, runner.SyntheticItems(10)); err != nil {
		t.Fatal(err)
	}
	createResearcher(t, db)
	prices := func(k string) string {
		if k == "PRAGMALAB_PRICES" {
			return "gpt-4o-mini=0.15/0.60"
		}
		return ""
	}
	ts, _ := serve(t, db, web.Config{Getenv: prices})
	model := scoringtest.NewServer(0)
	t.Cleanup(model.Close)
	logInResearcher(t, ctx, ts.URL)
	jobs := ts.URL + "/admin/studies/" + strconv.FormatInt(s.ID, 10) + "/jobs"
	for _, width := range []int64{390, 1280} {
		var opts []chromedp.EmulateViewportOption
		if width < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		step(t, ctx, "open the scoring page", chromedp.EmulateViewport(width, 900, opts...), chromedp.Navigate(jobs),
			chromedp.WaitVisible(testID("job-form")))
		step(t, ctx, "fill in two models and estimate",
			chromedp.SetValue(testID("job-scorer"), "model"),
			chromedp.SendKeys(testID("job-urls"), model.URL+"/v1"),
			chromedp.SendKeys(testID("job-model"), "gpt-4o-mini\nlocal-7b"),
			chromedp.SetValue(testID("job-engine"), "batch"),
			chromedp.Click(testID("job-estimate")),
			chromedp.WaitVisible(testID("estimate-table")))
		text := get(t, ctx, "read the estimate", chromedp.Text(testID("estimate-table")))
		for _, want := range []string{"gpt-4o-mini", "local-7b", "batch", "120", "no price given", "≤ $"} {
			if !strings.Contains(text, want) {
				t.Errorf("width %d: the estimate lacks %q:\n%s", width, want, text)
			}
		}
		if over := get(t, ctx, "page width", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)); over {
			t.Errorf("width %d: the page scrolls sideways", width)
		}
		screenshot(t, ctx, "scoring-estimate-"+strconv.FormatInt(width, 10), chromedp.CSS(`[data-testid="launch-estimate"]`))
	}
	step(t, ctx, "launch both", chromedp.Click(testID("job-launch")), chromedp.WaitVisible(testID("jobs")))
	n := get(t, ctx, "count the jobs", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="jobs"] tbody tr').length`))
	if n != 2 {
		t.Errorf("%d jobs listed, want one per model", n)
	}
}
