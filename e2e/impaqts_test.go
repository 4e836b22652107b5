package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

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
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "e2e.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	data, err := os.ReadFile("../studies/testdata/impaqts-pid-sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string]*store.Study{}
	for _, kind := range []string{store.KindContext, store.KindExplain} {
		s := &store.Study{Kind: kind, Name: "IMPAQTS " + kind, Lang: "it", Seed: 5}
		ps, err := studies.ParsePassagesTSV(bytes.NewReader(data))
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
	cs := byKind[store.KindContext]
	if err := db.SaveContextSurveys(ctx, cs.ID, [][]string{{"22185", "37246"}}); err != nil {
		t.Fatal(err)
	}
	giulia, _ := db.CreateAnnotator(ctx, cs.ID, "Giulia")
	aid, err := db.AssignContextSurvey(ctx, cs.ID, giulia.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	es := byKind[store.KindExplain]
	if err := db.ImportOutputs(ctx, es.ID, []store.Output{
		{ItemKey: "22185", Strategy: "zero-shot", Model: "m", Output: "Gli altri partiti hanno svenduto i loro ideali."},
		{ItemKey: "37246", Strategy: "zero-shot", Model: "m", Output: "Il governo è diviso."},
	}); err != nil {
		t.Fatal(err)
	}
	anna, _ := db.CreateAnnotator(ctx, es.ID, "Anna")
	if _, err := db.AssignExplainScreens(ctx, es.ID, anna.ID, 45, 1); err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(ctx, web.Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts, db, fmt.Sprintf("/c/%s/s/%d", giulia.Token, aid), aid, "/x/" + anna.Token, anna.ID
}

// TestImpaqtsKeyboard answers one context question and one explanation
// screen in Chromium with the keyboard only: Tab and Enter ask for more
// context twice, Enter on the focused "sufficient" answers (stored 2/yes),
// and the key 3 rates an explanation "partially correct" and goes on.
func TestImpaqtsKeyboard(t *testing.T) {
	ctx := newBrowser(t)
	ts, db, survey, aid, rater, annaID := startImpaqts(t)

	step(t, ctx, "open question 1", chromedp.Navigate(ts.URL+survey+"/1"), chromedp.WaitVisible(testID("context-form")))
	step(t, ctx, "no context shown yet", chromedp.WaitNotPresent(testID("revealed")))
	// "sufficient" has the focus; Tab moves to "more context", Enter asks.
	step(t, ctx, "Tab, Enter: more context", chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`[data-shown="1"]`), chromedp.WaitVisible(testID("revealed")))
	step(t, ctx, "Tab, Enter: more context again", chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`[data-shown="2"]`))
	step(t, ctx, "Enter: sufficient", chromedp.KeyEvent("\r"), chromedp.WaitVisible(`form[action$="/2"]`))

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

	step(t, ctx, "open screen 1", chromedp.Navigate(ts.URL+rater+"/1"), chromedp.WaitVisible(testID("explain-form")))
	step(t, ctx, "key 3 rates and goes on", chromedp.KeyEvent("3"), chromedp.WaitVisible(`form[action$="/2"]`))
	screens, err := db.ExplainScreens(context.Background(), annaID)
	if err != nil {
		t.Fatal(err)
	}
	if screens[0].Judgment != "partially_correct" || screens[1].Judgment != "" {
		t.Fatalf("stored judgments %q, %q; want partially_correct and none", screens[0].Judgment, screens[1].Judgment)
	}
}
