package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/comparisons"
	"pragmalab/domain"
)

// participantFlags are the integrity flags the participants table and
// export give a participant.
func participantFlags(t *testing.T, ctx context.Context, walk *crowdWalk) []string {
	t.Helper()
	_, set, err := walk.db.CrowdStudy(ctx, walk.studyID)
	if err != nil {
		t.Fatal(err)
	}
	reps, err := walk.db.CrowdParticipants(ctx, walk.studyID, set)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		if r.PID == walk.pid {
			return domain.FlagNames(r.Flags)
		}
	}
	t.Fatalf("participant %s not stored", walk.pid)
	return nil
}

// agentAnswer is what an LLM agent driving the page from a script does on
// a rating screen: fill every text field, pick a rating and press Next,
// each with an event it dispatches itself (element.dispatchEvent), so
// every event is untrusted.
const agentAnswer = `(() => {
	const form = document.querySelector('[data-testid="rating-form"]');
	for (const f of form.querySelectorAll('input[type=text], textarea')) {
		f.value = "I am a helpful assistant";
		f.dispatchEvent(new Event("input", {bubbles: true}));
	}
	const r = form.querySelector('input[type=radio][value="4"]');
	r.dispatchEvent(new MouseEvent("click", {bubbles: true}));
	form.querySelector('[data-testid="next"]').dispatchEvent(new MouseEvent("click", {bubbles: true}));
	return r.checked;
})()`

