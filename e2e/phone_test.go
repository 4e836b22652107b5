package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/store"
	"pragmalab/studies"
)

// touchScreen makes the page's media queries see a finger — no hover, a
// coarse pointer, as on a phone — or a mouse again; reloads see it.
func touchScreen(t *testing.T, ctx context.Context, on bool) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: on, MaxTouchPoints: 5}); err != nil {
		t.Fatal(err)
	}
}

// TestExpertScreenOnAPhone: the Yes/No answers are targets of at least
// 44 × 44 px on a phone, and once the implicature is judged not plausible
// the question about the cancellation leaves the screen (the server
// clears it too, for browsers that still show it).
func TestExpertScreenOnAPhone(t *testing.T) {
	ts, db, inv, aid := startExpertStudy(t)
	ctx := newBrowser(t)
	url := fmt.Sprintf("%s%s/b/%d/1?intro=seen", ts.URL, inv, aid)
	for _, w := range widths {
		setWidth(t, ctx, w)
		step(t, ctx, "open the first screen", chromedp.Navigate(url), chromedp.WaitVisible(testID("item-form")), pageLoaded())
		small := get(t, ctx, "measure Yes/No", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("fieldset.q label")).filter(l => { const r = l.getBoundingClientRect(); return r.height < 44 || r.width < 44; }).map(l => l.textContent.trim() + " " + Math.round(l.getBoundingClientRect().width) + "×" + Math.round(l.getBoundingClientRect().height))`))
		if len(small) > 0 {
			t.Errorf("%d px: Yes/No targets smaller than 44 × 44 px: %v", w, small)
		}
		step(t, ctx, "the cancellation question is asked", chromedp.WaitVisible(`fieldset[data-q="cancellation_correct"]`))
		step(t, ctx, "No on plausibility", chromedp.Click(`input[name="plausible"][value="no"]`),
			chromedp.WaitNotVisible(`fieldset[data-q="cancellation_correct"]`), chromedp.WaitVisible(`textarea[name="alt_implicature"]`))
		noSideways(t, ctx, "expert screen", w)
		screenshot(t, ctx, "expert-no-"+strconv.FormatInt(w, 10))
		step(t, ctx, "Yes brings it back", chromedp.Click(`input[name="plausible"][value="yes"]`),
			chromedp.WaitVisible(`fieldset[data-q="cancellation_correct"]`))
		screenshot(t, ctx, "expert-yes-"+strconv.FormatInt(w, 10))
	}
	// Without CSS hiding it, a cancellation answer sent with "No" is not kept.
	step(t, ctx, "answer No with a cancellation too", chromedp.Click(`input[name="plausible"][value="yes"]`),
		chromedp.Click(`input[name="cancellation_correct"][value="no"]`), chromedp.Click(`input[name="plausible"][value="no"]`),
		chromedp.Click(testID("next")), chromedp.WaitVisible(`form[action$="/2"]`))
	screens, err := db.Screens(context.Background(), aid)
	if err != nil {
		t.Fatal(err)
	}
	if a := screens[0].Answer; a == nil || a.Plausible != "no" || a.CancellationCorrect != "" {
		t.Fatalf("stored %+v, want plausible no and no cancellation answer", a)
	}
}

// TestCrowdScreenOnATouchPhone: on a touch screen the "press 1–7" hint
// stays hidden even once the script would show it (Tab), and the
// question's two lines stay inside their box; on a desktop Tab shows it.
func TestCrowdScreenOnATouchPhone(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudy(t)
	ctx := newBrowser(t)
	setWidth(t, ctx, 390)
	touchScreen(t, ctx, true)
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: fmt.Sprintf("%024x", 0x7007)}
	walk.toBatch(t, ctx)
	step(t, ctx, "Tab", chromedp.KeyEvent("\t"))
	if !get(t, ctx, "a touch screen", chromedp.Evaluate[bool](`matchMedia("(hover: none) and (pointer: coarse)").matches`)) {
		t.Fatal("the browser does not emulate a touch screen")
	}
	if get(t, ctx, "hint on a phone", chromedp.Evaluate[bool](`document.querySelector("[data-keys-hint]").offsetParent !== null`)) {
		t.Error("the keyboard hint is shown on a touch screen")
	}
	over := get(t, ctx, "legend in its box", chromedp.Evaluate[string](`(() => { const f = document.querySelector("fieldset.crowd-q"), l = f.querySelector("legend"); const fr = f.getBoundingClientRect(), lr = l.getBoundingClientRect(), bw = parseFloat(getComputedStyle(f).borderTopWidth); return lr.top < fr.top + bw ? "legend top " + lr.top + " above the box's border at " + (fr.top + bw) : ""; })()`))
	if over != "" {
		t.Errorf("390 px: the question overlaps its box: %s", over)
	}
	fits(t, ctx, 390)
	screenshot(t, ctx, "crowd-touch-390")
	touchScreen(t, ctx, false)
	setWidth(t, ctx, 1280)
	step(t, ctx, "Tab on a desktop", chromedp.KeyEvent("\t"))
	if !get(t, ctx, "hint on a desktop", chromedp.Evaluate[bool](`document.querySelector("[data-keys-hint]").offsetParent !== null`)) {
		t.Error("the keyboard hint is hidden on a desktop")
	}
	screenshot(t, ctx, "crowd-desktop-1280")
}

// TestContextAnswersEqualWeight: the context survey's two judgements look
// alike, so the page does not push one of them.
func TestContextAnswersEqualWeight(t *testing.T) {
	ts, _, ctxPath, _, _, _ := startImpaqts(t)
	ctx := newBrowser(t)
	for _, w := range widths {
		setWidth(t, ctx, w)
		step(t, ctx, "open the first question", chromedp.Navigate(ts.URL+ctxPath+"/1"), chromedp.WaitVisible(testID("sufficient")), pageLoaded())
		diff := get(t, ctx, "compare the answers", chromedp.Evaluate[string](`(() => { const a = getComputedStyle(document.querySelector('[data-testid="sufficient"]')), b = getComputedStyle(document.querySelector('[data-testid="more"]')); return ["backgroundColor", "color", "borderColor", "fontWeight", "fontSize"].filter(p => a[p] !== b[p]).map(p => p + ": " + a[p] + " / " + b[p]).join("; "); })()`))
		if diff != "" {
			t.Errorf("%d px: the two answers differ in %s", w, diff)
		}
		if over := get(t, ctx, "legend in its box", chromedp.Evaluate[bool](`(() => { const f = document.querySelector('[data-testid="context-form"] fieldset'); return f.querySelector("legend").getBoundingClientRect().top < f.getBoundingClientRect().top + parseFloat(getComputedStyle(f).borderTopWidth); })()`)); over {
			t.Errorf("%d px: the question overlaps its box", w)
		}
		noSideways(t, ctx, "context question", w)
		screenshot(t, ctx, "context-answers-"+strconv.FormatInt(w, 10))
	}
}

// TestAdminStudyPageOnAPhone: the study page does not scroll sideways at
// 390 px, and the buttons of "Manage this study" stand on one line each
// row, their tops aligned.
func TestAdminStudyPageOnAPhone(t *testing.T) {
	ts, db, _ := startAdminStudies(t)
	all, err := db.Studies(context.Background())
	if err != nil || len(all) < 2 {
		t.Fatalf("studies: %d, %v", len(all), err)
	}
	// The crowd study gets items, settings and batches: its page then
	// holds every panel.
	for _, st := range all {
		if st.Kind == domain.KindCrowd {
			crowdWithBatches(t, db, st.ID)
		}
	}
	ctx := newBrowser(t)
	logInResearcher(t, ctx, ts.URL)
	for _, st := range all {
		for _, w := range widths {
			setWidth(t, ctx, w)
			step(t, ctx, "open the study page", chromedp.Navigate(fmt.Sprintf("%s/admin/studies/%d", ts.URL, st.ID)), chromedp.WaitVisible(testID("manage-study")), pageLoaded())
			if got := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); got > int(w) {
				wide := get(t, ctx, "what is wide", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("main *")).filter(e => e.getBoundingClientRect().right > `+strconv.FormatInt(w, 10)+` + 1 && getComputedStyle(e).position !== "absolute").slice(0, 6).map(e => e.tagName + "." + e.className + "[" + (e.dataset.testid || "") + "] right=" + Math.round(e.getBoundingClientRect().right))`))
				t.Errorf("%d px: the study page is %d px wide: %v", w, got, wide)
			}
			step(t, ctx, "open Manage this study", chromedp.Click(`[data-testid="manage-study"] > summary`), chromedp.WaitVisible(testID("download-design")))
			misaligned := get(t, ctx, "align the buttons", chromedp.Evaluate[string](`(() => { const bs = Array.from(document.querySelectorAll('[data-testid="manage-study"] button, [data-testid="manage-study"] a.button')); const hs = bs.map(b => Math.round(b.getBoundingClientRect().height)); const out = []; if (Math.max(...hs) - Math.min(...hs) > 2) out.push("heights " + hs.join(",")); return out.join("; "); })()`))
			if misaligned != "" {
				t.Errorf("%d px: Manage this study: %s", w, misaligned)
			}
			name := st.Kind + "-" + strconv.FormatInt(w, 10)
			screenshot(t, ctx, "study-"+name)
			screenshot(t, ctx, "study-manage-"+name, testID("manage-study"))
		}
	}
}

// crowdWithBatches fills an empty crowd study with the demo's items,
// settings and batches.
func crowdWithBatches(t *testing.T, db *store.DB, studyID int64) {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile("../cli/demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	items, err := itemfiles.ParseItemsJSONL(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(ctx, studyID, items); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultCrowdSettings()
	set.BatchSize, set.CompletionCode = 10, "PHONE390"
	if err := db.SaveCrowdSettings(ctx, studyID, set); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildCrowdBatches(ctx, db, studyID, set, 7); err != nil {
		t.Fatal(err)
	}
}
