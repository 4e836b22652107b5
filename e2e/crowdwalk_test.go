package e2e

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/domain"
	"pragmalab/store"
)

// crowdWalk is a crowd participant's walk through a study in the browser,
// the one fixture of the tests that take a participant through it:
// arrival with the Prolific parameters, consent, the practice answered
// right (after one wrong answer, if asked), its end, the batch's screens,
// the questionnaire when the study asks one, and the completion page.
// Each step waits for the page it leads to.
type crowdWalk struct {
	ts      *httptest.Server
	db      *store.DB
	studyID int64
	pid     string
	// query is the rest of the entry's query (STUDY_ID and SESSION_ID);
	// by default the study "st" and a session of the participant's own.
	query string
	// byKey answers with the keys 1–7; otherwise a rating and Next are
	// clicked (which works without JavaScript too).
	byKey bool
	// wrongFirst answers the first practice item wrong once, to reach its
	// "try again".
	wrongFirst bool
	// at, when set, runs on each page the walk reaches, once it has
	// loaded: "consent", "practice" (the first practice item),
	// "try-again", "practice-end", "screen" (the batch's first),
	// "questionnaire" and "completion".
	at func(page string)
}

func (w *crowdWalk) reached(page string) {
	if w.at != nil {
		w.at(page)
	}
}

// walk goes the whole way, to the completion page, rating every screen 4.
func (w *crowdWalk) walk(t *testing.T, ctx context.Context) {
	t.Helper()
	w.toBatch(t, ctx)
	w.finish(t, ctx)
}

// toBatch arrives, consents and does the practice, and stops on the
// batch's first screen, loaded.
func (w *crowdWalk) toBatch(t *testing.T, ctx context.Context) {
	t.Helper()
	training, err := w.db.CrowdTraining(context.Background(), w.studyID)
	if err != nil || len(training) == 0 {
		t.Fatalf("training items: %d, %v", len(training), err)
	}
	query := w.query
	if query == "" {
		query = "STUDY_ID=st&SESSION_ID=se-" + w.pid
	}
	step(t, ctx, "arrive", chromedp.Navigate(fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%s&%s", w.ts.URL, w.studyID, w.pid, query)),
		chromedp.WaitVisible(testID("consent")), pageLoaded())
	w.reached("consent")
	step(t, ctx, "consent", chromedp.Click(testID("agree")), chromedp.WaitVisible(testID("training")), pageLoaded())
	w.reached("practice")
	if w.wrongFirst {
		// The first item without its cancellation calls for a high
		// rating, with it a low one: the other end is wrong.
		wrong := "1"
		if training[0].Condition == domain.ConditionCancel {
			wrong = "7"
		}
		w.answer(t, ctx, "a wrong practice answer", 1, wrong)
		step(t, ctx, "try again", chromedp.WaitVisible(testID("try-again")), pageLoaded())
		w.reached("try-again")
	}
	for k, sc := range training {
		right := "6"
		if sc.Condition == domain.ConditionCancel {
			right = "2"
		}
		w.answer(t, ctx, fmt.Sprintf("practice %d", k+1), k+1, right)
	}
	step(t, ctx, "end of practice", chromedp.WaitVisible(testID("practice-end")), pageLoaded())
	w.reached("practice-end")
	stepRetry(t, ctx, "begin", chromedp.Click(testID("begin")))
	waitScreen(t, ctx, 1)
	w.reached("screen")
}

// finish rates every screen of the batch 4, answers the questionnaire
// (a native language) if there is one, and stops on the completion page.
func (w *crowdWalk) finish(t *testing.T, ctx context.Context) {
	t.Helper()
	p := crowdParticipant(t, w.db, w.studyID, w.pid)
	for pos := 1; pos <= p.Screens; pos++ {
		w.answer(t, ctx, fmt.Sprintf("screen %d", pos), pos, "4")
	}
	step(t, ctx, "after the batch", chromedp.WaitVisible(`[data-testid="q-send"], [data-testid="completion-code"]`), pageLoaded())
	if get(t, ctx, "a questionnaire?", chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="q-send"]')`)) {
		w.reached("questionnaire")
		step(t, ctx, "send the questionnaire", chromedp.SendKeys(`input[name="native_languages"]`, "Italian"), chromedp.Click(testID("q-send")),
			chromedp.WaitVisible(testID("completion-code")), pageLoaded())
	}
	w.reached("completion")
}

// answer gives rating on screen pos (a practice item or the batch's) and
// sends it.
func (w *crowdWalk) answer(t *testing.T, ctx context.Context, what string, pos int, rating string) {
	t.Helper()
	if w.byKey {
		waitScreen(t, ctx, pos)
		step(t, ctx, what, chromedp.KeyEvent(rating))
		return
	}
	answerScreen(t, ctx, what, chromedp.CSS(fmt.Sprintf(`[data-testid="item"][data-position="%d"]`, pos)), "rating-"+rating, "next")
}
