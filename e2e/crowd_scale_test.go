package e2e

import (
	"fmt"
	"pragmalab/domain"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestCrowdFivePointScaleInBrowser: a crowd study with its own 5-point
// scale, labelled at both ends and the midpoint, shows that scale on the
// practice screen and in its feedback, at a phone's 390 px and a
// desktop's 1280 px, without sideways scrolling and with no axe violation
// (docs/studies.md#rating-scale).
func TestCrowdFivePointScaleInBrowser(t *testing.T) {
	ts, _, studyID, _ := startCrowdStudyWith(t, "en", func(set *domain.CrowdSettings) {
		set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 5, 4, 2
		set.ScaleLabels = map[string]string{"1": "surely not", "3": "can't tell", "5": "surely so"}
		set.Question = "How sure are you that this is meant?"
	})
	ctx := newBrowser(t)
	trapProlific(t, ctx)
	step(t, ctx, "arrive and consent",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%s&STUDY_ID=st&SESSION_ID=se", ts.URL, studyID, "70f1a2b3c4d5e6f7a8b9c0d5")),
		chromedp.WaitVisible(testID("consent")),
		chromedp.Click(testID("agree")),
		chromedp.WaitVisible(testID("training")),
	)
	check := func(what string) {
		t.Helper()
		for _, w := range widths {
			setWidth(t, ctx, w)
			points := get(t, ctx, what+": points", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=rating-form] input[type=radio]').length`))
			labels := get(t, ctx, what+": labels", chromedp.Evaluate[string](`document.querySelector('[data-testid="scale-labels"]').innerText`))
			question := get(t, ctx, what+": question", chromedp.Evaluate[string](`document.querySelector('legend').innerText`))
			sideways := get(t, ctx, what+": width", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
			if points != 5 || !strings.Contains(labels, "1 = surely not") || !strings.Contains(labels, "3 = can't tell") ||
				!strings.Contains(labels, "5 = surely so") || !strings.Contains(question, "How sure are you") || sideways {
				t.Fatalf("%s at %d px: %d points, labels %q, question %q, scrolls sideways %v", what, w, points, labels, question, sideways)
			}
			axeAudit(t, ctx, fmt.Sprintf("%s at %d px", what, w))
		}
	}
	check("5-point practice screen")
	stepRetry(t, ctx, "the midpoint", pageLoaded(), chromedp.Click(testID("rating-3")), chromedp.Click(testID("next")))
	step(t, ctx, "feedback", chromedp.WaitVisible(testID("try-again")))
	feedback := get(t, ctx, "feedback text", chromedp.Evaluate[string](`document.querySelector('[data-testid="try-again"]').innerText`))
	if !strings.Contains(feedback, "4–5") && !strings.Contains(feedback, "1–2") {
		t.Fatalf("the practice feedback does not name a side of the 5-point scale: %q", feedback)
	}
	check("5-point practice feedback")
}
