package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Every participant screen can be answered with the keyboard alone — Tab
// to a control, Space to choose, arrows within a radio group, Enter to
// send — and says where the participant stands to a screen reader (a
// <progress> inside its label). One test per study kind walks a whole
// batch so, with no click and no shortcut key.

// focused tells whether the focused element matches css.
func focused(t *testing.T, ctx context.Context, css string) bool {
	return get(t, ctx, "focus", chromedp.Evaluate[bool](fmt.Sprintf(`!!document.activeElement && document.activeElement.matches(%q)`, css)))
}

// tabTo presses Tab until the element matching css has the focus.
func tabTo(t *testing.T, ctx context.Context, what, css string) {
	t.Helper()
	for range 60 {
		if focused(t, ctx, css) {
			return
		}
		step(t, ctx, what+": Tab", chromedp.KeyEvent("\t"))
	}
	t.Fatalf("%s: Tab never reached %s", what, css)
}

// focusVisible fails when the focused control has no visible outline.
func focusVisible(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if !get(t, ctx, what, chromedp.Evaluate[bool](`(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0; })()`)) {
		t.Errorf("%s: the focused control shows no focus outline", what)
	}
}

// progressAnnounced fails when the page has no <progress> with an
// accessible label naming the count (Progress: 3 / 20).
func progressAnnounced(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	ok := get(t, ctx, what, chromedp.Evaluate[bool](`(() => { const p = document.querySelector("progress"); const l = p && p.closest("label"); return !!l && /\d+ \/ \d+/.test(l.textContent); })()`))
	if !ok {
		t.Errorf("%s: no labelled progress for a screen reader", what)
	}
}

// chooseRadio tabs into the radio group name, checks its first option
// with Space and moves right k times (each arrow checks the next one).
func chooseRadio(t *testing.T, ctx context.Context, what, name string, k int) {
	t.Helper()
	css := fmt.Sprintf(`input[type=radio][name=%q]`, name)
	if name == "" { // the crowd's rating, whose name is drawn per participant
		css = `[data-testid=rating-form] input[type=radio]`
	}
	tabTo(t, ctx, what, css)
	focusVisible(t, ctx, what+" (radio focus)")
	acts := []chromedp.Action[chromedp.Void]{chromedp.KeyEvent(" ")}
	for range k {
		acts = append(acts, chromedp.KeyEvent(kb.ArrowRight))
	}
	step(t, ctx, what+": choose", acts...)
}

// send tabs to the form's button and presses Enter.
func send(t *testing.T, ctx context.Context, what, button string) {
	t.Helper()
	tabTo(t, ctx, what, button)
	step(t, ctx, what+": Enter", chromedp.KeyEvent("\r"))
}

// waitLeft waits until the page is no longer the form to action and the
// next page has loaded; a poll cut by the navigation itself is tried again.
func waitLeft(t *testing.T, ctx context.Context, action string) {
	t.Helper()
	cond := fmt.Sprintf(`!document.querySelector('[data-testid=item-form][action=%q]') && document.readyState === "complete"`, action)
	for attempt := 1; ; attempt++ {
		sctx, cancel := context.WithTimeout(ctx, stepLimit)
		err := chromedp.Do(sctx, chromedp.Poll[chromedp.Void](cond))
		cancel()
		if err == nil {
			return
		}
		if attempt < 5 && (strings.Contains(err.Error(), "navigated or closed") || strings.Contains(err.Error(), "Cannot find context")) {
			continue
		}
		t.Fatalf("leaving %s: %v", action, err)
	}
}

func TestKeyboardOnlyCrowd(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudy(t)
	ctx := newBrowser(t)
	trap := trapProlific(t, ctx)
	training, _ := db.CrowdTraining(context.Background(), studyID)
	const pid = "80f1a2b3c4d5e6f7a8b9c0d3"
	step(t, ctx, "arrive", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%s&STUDY_ID=st&SESSION_ID=se", ts.URL, studyID, pid)),
		chromedp.WaitVisible(testID("consent")), pageLoaded())
	fits(t, ctx, 390)
	screenshot(t, ctx, "crowd-consent-390")
	step(t, ctx, "desktop", chromedp.EmulateViewport(1280, 900))
	screenshot(t, ctx, "crowd-consent-1280")
	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	send(t, ctx, "consent", `[data-testid="agree"]`)
	for i, sc := range training {
		waitScreen(t, ctx, i+1)
		progressAnnounced(t, ctx, fmt.Sprintf("practice %d", i+1))
		k := 5 // 6
		if sc.Condition == "cancel" {
			k = 1 // 2
		}
		chooseRadio(t, ctx, fmt.Sprintf("practice %d", i+1), "", k)
		send(t, ctx, fmt.Sprintf("practice %d", i+1), `[data-testid="next"]`)
	}
	step(t, ctx, "end of the practice", chromedp.WaitVisible(testID("practice-end")), pageLoaded())
	send(t, ctx, "begin", `[data-testid="begin"]`)
	p := crowdParticipant(t, db, studyID, pid)
	for pos := 1; pos <= p.Screens; pos++ {
		waitScreen(t, ctx, pos)
		if pos == 1 {
			fits(t, ctx, 390)
			screenshot(t, ctx, "crowd-item-keyboard-390")
		}
		progressAnnounced(t, ctx, fmt.Sprintf("screen %d", pos))
		title := get(t, ctx, "heading", chromedp.Evaluate[string](`document.querySelector("h1").textContent`))
		if want := fmt.Sprintf("Question %d of %d", pos, p.Screens); title != want {
			t.Fatalf("screen %d: heading %q, want %q", pos, title, want)
		}
		chooseRadio(t, ctx, fmt.Sprintf("screen %d", pos), "", pos%7)
		send(t, ctx, fmt.Sprintf("screen %d", pos), `[data-testid="next"]`)
	}
	step(t, ctx, "completion page", chromedp.WaitVisible(testID("completion-code")), pageLoaded())
	send(t, ctx, "back to Prolific", `[data-testid="to-prolific"]`)
	if u := trap.wait(t, "https://app.prolific.com/"); !strings.HasSuffix(u, "cc=E2ECODE7") {
		t.Fatalf("sent to %s", u)
	}
	rs, _ := db.CrowdRatings(context.Background(), p.ID)
	if len(rs) != p.Screens {
		t.Fatalf("%d ratings stored for %d screens", len(rs), p.Screens)
	}
	for _, r := range rs {
		if r.Rating != r.Position%7+1 {
			t.Fatalf("screen %d stored %d, chose %d", r.Position, r.Rating, r.Position%7+1)
		}
	}
}

