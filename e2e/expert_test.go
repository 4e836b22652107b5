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

	"github.com/chromedp/chromedp"

	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/web"
)

// startExpertStudy serves a fresh database holding the demo items in one
// expert batch assigned to one expert, and returns the server, the database
// and the expert's invitation path.
func startExpertStudy(t *testing.T) (*httptest.Server, *store.DB, string, int64) {
	t.Helper()
	ctx := context.Background()
	db := openStore(t)
	s := &domain.Study{Kind: domain.KindExpert, Name: "Keyboard study", Lang: "en", Seed: 3}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../cli/demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	items, err := itemfiles.ParseItemsJSONL(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(ctx, s.ID, items); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildExpertBatches(ctx, db, s, domain.ExpertSettings{BatchSize: 20, Checks: 4}); err != nil {
		t.Fatal(err)
	}
	bs, _ := db.Batches(ctx, s.ID)
	a1, _ := db.CreateAnnotator(ctx, s.ID, "Ada")
	a2, _ := db.CreateAnnotator(ctx, s.ID, "Ben")
	if err := db.AssignRound1(ctx, s.ID, bs[0].ID, []int64{a1.ID, a2.ID}); err != nil {
		t.Fatal(err)
	}
	as, _ := db.AnnotatorAssignments(ctx, a1.ID)
	if err := studies.OpenStudy(ctx, db, s.ID, ""); err != nil {
		t.Fatal(err)
	}
	ts, _ := serve(t, db, web.Config{})
	return ts, db, "/e/" + a1.Token, as[0].ID
}

// TestExpertKeyboard answers two expert screens with the keyboard only:
// Y/N pick the answer of the current question, Enter saves and goes on, and
// the alternative box appears when an answer is no.
func TestExpertKeyboard(t *testing.T) {
	ctx := newBrowser(t)
	ts, db, inv, aid := startExpertStudy(t)
	base := fmt.Sprintf("%s%s/b/%d", ts.URL, inv, aid)

	step(t, ctx, "open the first screen", chromedp.Navigate(base), chromedp.WaitVisible(testID("intro-scalar")))
	// The "begin" link has the focus: Enter follows it.
	step(t, ctx, "begin with Enter", chromedp.KeyEvent("\r"), chromedp.WaitVisible(testID("item-form")))
	step(t, ctx, "Y, Y, Enter", chromedp.KeyEvent("y"), chromedp.KeyEvent("y"), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`form[action$="/2"]`))
	step(t, ctx, "no alternative box before a no", chromedp.WaitNotVisible(`textarea[name="alt_implicature"]`))
	step(t, ctx, "N shows the alternative box", chromedp.KeyEvent("n"), chromedp.WaitVisible(`textarea[name="alt_implicature"]`))
	step(t, ctx, "type an alternative", chromedp.Click(`textarea[name="alt_implicature"]`), chromedp.SendKeys(`textarea[name="alt_implicature"]`, "A better one."))
	// Typing in the box must not answer questions: "n" and "y" were typed.
	step(t, ctx, "save with the button", chromedp.Click(testID("next")), chromedp.WaitVisible(`form[action$="/3"]`))

	screens, err := db.Screens(context.Background(), aid)
	if err != nil {
		t.Fatal(err)
	}
	a1, a2 := screens[0].Answer, screens[1].Answer
	if a1 == nil || a1.Plausible != "yes" || a1.CancellationCorrect != "yes" {
		t.Fatalf("screen 1 stored %+v, want yes/yes", a1)
	}
	if a2 == nil || a2.Plausible != "no" || a2.CancellationCorrect != "" || a2.AltImplicature != "A better one." {
		t.Fatalf("screen 2 stored %+v, want no/(empty) with the typed alternative", a2)
	}
	if screens[2].Answer != nil {
		t.Fatal("screen 3 has an answer nobody gave")
	}
}
