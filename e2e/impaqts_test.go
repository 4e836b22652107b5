package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/web"
)

// startImpaqts serves a fresh database with a context study (one survey of
// passages 22185 and 37246, one expert) and an explain study (two model
// outputs, one rater), both in Italian. It returns the server, the database,
// the context expert's survey path and assignment, and the rater's path.
func startImpaqts(t *testing.T) (*httptest.Server, *store.DB, string, int64, string, int64) {
	t.Helper()
	ctx := context.Background()
	db := openStore(t)
	data, err := os.ReadFile("../itemfiles/testdata/impaqts-pid-sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string]*domain.Study{}
	for _, kind := range []string{domain.KindContext, domain.KindExplain} {
		s := &domain.Study{Kind: kind, Name: "IMPAQTS " + kind, Lang: "it", Seed: 5}
		ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(data))
		if err == nil {
			err = db.CreateStudy(ctx, s)
		}
		if err == nil {
			err = db.ImportPassages(ctx, s.ID, ps)
		}
		if err != nil {
			t.Fatal(err)
		}
		byKind[kind] = s
	}
	cs := byKind[domain.KindContext]
	if err := db.SaveContextSurveys(ctx, cs.ID, [][]string{{"22185", "37246"}}); err != nil {
		t.Fatal(err)
	}
	giulia, _ := db.CreateAnnotator(ctx, cs.ID, "Giulia")
	aid, err := db.AssignContextSurvey(ctx, cs.ID, giulia.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	es := byKind[domain.KindExplain]
	if err := db.ImportOutputs(ctx, es.ID, []domain.Output{
		{ItemKey: "22185", Strategy: "zero-shot", Model: "m", Output: "Gli altri partiti hanno svenduto i loro ideali."},
		{ItemKey: "37246", Strategy: "zero-shot", Model: "m", Output: "Il governo è diviso."},
	}); err != nil {
		t.Fatal(err)
	}
	anna, _ := db.CreateAnnotator(ctx, es.ID, "Anna")
	if _, err := db.AssignExplainScreens(ctx, es.ID, anna.ID, 45, 1); err != nil {
		t.Fatal(err)
	}
	for _, s := range byKind {
		if err := studies.OpenStudy(ctx, db, s.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	ts, _ := serve(t, db, web.Config{})
	return ts, db, fmt.Sprintf("/c/%s/s/%d", giulia.Token, aid), aid, "/x/" + anna.Token, anna.ID
}

// TestImpaqtsKeyboard answers one context question and one explanation
// screen in Chromium with the keyboard only: Tab and Enter ask for more
// context twice, Tab and Enter on "sufficient" answer (stored 2/yes) —
// nothing is focused at first, so Enter alone answers nothing — and the
// key 3 rates an explanation "partially correct" and goes on. The five
// judgments stand in one row on a desktop and one under the other on a
// phone.
func TestImpaqtsKeyboard(t *testing.T) {
	ctx := newBrowser(t)
	ts, db, survey, aid, rater, annaID := startImpaqts(t)

	step(t, ctx, "open question 1", chromedp.Navigate(ts.URL+survey+"/1"), chromedp.WaitVisible(testID("context-form")))
	step(t, ctx, "no context shown yet", chromedp.WaitNotPresent(testID("revealed")))
	// Nothing is focused or chosen: Enter alone answers nothing.
	step(t, ctx, "Enter alone", chromedp.KeyEvent("\r"), chromedp.Sleep(300*time.Millisecond), chromedp.WaitVisible(`[data-shown="0"]`))
	if qs, _ := db.ContextQuestions(context.Background(), aid); qs[0].Shown != 0 || qs[0].Final() {
		t.Fatalf("Enter on an unfocused page answered: %+v", qs[0])
	}
	// Tab reaches "sufficient", a second Tab "more context"; Enter asks.
	step(t, ctx, "Tab, Tab, Enter: more context", chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`[data-shown="1"]`), chromedp.WaitVisible(testID("revealed")))
	step(t, ctx, "Tab, Tab, Enter: more context again", chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`[data-shown="2"]`))
	step(t, ctx, "Tab, Enter: sufficient", chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"), chromedp.WaitVisible(`form[action$="/2"]`))

	qs, err := db.ContextQuestions(context.Background(), aid)
	if err != nil {
		t.Fatal(err)
	}
	if q := qs[0]; q.Shown != 2 || q.Sufficient != "yes" {
		t.Fatalf("question 1 stored %d/%q, want 2/yes", q.Shown, q.Sufficient)
	}
	if q := qs[1]; q.Shown != 0 || q.Final() {
		t.Fatalf("question 2 stored %d/%q, nobody answered it", q.Shown, q.Sufficient)
	}

	step(t, ctx, "open screen 1", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(ts.URL+rater+"/1"), chromedp.WaitVisible(testID("explain-form")))
	rows := `new Set(Array.from(document.querySelectorAll("[data-testid=judgments] label")).map(l => Math.round(l.getBoundingClientRect().top))).size`
	if n := get(t, ctx, "rows of the judgments", chromedp.Evaluate[int](rows)); n != 1 {
		t.Errorf("the five judgments take %d rows at 1280 px, want 1", n)
	}
	screenshot(t, ctx, "explain-desktop")
	step(t, ctx, "phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	if n := get(t, ctx, "rows of the judgments", chromedp.Evaluate[int](rows)); n != 5 {
		t.Errorf("the five judgments take %d rows at 390 px, want 5", n)
	}
	fits(t, ctx, 390)
	screenshot(t, ctx, "explain-phone")
	step(t, ctx, "back to desktop", chromedp.EmulateViewport(1280, 900))
	step(t, ctx, "key 3 rates and goes on", chromedp.KeyEvent("3"), chromedp.WaitVisible(`form[action$="/2"]`))
	screens, err := db.ExplainScreens(context.Background(), annaID)
	if err != nil {
		t.Fatal(err)
	}
	if screens[0].Judgment != "partially_correct" || screens[1].Judgment != "" {
		t.Fatalf("stored judgments %q, %q; want partially_correct and none", screens[0].Judgment, screens[1].Judgment)
	}
}