func TestKeyboardOnlyExpert(t *testing.T) {
	ctx := newBrowser(t)
	ts, db, inv, aid := startExpertStudy(t)
	step(t, ctx, "open the batch", chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(fmt.Sprintf("%s%s/b/%d", ts.URL, inv, aid)), pageLoaded())
	for n := 0; ; n++ {
		if n > 200 {
			t.Fatal("the batch never ended")
		}
		page := get(t, ctx, "which page", chromedp.Evaluate[string](`(() => { const m = document.querySelector("main"); return m && m.dataset.testid || (document.querySelector("[data-testid=item-form]") ? "item" : ""); })()`))
		switch {
		case page == "done":
			screens, _ := db.Screens(context.Background(), aid)
			for i, s := range screens {
				if s.Answer == nil || s.Answer.Plausible != "yes" || s.Answer.CancellationCorrect != "yes" {
					t.Fatalf("screen %d stored %+v, want yes/yes", i+1, s.Answer)
				}
			}
			return
		case strings.HasPrefix(page, "intro-"):
			send(t, ctx, page, `[data-testid="begin"]`)
		case page == "item":
			action := get(t, ctx, "form", chromedp.Evaluate[string](`document.querySelector("[data-testid=item-form]").getAttribute("action")`))
			progressAnnounced(t, ctx, action)
			chooseRadio(t, ctx, action+" plausible", "plausible", 0)
			chooseRadio(t, ctx, action+" cancellation", "cancellation_correct", 0)
			send(t, ctx, action, `[data-testid="next"]`)
			waitLeft(t, ctx, action)
			continue
		default:
			t.Fatalf("unexpected page %q", page)
		}
		step(t, ctx, "next page", chromedp.WaitVisible(`main`), pageLoaded())
	}
}

func TestKeyboardOnlyContext(t *testing.T) {
	ctx := newBrowser(t)
	ts, db, survey, aid, _, _ := startImpaqts(t)
	// The context survey: every question answered "sufficient".
	step(t, ctx, "open the survey", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(ts.URL+survey+"/1"), chromedp.WaitVisible(testID("context-form")), pageLoaded())
	qs, _ := db.ContextQuestions(context.Background(), aid)
	for pos := 1; pos <= len(qs); pos++ {
		step(t, ctx, fmt.Sprintf("question %d", pos), chromedp.WaitVisible(fmt.Sprintf(`form[action$="/%d"]`, pos)), pageLoaded())
		progressAnnounced(t, ctx, fmt.Sprintf("question %d", pos))
		send(t, ctx, fmt.Sprintf("question %d", pos), `[data-testid="sufficient"]`)
	}
	step(t, ctx, "survey done", chromedp.WaitVisible(testID("done")))
	qs, _ = db.ContextQuestions(context.Background(), aid)
	for _, q := range qs {
		if q.Sufficient != "yes" {
			t.Fatalf("question %d stored %q", q.Position, q.Sufficient)
		}
	}
}

func TestKeyboardOnlyExplain(t *testing.T) {
	ctx := newBrowser(t)
	ts, db, _, _, rater, annaID := startImpaqts(t)
	// The explanation ratings: each screen rated 2 (one arrow from 1).
	step(t, ctx, "open the ratings", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(ts.URL+rater+"/1"), chromedp.WaitVisible(testID("explain-form")), pageLoaded())
	screens, _ := db.ExplainScreens(context.Background(), annaID)
	for pos := 1; pos <= len(screens); pos++ {
		step(t, ctx, fmt.Sprintf("explanation %d", pos), chromedp.WaitVisible(fmt.Sprintf(`form[action$="/%d"]`, pos)), pageLoaded())
		progressAnnounced(t, ctx, fmt.Sprintf("explanation %d", pos))
		chooseRadio(t, ctx, fmt.Sprintf("explanation %d", pos), "judgment", 1)
		send(t, ctx, fmt.Sprintf("explanation %d", pos), `[data-testid="next"]`)
	}
	step(t, ctx, "ratings done", chromedp.WaitVisible(testID("done")))
	screens, _ = db.ExplainScreens(context.Background(), annaID)
	for _, s := range screens {
		if s.Judgment == "" {
			t.Fatalf("screen %+v has no judgment", s)
		}
	}
}
