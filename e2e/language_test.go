package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestGermanCatalogPages walks a participant through a crowd study whose
// language is German, a language added by its catalog file only
// (i18n/catalogs/de.json): the consent page and a rating screen are in
// German, declared as such to screen readers (lang="de"), and pass the
// axe audit at 390 and 1280 px.
func TestGermanCatalogPages(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudyWith(t, "de", nil)
	ctx := newBrowser(t)
	want := map[string][]string{
		"consent": {"Wie wahrscheinlich ist es?", "Einwilligung", "Ich stimme zu — beginnen", "Ich stimme nicht zu"},
		"screen":  {"Wie wahrscheinlich ist es, angesichts dessen, was gesagt wurde, dass Folgendes zutrifft?", "absolut unmöglich", "absolut sicher", "Weiter"},
	}
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: fmt.Sprintf("%024x", 0xde00de), at: func(at string) {
		texts, ok := want[at]
		if !ok {
			return
		}
		if lang := get(t, ctx, "lang of "+at, chromedp.Evaluate[string](`document.documentElement.lang`)); lang != "de" {
			t.Errorf("%s: <html lang=%q>, want de", at, lang)
		}
		body := get(t, ctx, "text of "+at, chromedp.Text(chromedp.CSS("main")))
		for _, w := range texts {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks the German %q:\n%s", at, w, body)
			}
		}
		for _, en := range []string{"Consent", "I agree", "absolutely", "Given what was said"} {
			if strings.Contains(body, en) {
				t.Errorf("%s still shows the English %q", at, en)
			}
		}
		for _, w := range widths {
			setWidth(t, ctx, w)
			fits(t, ctx, int(w))
			axeAudit(t, ctx, fmt.Sprintf("German %s at %d px", at, w))
			screenshot(t, ctx, fmt.Sprintf("de-%s-%d", at, w))
		}
	}}
	walk.toBatch(t, ctx)
}
