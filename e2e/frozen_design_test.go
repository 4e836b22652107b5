package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestFrozenDesignInBrowser: on an open crowd study a researcher who
// changes the question above the scale on the settings form reads, at a desktop's and a
// phone's width, why it was refused and what to do instead — close and
// clone — with nothing saved, no sideways scrolling and no axe violation;
// the study page offers the design it opened with
// (docs/studies.md#frozen-design).
func TestFrozenDesignInBrowser(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudy(t)
	createResearcher(t, db)
	ctx := newBrowser(t)
	logInResearcher(t, ctx, ts.URL)
	study := fmt.Sprintf("%s/admin/studies/%d", ts.URL, studyID)
	for _, width := range []int64{1280, 390} {
		step(t, ctx, "the study page", chromedp.EmulateViewport(width, 900), chromedp.Navigate(study), chromedp.WaitVisible(testID("scale-points")))
		step(t, ctx, "a new question", chromedp.SetValue(testID("scale-question"), "How natural is this sentence?"), chromedp.Submit(testID("scale-question")),
			chromedp.WaitVisible(testID("error")))
		msg := get(t, ctx, "the refusal", chromedp.Text(testID("error")))
		for _, want := range []string{"design is frozen", "question", "close this study and clone it"} {
			if !strings.Contains(msg, want) {
				t.Errorf("at %d px the refusal does not say %q: %s", width, want, msg)
			}
		}
		noSideways(t, ctx, "the refused settings", width)
		axeAudit(t, ctx, fmt.Sprintf("refused settings at %d px", width))
		screenshot(t, ctx, fmt.Sprintf("frozen-design-%d", width))
		if _, set, err := db.CrowdStudy(t.Context(), studyID); err != nil || set.Question != "" {
			t.Fatalf("the refused question was saved: %+v %v", set, err)
		}
	}
	step(t, ctx, "the design it opened with", chromedp.Navigate(study), chromedp.WaitVisible(testID("download-opening-design")))
}
