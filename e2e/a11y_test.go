package e2e

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"pragmalab/domain"
	"pragmalab/prolific/prolifictest"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/studies"
	"pragmalab/web"
)

// The accessibility audit of every page (docs/testing.md#accessibility-audit):
// each participant page of each study kind and each admin page is audited
// by axe-core at a phone (390 px) and a desktop (1280 px) width; at 390 px
// no admin page may scroll sideways.

// widths are the two screens every page is audited on.
var widths = []int64{390, 1280}

// setWidth emulates a phone (390 px, touch) or a desktop.
func setWidth(t *testing.T, ctx context.Context, width int64) {
	t.Helper()
	if width < 500 {
		step(t, ctx, fmt.Sprintf("%d px", width), chromedp.EmulateViewport(width, 844, chromedp.EmulateMobile))
	} else {
		step(t, ctx, fmt.Sprintf("%d px", width), chromedp.EmulateViewport(width, 900))
	}
}

// auditHere audits the page shown at both widths, and leaves it at the
// desktop width.
func auditHere(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	for _, w := range widths {
		setWidth(t, ctx, w)
		axeAudit(t, ctx, fmt.Sprintf("%s at %d px", what, w))
	}
}

// TestAccessibilityEveryPage walks a participant of each kind of
// study through its pages — crowd: consent, a practice item and its "try
// again", the end of the practice, a rating screen, the questionnaire, the
// completion page, a full and a paused study; expert: the invitation, a
// type's introduction, a screen with and without the box for an
// alternative, the end; context survey: the invitation, a question before
// and after more context, the end; explanation rating: the invitation, a
// screen, the end — and audits each page at both widths.
func TestAccessibilityEveryPage(t *testing.T) {
	t.Run("crowd", func(t *testing.T) {
		bg := context.Background()
		ts, db, studyID, _ := startCrowdStudyWith(t, "en", func(set *domain.CrowdSettings) {
			set.Quota = 1
			set.Questionnaire = domain.QuestionnaireSettings{Languages: true, Age: true, Gender: true, Comments: true}
		})
		ctx := newBrowser(t)
		holdProlific(t, ctx)
		entry := func(pid string) string {
			return fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%s&STUDY_ID=st&SESSION_ID=se-%s", ts.URL, studyID, pid, pid)
		}
		page := map[string]string{"consent": "crowd consent", "practice": "crowd practice item", "try-again": "crowd practice, try again",
			"practice-end": "crowd end of practice", "screen": "crowd rating screen", "questionnaire": "crowd questionnaire", "completion": "crowd completion"}
		walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: "a11a11a11a11a11a11a11a11", wrongFirst: true,
			at: func(at string) { auditHere(t, ctx, page[at]) }}
		walk.walk(t, ctx)

		// A second participant takes the other batch; a third finds the
		// study full (at the entry or, where consent comes first, after it).
		step(t, ctx, "a second participant", chromedp.Navigate(entry("b22b22b22b22b22b22b22b22")), chromedp.WaitVisible(testID("agree")),
			chromedp.Click(testID("agree")), chromedp.WaitVisible(testID("training")))
		full := `[data-testid="message-full"]`
		step(t, ctx, "a third participant", chromedp.Navigate(entry("c33c33c33c33c33c33c33c33")),
			chromedp.WaitVisible(full+`, [data-testid="agree"]`))
		if !get(t, ctx, "full at once?", chromedp.Evaluate[bool](`!!document.querySelector('`+full+`')`)) {
			step(t, ctx, "agree", chromedp.Click(testID("agree")), chromedp.WaitVisible(full))
		}
		step(t, ctx, "loaded", pageLoaded())
		auditHere(t, ctx, "crowd study full")
		if err := db.SetStudyState(bg, studyID, domain.StatePaused, ""); err != nil {
			t.Fatal(err)
		}
		step(t, ctx, "a participant of a paused study", chromedp.Navigate(entry("d44d44d44d44d44d44d44d44")),
			chromedp.WaitVisible(`[data-testid="study-paused"], [data-testid="message-paused"]`), pageLoaded())
		auditHere(t, ctx, "crowd study paused")

		// The admin pages of the study, with those participants in it.
		createResearcher(t, db)
		logIn(t, ctx, ts.URL)
		pages := crawlAdmin(t, ctx, ts.URL)
		for _, want := range []string{"/crowd/progress", "/prolific"} {
			if !containsSuffix(pages, want) {
				t.Errorf("no page ending in %s was audited (visited %v)", want, pages)
			}
		}
	})

	t.Run("expert", func(t *testing.T) {
		ts, db, inv, aid := startExpertStudy(t)
		ctx := newBrowser(t)
		step(t, ctx, "invitation", chromedp.Navigate(ts.URL+inv), chromedp.WaitVisible(testID("definitions")), pageLoaded())
		auditHere(t, ctx, "expert invitation")
		base := fmt.Sprintf("%s%s/b/%d", ts.URL, inv, aid)
		step(t, ctx, "introduction", chromedp.Navigate(base), chromedp.WaitVisible(testID("begin")), pageLoaded())
		auditHere(t, ctx, "expert introduction")
		step(t, ctx, "begin", chromedp.Click(testID("begin")), chromedp.WaitVisible(testID("item-form")), pageLoaded())
		auditHere(t, ctx, "expert screen")
		step(t, ctx, "answer no", chromedp.Click(`input[name="plausible"][value="no"]`), chromedp.WaitVisible(`textarea[name="alt_implicature"]`))
		auditHere(t, ctx, "expert screen with the alternative box")
		// Every screen but the last answered: the last, then the end.
		screens, _ := db.Screens(context.Background(), aid)
		a, _ := db.AnnotatorByToken(context.Background(), strings.TrimPrefix(inv, "/e/"))
		for _, sc := range screens[:len(screens)-1] {
			if err := db.SaveJudgement(context.Background(), a.ID, aid, sc.Position, domain.Judgement{Plausible: "yes", CancellationCorrect: "yes"}); err != nil {
				t.Fatal(err)
			}
		}
		step(t, ctx, "the last screen", chromedp.Navigate(base), chromedp.WaitVisible(testID("item-form")))
		step(t, ctx, "answer it", chromedp.Click(`input[name="plausible"][value="yes"]`), chromedp.Click(`input[name="cancellation_correct"][value="yes"]`),
			chromedp.Click(testID("next")), chromedp.WaitVisible(testID("done")), pageLoaded())
		auditHere(t, ctx, "expert end")
	})

	t.Run("context-and-explain", func(t *testing.T) {
		ts, db, survey, _, rater, _ := startImpaqts(t)
		ctx := newBrowser(t)
		token := strings.Split(survey, "/")[2]
		step(t, ctx, "context invitation", chromedp.Navigate(ts.URL+"/c/"+token), chromedp.WaitVisible(testID("instructions")), pageLoaded())
		auditHere(t, ctx, "context invitation")
		step(t, ctx, "question 1", chromedp.Navigate(ts.URL+survey+"/1"), chromedp.WaitVisible(testID("context-form")), pageLoaded())
		auditHere(t, ctx, "context question")
		step(t, ctx, "more context", chromedp.Click(testID("more")), chromedp.WaitVisible(testID("revealed")), pageLoaded())
		auditHere(t, ctx, "context question with more context")
		step(t, ctx, "sufficient", chromedp.Click(testID("sufficient")), chromedp.WaitVisible(`form[action$="/2"]`))
		step(t, ctx, "question 2 sufficient", chromedp.Click(testID("sufficient")), chromedp.WaitVisible(testID("done")), pageLoaded())
		auditHere(t, ctx, "context end")

		step(t, ctx, "explain invitation", chromedp.Navigate(ts.URL+rater), chromedp.WaitVisible(testID("instructions")), pageLoaded())
		auditHere(t, ctx, "explanation invitation")
		step(t, ctx, "screen 1", chromedp.Navigate(ts.URL+rater+"/1"), chromedp.WaitVisible(testID("explain-form")), pageLoaded())
		auditHere(t, ctx, "explanation screen")
		for pos := 1; pos <= 2; pos++ {
			step(t, ctx, fmt.Sprintf("rate %d", pos), chromedp.WaitVisible(fmt.Sprintf(`form[action$="/%d"]`, pos)),
				chromedp.Click(`input[name="judgment"][value="1"]`), chromedp.Click(testID("next")))
		}
		step(t, ctx, "explain end", chromedp.WaitVisible(testID("done")), pageLoaded())
		auditHere(t, ctx, "explanation end")

		// The admin pages of both studies, with those answers in them.
		createResearcher(t, db)
		logIn(t, ctx, ts.URL)
		crawlAdmin(t, ctx, ts.URL)
	})
}

