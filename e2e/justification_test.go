package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"pragmalab/domain"
)

// TestJustificationInBrowser: with two typed justifications a batch, a
// participant in Chromium meets the text box on two screens (the axe
// audit passes on it at 390 and 1280 px). The first is typed key by key
// with a slip deleted: the stored summary counts the key presses, the
// revision and the typed characters, and looks composed. The second
// arrives as one inserted text, as dictation does: it counts as inserted
// and is not judged. The keys themselves are stored nowhere
// (docs/studies.md#typed-justifications).
func TestJustificationInBrowser(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudyWith(t, "en", func(set *domain.CrowdSettings) {
		set.Justifications = 2
	})
	ctx := newBrowser(t)
	trapProlific(t, ctx)
	const pid = "70f1a2b3c4d5e6f7a8b9c0f3"
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: pid}
	walk.toBatch(t, ctx)
	p := crowdParticipant(t, db, studyID, pid)
	const typed = "Because the speakr" // a slip, deleted below
	const rest = " says it plainly, and nothing cancels it."
	const dictated = "The second speaker agrees with the first one, so it holds."
	var met []int
	for pos := 1; pos <= p.Screens; pos++ {
		waitScreen(t, ctx, pos)
		if !get(t, ctx, fmt.Sprintf("screen %d: a justification?", pos), chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="justification"]')`)) {
			walk.answer(t, ctx, fmt.Sprintf("screen %d", pos), pos, "4")
			continue
		}
		met = append(met, pos)
		if len(met) == 1 {
			for _, w := range widths {
				setWidth(t, ctx, w)
				axeAudit(t, ctx, fmt.Sprintf("screen with a justification at %d px", w))
			}
		}
		box := testID("justification")
		stepRetry(t, ctx, fmt.Sprintf("screen %d: rate", pos), chromedp.Click(testID("rating-5")), chromedp.Click(box))
		if len(met) == 1 {
			step(t, ctx, "type with a slip", chromedp.SendKeys(box, typed), chromedp.KeyEvent(kb.Backspace), chromedp.KeyEvent(kb.Backspace),
				chromedp.SendKeys(box, "kr"), chromedp.KeyEvent(kb.Backspace), chromedp.KeyEvent(kb.Backspace), chromedp.SendKeys(box, "ker"+rest))
		} else {
			sctx, cancel := context.WithTimeout(ctx, stepLimit)
			_, err := chromedp.Call(sctx, input.InsertText, input.InsertTextParams{Text: dictated})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
		}
		step(t, ctx, fmt.Sprintf("screen %d: send", pos), chromedp.Click(testID("next")))
	}
	step(t, ctx, "completion", chromedp.WaitVisible(testID("completion-code")))
	if len(met) != 2 {
		t.Fatalf("justifications met on screens %v, want 2", met)
	}
	js, err := db.CrowdJustifications(context.Background(), studyID)
	if err != nil || len(js) != 2 {
		t.Fatalf("%d justifications stored (%v)", len(js), err)
	}
	first, second := js[0], js[1]
	if want := "Because the speaker" + rest; first.Text != want {
		t.Errorf("first text %q, want %q", first.Text, want)
	}
	n := len([]rune(first.Text))
	if !first.Typing.Keys.Valid || first.Typing.Keys.N != n+8 || first.Typing.Revisions.N != 4 || first.Typing.Typed.N != n+4 || first.Typing.Inserted.N != 0 {
		t.Errorf("first summary %+v, want %d keys, 4 revisions, %d typed, none inserted", first.Typing, n+8, n+4)
	}
	if v := first.Typing.Verdict(); v != domain.TypingComposed {
		t.Errorf("the typed justification with revisions is judged %d, want composed", v)
	}
	if second.Text != dictated || second.Typing.Inserted.N != len(dictated) || second.Typing.Typed.N != 0 || second.Typing.Verdict() != domain.TypingNotAssessed {
		t.Errorf("the dictated justification: %q %+v, verdict %d; want all inserted, not judged", second.Text, second.Typing, second.Typing.Verdict())
	}
}
