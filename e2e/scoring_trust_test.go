package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"pragmalab/domain"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/runner"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
	"pragmalab/web"
)

// crowdRatings makes a crowd study over the same items, rated by four
// participants through the store as the participant pages would.
func crowdRatings(t *testing.T, db *store.DB, items []domain.Item) int64 {
	t.Helper()
	ctx := context.Background()
	cs := &domain.Study{Kind: domain.KindCrowd, Name: "Crowd ratings", Lang: "en"}
	if err := db.CreateStudy(ctx, cs); err != nil {
		t.Fatal(err)
	}
	all := append(append([]domain.Item(nil), items...),
		domain.Item{Key: "chk-high", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "high"},
		domain.Item{Key: "chk-low", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "low"})
	if err := db.ImportItems(ctx, cs.ID, all); err != nil {
		t.Fatal(err)
	}
	stored, _ := db.ListItems(ctx, cs.ID)
	id := map[string]int64{}
	for _, it := range stored {
		id[it.Key] = it.ID
	}
	slot := func(k, c string) store.CrowdSlot { return store.CrowdSlot{ItemID: id[k], Condition: c} }
	var b1, b2 []store.CrowdSlot
	for i, it := range items {
		c1, c2 := "trigger", "cancel"
		if i%2 == 1 {
			c1, c2 = c2, c1
		}
		b1, b2 = append(b1, slot(it.Key, c1)), append(b2, slot(it.Key, c2))
	}
	checks := []store.CrowdSlot{slot("chk-low", "trigger"), slot("chk-high", "trigger")}
	if err := db.SaveCrowdBatches(ctx, cs.ID, 1, []store.CrowdSlot{slot(items[0].Key, "trigger"), slot(items[1].Key, "cancel")}, [][]store.CrowdSlot{append(b1, checks...), append(b2, checks...)}); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode = "DONE"
	if err := db.SaveCrowdSettings(ctx, cs.ID, set); err != nil {
		t.Fatal(err)
	}
	for p := range 4 {
		part, err := db.EnterCrowd(ctx, cs.ID, store.CrowdArrival{PID: fmt.Sprintf("%024x", p+1), StudyID: "s", SessionID: fmt.Sprintf("sess%d", p)}, set)
		if err != nil {
			t.Fatal(err)
		}
		// The batch is assigned at consent.
		if part, err = db.ConsentCrowd(ctx, cs.ID, part.Token, set); err != nil {
			t.Fatal(err)
		}
		for pos, r := range []int{6, 2} {
			if _, err := db.AnswerCrowdTraining(ctx, cs.ID, part.Token, pos+1, 0, r, 0, set); err != nil {
				t.Fatal(err)
			}
		}
		screens, err := db.CrowdBatchScreens(ctx, part.BatchID)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range screens {
			r := 1 + (len(sc.Item.Key)*3+sc.Position*5+p)%7
			switch {
			case sc.Item.Key == "chk-high":
				r = 7
			case sc.Item.Key == "chk-low":
				r = 1
			case sc.Condition == "cancel":
				r = max(1, r-3)
			}
			if _, err := db.SaveCrowdRating(ctx, cs.ID, part.Token, sc.Position, r, 0, set); err != nil {
				t.Fatal(err)
			}
		}
	}
	return cs.ID
}

// TestPartialJobPageOnPhoneAndDesktop runs a model job whose prompts of
// one item fail, compared with a crowd study, and reads its page in
// Chromium at 390 px and 1280 px: the state, the reasons, the item-level
// correlation with its interval, and no sideways scrolling of the page.
// With PRAGMALAB_SCREENSHOTS=dir the two screenshots are written there.
func TestPartialJobPageOnPhoneAndDesktop(t *testing.T) {
	ctx := newBrowser(t)
	bg := context.Background()
	db := openStore(t)
	items := runner.SyntheticItems(8)
	s := &domain.Study{Kind: domain.KindExpert, Name: "Scoring study", Lang: "en"}
	if err := db.CreateStudy(bg, s); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(bg, s.ID, items); err != nil {
		t.Fatal(err)
	}
	crowd := crowdRatings(t, db, items)
	model := scoringtest.NewServer(0)
	t.Cleanup(model.Close)
	inner := model.Config.Handler
	model.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("task x003 for C")) {
			http.Error(w, `{"error":{"message":"This model's maximum context length is 4096 tokens","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		inner.ServeHTTP(w, r)
	})
	spec := runner.Spec{StudyID: s.ID, Task: "truefalse", Scorer: runner.ModelScorer, CompareStudyID: crowd}
	spec.Config.BaseURLs, spec.Config.Model = []string{model.URL + "/v1"}, "fake-7b-instruct"
	job, err := runner.Create(bg, db, spec, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.New(db, nil, func(string) string { return "" }, nil).RunJob(bg, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	createResearcher(t, db)
	ts, _ := serve(t, db, web.Config{})
	logInResearcher(t, ctx, ts.URL)
	jobURL := fmt.Sprintf("%s/admin/studies/%d/jobs/%d", ts.URL, s.ID, job.ID)
	for _, width := range []int64{390, 1280} {
		var opts []chromedp.EmulateViewportOption
		if width < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		step(t, ctx, "open the job page", chromedp.EmulateViewport(width, 900, opts...), chromedp.Navigate(jobURL), chromedp.WaitVisible(testID("job-reasons")))
		if st := get(t, ctx, "read the status", chromedp.Text(testID("job-state"))); st != "partial" {
			t.Errorf("%d px: status %q, want partial", width, st)
		}
		corr := get(t, ctx, "read the correlation", chromedp.Text(testID("human-correlation")))
		if !strings.Contains(corr, "95% CI [") || !strings.Contains(corr, "n = 7") {
			t.Errorf("%d px: correlation %q; want an interval over the 7 items with a P(b)", width, corr)
		}
		overflow := get(t, ctx, "measure the page", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
		if overflow {
			t.Errorf("%d px: the page scrolls sideways; wide tables must scroll in their own box", width)
		}
		screenshot(t, ctx, "job-"+strconv.FormatInt(width, 10))
		for _, part := range []string{"job-status", "job-failures", "comparison", "item-level", "job-prompts"} {
			screenshot(t, ctx, fmt.Sprintf("job-%d-%s", width, part), testID(part))
		}
	}
}