// TestIntegrityAgentInBrowser: a chromedp "agent" that answers the batch by
// dispatching its own events and filling every field is flagged
// synthetic_input, webdriver and honeypot (docs/studies.md#integrity-flags).
func TestIntegrityAgentInBrowser(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudy(t)
	ctx := newBrowser(t)
	trapProlific(t, ctx)
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: "70f1a2b3c4d5e6f7a8b9c0a1"}
	walk.toBatch(t, ctx)
	p := crowdParticipant(t, db, studyID, walk.pid)
	for pos := 1; pos <= p.Screens; pos++ {
		waitScreen(t, ctx, pos)
		if !get(t, ctx, fmt.Sprintf("agent on screen %d", pos), chromedp.Evaluate[bool](agentAnswer)) {
			t.Fatalf("screen %d: the synthetic click chose no rating", pos)
		}
	}
	step(t, ctx, "completion", chromedp.WaitVisible(testID("completion-code")))
	got := participantFlags(t, context.Background(), &walk)
	for _, f := range []string{domain.FlagHoneypot, domain.FlagSyntheticInput, domain.FlagWebdriver} {
		if !slices.Contains(got, f) {
			t.Errorf("agent flagged %v: %s missing", got, f)
		}
	}

	// The researcher's participants table shows the flags with their
	// evidence, on a phone and a desktop, and passes the axe audit.
	createResearcher(t, db)
	logIn(t, ctx, ts.URL)
	for _, w := range widths {
		setWidth(t, ctx, w)
		step(t, ctx, "participants table", chromedp.Navigate(fmt.Sprintf("%s/admin/studies/%d", ts.URL, studyID)),
			chromedp.WaitVisible(testID("participants")), pageLoaded())
		ev := get(t, ctx, "flag evidence", chromedp.Text(`[data-testid="participant-`+walk.pid+`"] [data-testid="flag-synthetic_input"]`))
		if !strings.Contains(ev, "synthetic events on") {
			t.Errorf("synthetic_input shown as %q, without its evidence", ev)
		}
		if st := get(t, ctx, "LLM-echo status", chromedp.Text(testID("llm-echo-status"))); st != comparisons.NoLLMEchoJob {
			t.Errorf("without a likert job the table says %q about LLM-echo", st)
		}
		if got := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); got > int(w) {
			wide := get(t, ctx, "what is wide", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("main *")).filter(e => e.getBoundingClientRect().right > `+strconv.FormatInt(w, 10)+` + 1 && !e.parentElement.closest(".table-scroll")).slice(0, 6).map(e => e.tagName + "." + e.className + "[" + (e.dataset.testid || "") + "] right=" + Math.round(e.getBoundingClientRect().right))`))
			t.Errorf("%d px: the study page with its participants is %d px wide: %v", w, got, wide)
		}
		if w >= 1280 {
			// What the researcher acts on, the flags and the decision,
			// shows without scrolling the table's box sideways.
			hidden := get(t, ctx, "flags and decision in view", chromedp.Evaluate[[]string](`(() => {
				const box = document.querySelector('[data-testid="participants"]').closest('.table-scroll').getBoundingClientRect();
				const row = document.querySelector('[data-testid="participant-`+walk.pid+`"]');
				const out = [];
				for (const [name, el] of [["integrity flags", row.querySelector('[data-testid="integrity-flags"]')], ["excluded", row.querySelector('[data-testid="excluded"]')], ["decision", row.querySelector('select')]]) {
					const r = el.getBoundingClientRect();
					if (r.right > box.right + 1) out.push(name);
				}
				return out;
			})()`))
			if len(hidden) > 0 {
				t.Errorf("at %d px the participants table hides %v until it is scrolled sideways", w, hidden)
			}
		}
		screenshot(t, ctx, fmt.Sprintf("integrity-flags-%d", w))
		auditHere(t, ctx, fmt.Sprintf("participants table with flags at %d px", w))
	}
}

// TestIntegrityKeyboardWalkInBrowser: a person's walk with real key events
// (Input.dispatchKeyEvent), in a Chromium started without the automation
// flag, is flagged with none of the integrity flags. navigator.webdriver
// is what Chromium says it is: without --enable-automation and with the
// AutomationControlled feature off it is false (docs/studies.md#integrity-flags
// says so for the record).
func TestIntegrityKeyboardWalkInBrowser(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudyWith(t, "en", func(set *domain.CrowdSettings) {
		set.Questionnaire = domain.QuestionnaireSettings{Languages: true} // typed by the walk
	})
	ctx := newBrowserWith(t, chromedp.Flag("enable-automation", false), chromedp.Flag("disable-blink-features", "AutomationControlled"))
	trapProlific(t, ctx)
	if wd := get(t, ctx, "navigator.webdriver", chromedp.Evaluate[bool](`navigator.webdriver === true`)); wd {
		t.Log("navigator.webdriver is true even without the automation flag")
	}
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: "70f1a2b3c4d5e6f7a8b9c0a2", byKey: true}
	walk.walk(t, ctx)
	// The signals were measured (an empty one would flag nothing either):
	// a key on every screen, no synthetic event, no webdriver; and the
	// page's script wrote the token of every screen's nonce
	// (docs/studies.md#server-evidence).
	p := crowdParticipant(t, db, studyID, walk.pid)
	var measured int
	if err := db.Reader().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM crowd_ratings
		WHERE participant_id = ? AND pointer_or_key = 1 AND untrusted_events = 0 AND webdriver = 0 AND honeypot = '' AND script = 1`, p.ID).Scan(&measured); err != nil {
		t.Fatal(err)
	}
	if measured != p.Screens {
		t.Errorf("%d of %d screens measured as a person's", measured, p.Screens)
	}
	// The questionnaire's keystroke summary: "Italian" typed key by key,
	// nothing inserted, the intervals measured.
	var typed, inserted, median, iqr *int
	if err := db.Reader().QueryRowContext(context.Background(), `SELECT typed_chars, inserted_chars, iki_median_ms, iki_iqr_ms
		FROM crowd_questionnaires WHERE participant_id = ?`, p.ID).Scan(&typed, &inserted, &median, &iqr); err != nil {
		t.Fatal(err)
	}
	if typed == nil || *typed != len("Italian") || inserted == nil || *inserted != 0 || median == nil || iqr == nil {
		t.Errorf("keystroke summary typed %v inserted %v median %v IQR %v", typed, inserted, median, iqr)
	}
	if got := participantFlags(t, context.Background(), &walk); len(got) != 0 {
		t.Errorf("keyboard walk flagged %s, want none", strings.Join(got, ";"))
	}
}
