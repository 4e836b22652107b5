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
	ts, db, studyID, _ := startCrowdStudyWith(t, "en", func(set *domain.CrowdSettings) {
		set.Questionnaire = domain.QuestionnaireSettings{Languages: true, Age: true, Gender: true, Comments: true}
	})
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
			step(t, ctx, "screen size", vp)
			page := map[string]string{"consent": "landing", "practice": "training", "practice-end": "practice-end", "screen": "item", "questionnaire": "questionnaire"}
			walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: fmt.Sprintf("%024x", 0xabcdef00+i), at: func(at string) {
				if at == "consent" && c.width < 500 {
					// A phone's pointer is a finger.
					if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
						t.Fatal(err)
					}
				}
				if page[at] == "" {
					return
				}
				fits(t, ctx, c.width)
				screenshot(t, ctx, "crowd-"+page[at]+"-"+c.name)
				if at == "screen" {
					scaleShown(t, ctx, c.js && c.width > 500)
				}
			}}
			walk.walk(t, ctx)
		})
	}
}

// scaleShown checks a rating screen: the keyboard hint is shown exactly
// when want, and the scale's end labels are not cut.
func scaleShown(t *testing.T, ctx context.Context, want bool) {
	t.Helper()
	// Shown means seen: the hidden attribute must win over the CSS.
	hint := get(t, ctx, "keyboard hint", chromedp.Evaluate[bool](`document.querySelector("[data-keys-hint]").offsetParent !== null`))
	if hint != want {
		coarse := get(t, ctx, "pointer", chromedp.Evaluate[bool](`matchMedia("(pointer: coarse)").matches`))
		t.Errorf("keyboard hint shown = %v, want %v (pointer coarse: %v)", hint, want, coarse)
	}
	// The end labels: each wholly inside the page.
	cut := get(t, ctx, "scale ends", chromedp.Evaluate[bool](`Array.from(document.querySelectorAll(".likert-ends span")).some(s => { const r = s.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth || s.scrollWidth > s.clientWidth + 1; })`))
	if cut {
		t.Error("a scale end label is cut")
	}
}

// fits fails when the page is wider than the screen.
func fits(t *testing.T, ctx context.Context, width int) {
	t.Helper()
	if w := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > width {
		t.Errorf("the page is %d px wide on a %d px screen", w, width)
	}
}
