package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/cli"
	"pragmalab/cli/seed"
	"pragmalab/runner"
	"pragmalab/studies"
	"pragmalab/web"
)

// TestLikertJobAndAnalysisOnPhoneAndDesktop runs a likert job and a
// True/False job on a crowd study with human ratings and reads the job
// pages and the study's Analysis page in Chromium at 390 px and 1280 px
// (docs/scoring.md#the-launch-form, docs/statistics.md#where-each-shows): the page never scrolls sideways (the "Models
// beside humans" table scrolls in its own box), every figure is a link to
// itself at full size, shown at least 300 px wide on the desktop, and the
// Analysis page shows the job's alt-test beside the crowd's reliability.
// With PRAGMALAB_SCREENSHOTS=dir the screenshots are written there.
func TestLikertJobAndAnalysisOnPhoneAndDesktop(t *testing.T) {
	ctx := newBrowser(t)
	bg := context.Background()
	db := openStore(t)
	b, err := seed.New(db).SeedBenchCrowd(bg, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []int64
	for _, spec := range []runner.Spec{
		{StudyID: b.StudyID, Task: "likert", Scorer: "random", Seed: 1},
		{StudyID: b.StudyID, Task: "truefalse", Scorer: "random", Seed: 1, CompareStudyID: b.StudyID},
	} {
		job, err := runner.Create(bg, db, spec, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.New(db, nil, func(string) string { return "" }, nil).RunJob(bg, job.ID, nil); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job.ID)
	}
	createResearcher(t, db)
	ts, _ := serve(t, db, web.Config{RCompanion: cli.RCompanionZip(studies.New(db, nil))})
	logInResearcher(t, ctx, ts.URL)
	// The launch form: only the fields the task and scorer use, "Compare
	// with" on the study's own humans.
	jobsURL := fmt.Sprintf("%s/admin/studies/%d/jobs", ts.URL, b.StudyID)
	step(t, ctx, "open the launch form", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(jobsURL), chromedp.WaitVisible(testID("job-form")))
	if v := get(t, ctx, "read compare", chromedp.Evaluate[string](`document.querySelector("[data-testid=job-compare]").value`)); v != strconv.FormatInt(b.StudyID, 10) {
		t.Errorf("Compare with defaults to %q, want the study itself (%d)", v, b.StudyID)
	}
	choose := func(what, id, value string) {
		get(t, ctx, what, chromedp.Evaluate[bool](`(() => { const e = document.querySelector("[data-testid=`+id+`]"); e.value = "`+value+`"; e.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`))
	}
	visible := func(sel string) bool {
		return get(t, ctx, "is "+sel+" shown", chromedp.Evaluate[bool](`(() => { const e = document.querySelector(`+strconv.Quote(sel)+`); return !!e && e.offsetParent !== null; })()`))
	}
	choose("choose the random scorer", "job-scorer", "random")
	if visible(`[data-testid=job-urls]`) || visible(`[data-testid=job-strategy]`) || !visible(`input[name=seed]`) || !visible(`[data-testid=job-compare]`) {
		t.Error("with the random scorer on True/False the form should show the seed and Compare with, not the endpoint or the strategy")
	}
	screenshot(t, ctx, "jobs-form-random-1280", testID("job-form"))
	choose("choose the model scorer", "job-scorer", "model")
	if !visible(`[data-testid=job-urls]`) || visible(`input[name=seed]`) || visible(`input[name=samples]`) {
		t.Error("with a model endpoint in log-probabilities mode the form should show the endpoint, not the seed or the samples")
	}
	choose("choose the likert task", "job-task", "likert")
	if visible(`[data-testid=job-compare]`) {
		t.Error("Compare with applies to True/False jobs only")
	}
	pages := []struct{ name, url, ready string }{
		{"job-likert", fmt.Sprintf("%s/admin/studies/%d/jobs/%d", ts.URL, b.StudyID, jobs[0]), "alt-verdict"},
		{"job-truefalse", fmt.Sprintf("%s/admin/studies/%d/jobs/%d", ts.URL, b.StudyID, jobs[1]), "comparison"},
		{"analysis", fmt.Sprintf("%s/admin/studies/%d/analysis", ts.URL, b.StudyID), "analysis-jobs"},
	}
	for _, width := range []int64{390, 1280} {
		var opts []chromedp.EmulateViewportOption
		if width < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		for _, p := range pages {
			step(t, ctx, "open "+p.name, chromedp.EmulateViewport(width, 900, opts...), chromedp.Navigate(p.url), chromedp.WaitVisible(testID(p.ready)))
			if get(t, ctx, "measure the page", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
				t.Errorf("%s at %d px: the page scrolls sideways", p.name, width)
			}
			unlinked := get(t, ctx, "find figures", chromedp.Evaluate[int](`Array.from(document.querySelectorAll("main figure img")).filter(i => { const a = i.closest("a"); return !a || a.getAttribute("href") !== i.getAttribute("src"); }).length`))
			if unlinked > 0 {
				t.Errorf("%s at %d px: %d figures do not open full size on click", p.name, width, unlinked)
			}
			if width > 1000 {
				narrow := get(t, ctx, "measure figures", chromedp.Evaluate[int](`Array.from(document.querySelectorAll("main figure img")).filter(i => i.getBoundingClientRect().width < 300).length`))
				if narrow > 0 {
					t.Errorf("%s at %d px: %d figures narrower than 300 px", p.name, width, narrow)
				}
			}
			screenshot(t, ctx, p.name+"-"+strconv.FormatInt(width, 10))
			if width < 500 {
				axeAudit(t, ctx, p.name+" at 390 px")
			}
		}
	}
	// The Analysis page: the likert job's row, and the R companion beside the LaTeX.
	row := get(t, ctx, "read the models", chromedp.Text(testID("analysis-models")))
	if !strings.Contains(row, "likert") || !strings.Contains(row, "0.10") {
		t.Errorf("the Analysis page's models: %q", row)
	}
	size := get(t, ctx, "fetch the R companion", chromedp.Evaluate[int](`(async () => { const r = await fetch(document.querySelector("[data-testid=r-companion]").href); return r.ok && r.headers.get("Content-Type") === "application/zip" ? (await r.arrayBuffer()).byteLength : -r.status; })()`, chromedp.EvalAwaitPromise))
	if size < 1000 {
		t.Errorf("the R companion zip: %d", size)
	}
}
