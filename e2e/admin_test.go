package e2e

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"pragmalab/domain"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/store"
	"pragmalab/web"
)

// startAdminStudies serves the expert study of startExpertStudy with both
// experts' answers in (Ada flags every item whose key ends in 1, with
// alternatives), plus a crowd study, and an admin account.
func startAdminStudies(t *testing.T) (*httptest.Server, *store.DB, int64) {
	t.Helper()
	ts, db, _, _ := startExpertStudy(t)
	ts.Close()
	ctx := context.Background()
	all, _ := db.Studies(ctx)
	s := all[0]
	people, _ := db.Annotators(ctx, s.ID)
	for i, a := range people {
		as, _ := db.AnnotatorAssignments(ctx, a.ID)
		screens, _ := db.Screens(ctx, as[0].ID)
		for _, sc := range screens {
			j := domain.Judgement{Plausible: "yes", CancellationCorrect: "yes"}
			if i == 0 && strings.HasSuffix(sc.Item.Key, "1") {
				j = domain.Judgement{Plausible: "no", AltImplicature: "An alternative implicature that an expert typed for " + sc.Item.Key + ", long enough to wrap on a phone.",
					AltCancellation: "An alternative cancellation for " + sc.Item.Key + "."}
			}
			if err := db.SaveJudgement(ctx, a.ID, as[0].ID, sc.Position, j); err != nil {
				t.Fatal(err)
			}
		}
	}
	crowd := &domain.Study{Kind: domain.KindCrowd, Name: "Crowd likelihood, spring term (Prolific)", Lang: "en"}
	if err := db.CreateStudy(ctx, crowd); err != nil {
		t.Fatal(err)
	}
	createResearcher(t, db)
	ts, _ = serve(t, db, web.Config{})
	return ts, db, s.ID
}

// noSideways fails if the page scrolls sideways at the current width.
func noSideways(t *testing.T, ctx context.Context, what string, width int64) {
	t.Helper()
	if get(t, ctx, "measure "+what, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
		t.Errorf("%s at %d px scrolls sideways", what, width)
	}
}

// TestAdminPagesInBrowser opens the dashboard and the review page at a
// desktop and a phone width: every study's row with its counts and links,
// the copy button the script adds beside each link, and a review that says
// what to do when Accept is pressed with nothing chosen.
func TestAdminPagesInBrowser(t *testing.T) {
	ts, _, studyID := startAdminStudies(t)
	ctx := newBrowser(t)
	logInResearcher(t, ctx, ts.URL)
	row := fmt.Sprintf(`[data-testid="study-%d"]`, studyID)
	for _, width := range []int64{1280, 390} {
		var opts []chromedp.EmulateViewportOption
		if width < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		w := strconv.FormatInt(width, 10)
		step(t, ctx, "open the dashboard", chromedp.EmulateViewport(width, 900, opts...), chromedp.Navigate(ts.URL+"/admin"),
			chromedp.WaitVisible(chromedp.CSS(row)))
		text := get(t, ctx, "read the row", chromedp.Text(chromedp.CSS(row)))
		for _, want := range []string{"Keyboard study", "Expert validation", "Open", "16", "2 / 0", "40", "Progress", "Analysis", "Scoring"} {
			if !strings.Contains(text, want) {
				t.Errorf("%d px: dashboard row %q lacks %q", width, text, want)
			}
		}
		step(t, ctx, "the links are visible", chromedp.WaitVisible(chromedp.CSS(row+` [data-testid="analysis-link"]`)))
		noSideways(t, ctx, "the dashboard", width)
		screenshot(t, ctx, "dashboard-"+w)

		step(t, ctx, "open the review", chromedp.Navigate(fmt.Sprintf("%s/admin/studies/%d/review", ts.URL, studyID)),
			chromedp.WaitVisible(testID("flag-sc1")))
		step(t, ctx, "accept with nothing chosen", chromedp.Click(`[data-testid="flag-sc1"] [data-testid="accept"]`),
			chromedp.WaitVisible(testID("review-error")))
		msg := get(t, ctx, "read the message", chromedp.Text(testID("review-error")))
		if !strings.Contains(msg, "keep as is") || !strings.Contains(msg, "write my own fix") {
			t.Errorf("%d px: the message %q does not say what to do", width, msg)
		}
		noSideways(t, ctx, "the review page", width)
		screenshot(t, ctx, "review-"+w)
		screenshot(t, ctx, "review-card-"+w, testID("flag-sc1"))
	}

	// The study page lists the links with a copy button added by the
	// script; the field stays a read-only input to select without it.
	step(t, ctx, "open the study page", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(fmt.Sprintf("%s/admin/studies/%d", ts.URL, studyID)),
		chromedp.WaitVisible(testID("people")))
	n := get(t, ctx, "count the copy buttons", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="people"] [data-testid="copy"]').length`))
	ro := get(t, ctx, "read-only links", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="people"] input[readonly][data-copy]').length`))
	if n != 2 || ro != 2 {
		t.Errorf("%d copy buttons and %d read-only links, want 2 of each", n, ro)
	}
	screenshot(t, ctx, "study-1280")
}

// TestAdminFormsOnAPhone opens the pages of the everyday admin on a phone:
// correcting an item, the preview of a re-imported file, the delete page
// (asking a second time for answers never exported) and the drop
// confirmation. None may scroll sideways.
func TestAdminFormsOnAPhone(t *testing.T) {
	ts, db, studyID := startAdminStudies(t)
	bg := context.Background()
	items, _ := db.ListItems(bg, studyID)
	var sc1 domain.Item
	for _, it := range items {
		if it.Key == "sc1" {
			sc1 = it
		}
	}
	data, err := os.ReadFile("../cli/demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.Replace(string(data), sc1.Implicature, "A corrected implicature, long enough to need more than one line on a phone screen.", 1)
	upload, err := db.SavePendingImport(bg, studyID, "items-fixed.jsonl", []byte(fixed))
	if err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	step(t, ctx, "a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	logInResearcher(t, ctx, ts.URL)
	base := fmt.Sprintf("%s/admin/studies/%d", ts.URL, studyID)
	for _, p := range []struct{ name, path, wait string }{
		{"edit-item", fmt.Sprintf("/items/%d/edit", sc1.ID), "edit-item"},
		{"reimport", fmt.Sprintf("/items/reimport/%d", upload), "change-sc1"},
		{"delete", "/delete", "delete-form"},
	} {
		step(t, ctx, "open "+p.name, chromedp.Navigate(base+p.path), chromedp.WaitVisible(testID(p.wait)))
		noSideways(t, ctx, p.name, 390)
		screenshot(t, ctx, p.name+"-390")
	}
	step(t, ctx, "type the name", chromedp.SendKeys(`input[name="name"]`, "Keyboard study"), chromedp.Click(testID("delete")),
		chromedp.WaitVisible(testID("confirm-again")))
	noSideways(t, ctx, "delete, asked again", 390)
	screenshot(t, ctx, "delete-again-390")
	step(t, ctx, "drop sc1", chromedp.Navigate(base+"/review"), chromedp.Click(`[data-testid="flag-sc1"] [data-testid="drop"]`),
		chromedp.WaitVisible(testID("confirm-drop")))
	noSideways(t, ctx, "drop confirmation", 390)
	screenshot(t, ctx, "confirm-drop-390")
	step(t, ctx, "confirm the drop", chromedp.Click(testID("confirm")), chromedp.WaitVisible(testID("decided-sc1")))
	screenshot(t, ctx, "review-decided-390")
}