// downloadLink is an admin link to a file, not a page.
var downloadLink = regexp.MustCompile(`\.(csv|json|jsonl|svg|png|pdf|tex|tsv|txt|R|zip|md)$|/export/|/template/|/debug/pprof`)

// pageKey names the page a path shows: numbers are one page of many.
var numberInPath = regexp.MustCompile(`/\d+`)

var audited = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// auditedOnce says whether the page is audited for the first time in
// this run of the tests, and remembers it.
func auditedOnce(page string) bool {
	audited.Lock()
	defer audited.Unlock()
	if audited.m[page] {
		return false
	}
	audited.m[page] = true
	return true
}

// crawlAdmin visits every admin page reachable by links from the
// dashboard (one of each kind: /items/5/edit stands for every item's),
// plus extra paths, at both widths: each is audited by axe and, at
// 390 px, may not scroll sideways. It returns the pages visited.
func crawlAdmin(t *testing.T, ctx context.Context, base string, extra ...string) []string {
	t.Helper()
	seen := map[string]bool{}
	var pages []string
	queue := append([]string{"/admin"}, extra...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		key := numberInPath.ReplaceAllString(strings.SplitN(p, "?", 2)[0], "/N")
		if seen[key] || downloadLink.MatchString(strings.SplitN(p, "?", 2)[0]) {
			continue
		}
		seen[key] = true
		pages = append(pages, p)
		setWidth(t, ctx, 1280)
		// Waited for in the page's own JavaScript: chromedp's DOM queries
		// (WaitVisible) can keep watching the previous document after a
		// navigation and never see the new one's main — the crawl stalled
		// after the jobs page, whatever page came next, while the page
		// itself was complete.
		if _, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: base + p}); err != nil {
			t.Fatalf("open %s: %v", p, err)
		}
		waitJS(t, ctx, "open "+p, `location.pathname + location.search === `+strconv.Quote(p)+` && document.readyState !== "loading" && document.querySelector("main") !== null`)
		links := get(t, ctx, "links of "+p, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll('a[href^="/admin"]')).map(a => a.getAttribute("href").split("#")[0])`))
		sort.Strings(links)
		queue = append(queue, links...)
		// A page another crawl of this run audited already (the accounts,
		// the metrics: the same page whatever the studies) is not audited
		// twice; pages of a study are told apart by their title, which
		// names the study.
		title := get(t, ctx, "title of "+p, chromedp.Evaluate[string](`document.title`))
		if !auditedOnce(key + "|" + title) {
			continue
		}
		for _, w := range widths {
			setWidth(t, ctx, w)
			if w < 500 {
				noSideways(t, ctx, p, w)
			}
			axeAudit(t, ctx, fmt.Sprintf("%s at %d px", p, w))
		}
		screenshot(t, ctx, "a11y"+strings.ReplaceAll(p, "/", "_"))
	}
	return pages
}

// logIn opens the login page (audited too) and logs in as researcher.
func logIn(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	step(t, ctx, "login page", chromedp.Navigate(base+"/admin/login"), chromedp.WaitVisible(`input[name="username"]`), pageLoaded())
	auditHere(t, ctx, "the login page")
	step(t, ctx, "log in", chromedp.SendKeys(`input[name="username"]`, researcher), chromedp.SendKeys(`input[name="password"]`, researcherPassword),
		chromedp.Submit(`input[name="password"]`), chromedp.WaitVisible(testID("studies")))
}

// TestAccessibilityAdminPages audits the admin pages of an expert study
// with answers and flags, a finished scoring job, a re-import waiting for
// its preview and a drop to confirm, beside an empty crowd study (the
// crowd, context and explanation studies with answers are audited by
// TestAccessibilityEveryPage after their participants' walks).
func TestAccessibilityAdminPages(t *testing.T) {
	ts, db, studyID := startAdminStudies(t)
	bg := context.Background()
	svc := studies.New(db, nil)
	job, err := svc.LaunchJob(bg, runner.Spec{StudyID: studyID, Task: scoring.TrueFalse, Scorer: "always-true", Strategy: scoring.ZeroShot, Seed: 1}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.RunJob(bg, job.ID, os.Getenv, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../cli/demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	upload, err := db.SavePendingImport(bg, studyID, "items-fixed.jsonl", data)
	if err != nil {
		t.Fatal(err)
	}
	items, _ := db.ListItems(bg, studyID)
	ctx := newBrowser(t)
	logIn(t, ctx, ts.URL)
	pages := crawlAdmin(t, ctx, ts.URL,
		fmt.Sprintf("/admin/studies/%d", studyID),
		fmt.Sprintf("/admin/studies/%d/items/reimport/%d", studyID, upload),
		fmt.Sprintf("/admin/studies/%d/review/%d/drop", studyID, flaggedItem(items)),
		fmt.Sprintf("/admin/studies/%d/jobs/%d", studyID, job.ID))
	for _, want := range []string{"/accounts", "/metrics", "/review", "/analysis", "/jobs", "/prompts", "/delete", "/edit"} {
		if !containsSuffix(pages, want) {
			t.Errorf("no page ending in %s was audited (visited %v)", want, pages)
		}
	}
}

func flaggedItem(items []domain.Item) int64 {
	for _, it := range items {
		if it.Key == "sc1" {
			return it.ID
		}
	}
	return 0
}

func containsSuffix(pages []string, suffix string) bool {
	for _, p := range pages {
		if strings.HasSuffix(strings.SplitN(p, "?", 2)[0], suffix) {
			return true
		}
	}
	return false
}

// TestAccessibilityProlificPages audits the Prolific pages of a crowd
// study linked to a fake Prolific and synced: the participants with both
// statuses, the approval and the rejection pages.
func TestAccessibilityProlificPages(t *testing.T) {
	ctx := newBrowser(t)
	db := openStore(t)
	const psid = "64eeeeeeeeeeeeeeeeeeeeee"
	cs, _, vars := fakeProlific(t, db, psid)
	createResearcher(t, db)
	ts, _ := serve(t, db, web.Config{Getenv: func(k string) string { return vars[k] }})
	base := fmt.Sprintf("/admin/studies/%d/prolific", cs.ID)
	logIn(t, ctx, ts.URL)
	step(t, ctx, "link the study", chromedp.Navigate(ts.URL+base), chromedp.WaitVisible(testID("prolific-study-id")),
		chromedp.SendKeys(testID("prolific-study-id"), psid), chromedp.Submit(testID("prolific-study-id")),
		chromedp.WaitVisible(testID("sync")))
	step(t, ctx, "sync", chromedp.Click(testID("sync")), chromedp.WaitVisible(testID("never-"+prolifictest.PID(4))))
	for _, p := range []string{base, base + "/approve", base + "/reject?pid=" + prolifictest.PID(1)} {
		step(t, ctx, "open "+p, chromedp.Navigate(ts.URL+p), chromedp.WaitVisible("main h1"), pageLoaded())
		if get(t, ctx, "an error page?", chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="error"]')`)) {
			t.Errorf("%s shows an error", p)
		}
		setWidth(t, ctx, 390)
		noSideways(t, ctx, p, 390)
		auditHere(t, ctx, p)
	}
}

// waitJS waits, within the step limit, until expr is true in the page,
// asking again when the page's context is being replaced by a navigation.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepLimit)
	defer cancel()
	var last error
	for sctx.Err() == nil {
		ok, err := chromedp.Run(sctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		last = err
		select {
		case <-sctx.Done():
		case <-time.After(50 * time.Millisecond): // a poll interval, not a wait for a state
		}
	}
	t.Fatalf("%s: %v (last: %v)", what, sctx.Err(), last)
}
