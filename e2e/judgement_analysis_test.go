package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/store/storetest"
	"pragmalab/web"
)

// TestJudgementAnalysisPageInBrowser: the Analysis page of a judgement
// study, as the researcher reads it at 1280 and 390 px — the mean rating
// per condition under the study's own condition names, the difference
// between them, no implicature wording — with no sideways scroll and no
// axe violation (docs/studies.md#judgement-analysis).
func TestJudgementAnalysisPageInBrowser(t *testing.T) {
	db := openStore(t)
	f := storetest.JudgementFixtureOn(t, db, 12)
	for p := range 8 {
		f.CompleteAttentive(t, func(n int, cond string) int {
			if cond == "kontrolle" {
				return 3 + (n*(p+1))%3
			}
			return 1 + (n+p/2)%3
		})
	}
	createResearcher(t, db)
	ts, _ := serve(t, db, web.Config{})
	ctx := newBrowser(t)
	logInResearcher(t, ctx, ts.URL)
	for _, w := range []int64{1280, 390} {
		setWidth(t, ctx, w)
		step(t, ctx, "the Analysis page", chromedp.Navigate(fmt.Sprintf("%s/admin/studies/%d/analysis", ts.URL, f.ID)), pageLoaded())
		text := get(t, ctx, "page text", chromedp.Text(chromedp.CSS("main")))
		for _, want := range []string{"kontrolle", "zielsatz"} {
			if !strings.Contains(text, want) {
				t.Errorf("at %d px the page lacks %q", w, want)
			}
		}
		for _, not := range []string{"implicature", "Implicature", "belief", "cancellation", "scalar"} {
			if strings.Contains(text, not) {
				t.Errorf("at %d px a judgement study's page speaks of %q", w, not)
			}
		}
		noSideways(t, ctx, "the judgement Analysis page", w)
		axeAudit(t, ctx, fmt.Sprintf("judgement Analysis page at %d px", w))
		screenshot(t, ctx, fmt.Sprintf("judgement-analysis-%d", w))
	}
}
