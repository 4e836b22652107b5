package e2e

import (
	"context"
	"fmt"
	"pragmalab/domain"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestCrowdPagesLayout walks a crowd participant through landing,
// training, the end of practice and a batch screen at 390 px and 1280 px,
// with JavaScript and without: no page is wider than the screen, the
// scale's end labels are not cut, and the keyboard hint shows only where
// the script runs on a desktop. With PRAGMALAB_SCREENSHOTS set it saves a
// screenshot of each page.
func TestCrowdPagesLayout(t *testing.T) {
	ts, db, studyID, set := startCrowdStudy(t)
	set.Questionnaire = domain.QuestionnaireSettings{Languages: true, Age: true, Gender: true, Comments: true}
	if err := db.SaveCrowdSettings(context.Background(), studyID, set); err != nil {
		t.Fatal(err)
	}
	training, _ := db.CrowdTraining(context.Background(), studyID)
	for i, c := range []struct {
		name  string
		width int
		js    bool
	}{{"phone-js", 390, true}, {"phone-nojs", 390, false}, {"desktop-js", 1280, true}, {"desktop-nojs", 1280, false}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := newBrowser(t)
			if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !c.js}); err != nil {
				t.Fatal(err)
			}
			vp := chromedp.EmulateViewport(int64(c.width), 844)
			if c.width < 500 {
				vp = chromedp.EmulateViewport(int64(c.width), 844, chromedp.EmulateMobile)
			}
			pid := fmt.Sprintf("%024x", 0xabcdef00+i)
			step(t, ctx, "landing", vp,
				chromedp.Navigate(fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%s&STUDY_ID=st&SESSION_ID=se%d", ts.URL, studyID, pid, i)),
				chromedp.WaitVisible(testID("consent")))
			if c.width < 500 {
				// A phone's pointer is a finger.
				if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
					t.Fatal(err)
				}
			}
			fits(t, ctx, c.width)
			screenshot(t, ctx, "crowd-landing-"+c.name)
			step(t, ctx, "consent", chromedp.Click(testID("agree")), chromedp.WaitVisible(testID("training")))
			fits(t, ctx, c.width)
			screenshot(t, ctx, "crowd-training-"+c.name)
			for k, sc := range training {
				key := "6"
				if sc.Condition == "cancel" {
					key = "2"
				}
				answerScreen(t, ctx, fmt.Sprintf("training %d", k+1),
					chromedp.CSS(fmt.Sprintf(`[data-testid="item"][data-position="%d"]`, k+1)), "rating-"+key, "next")
			}
			step(t, ctx, "end of practice", chromedp.WaitVisible(testID("practice-end")))
			fits(t, ctx, c.width)
			screenshot(t, ctx, "crowd-practice-end-"+c.name)
			step(t, ctx, "begin", chromedp.Click(testID("begin")), chromedp.WaitVisible(testID("rating-form")), pageLoaded())
			fits(t, ctx, c.width)
			screenshot(t, ctx, "crowd-item-"+c.name)
			// Shown means seen: the hidden attribute must win over the CSS.
			hint := get(t, ctx, "keyboard hint", chromedp.Evaluate[bool](`document.querySelector("[data-keys-hint]").offsetParent !== null`))
			if want := c.js && c.width > 500; hint != want {
				coarse := get(t, ctx, "pointer", chromedp.Evaluate[bool](`matchMedia("(pointer: coarse)").matches`))
				t.Errorf("keyboard hint shown = %v, want %v (pointer coarse: %v)", hint, want, coarse)
			}
			// The end labels: each wholly inside the page.
			cut := get(t, ctx, "scale ends", chromedp.Evaluate[bool](`Array.from(document.querySelectorAll(".likert-ends span")).some(s => { const r = s.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth || s.scrollWidth > s.clientWidth + 1; })`))
			if cut {
				t.Error("a scale end label is cut")
			}
			// The rest of the batch, then the questionnaire.
			p := crowdParticipant(t, db, studyID, pid)
			for pos := 1; pos <= p.Screens; pos++ {
				answerScreen(t, ctx, fmt.Sprintf("answer %d", pos),
					chromedp.CSS(fmt.Sprintf(`[data-testid="item"][data-position="%d"]`, pos)), "rating-4", "next")
			}
			step(t, ctx, "questionnaire", chromedp.WaitVisible(testID("q-languages")))
			fits(t, ctx, c.width)
			screenshot(t, ctx, "crowd-questionnaire-"+c.name)
			step(t, ctx, "send", chromedp.SendKeys(`input[name="native_languages"]`, "Italian"), chromedp.Click(testID("q-send")),
				chromedp.WaitVisible(testID("completion-code")))
		})
	}
}

// fits fails when the page is wider than the screen.
func fits(t *testing.T, ctx context.Context, width int) {
	t.Helper()
	if w := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > width {
		t.Errorf("the page is %d px wide on a %d px screen", w, width)
	}
}
