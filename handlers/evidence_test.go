package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pragmalab/domain"
)

// stepClock is a server clock that moves only when the test says: a
// participant's pace is then exactly what the test makes it, on any
// machine.
type stepClock struct{ ns atomic.Int64 }

func newStepClock() *stepClock {
	c := &stepClock{}
	c.ns.Store(time.Now().UTC().Truncate(time.Second).UnixNano())
	return c
}

func (c *stepClock) now() time.Time       { return time.Unix(0, c.ns.Load()).UTC() }
func (c *stepClock) step(d time.Duration) { c.ns.Add(int64(d)) }
func newClockedCrowdEnv(t *testing.T, mod func(*domain.CrowdSettings)) (*crowdEnv, *stepClock) {
	c := newStepClock()
	return newCrowdEnvAt(t, 40, 10, mod, c.now), c
}

var nonceRE = regexp.MustCompile(`data-nonce="([^"]+)"`)

// scripted adds to form what the page's script writes beside the signals:
// the token derived from the page's nonce (static/app.js, as
// domain.ScriptToken computes it).
func (b *browser) scripted(form url.Values) url.Values {
	b.t.Helper()
	m := nonceRE.FindStringSubmatch(b.body)
	if m == nil {
		b.t.Fatalf("the rating screen carries no nonce:\n%s", b.body)
	}
	form.Set(domain.ScriptTokenField, domain.ScriptToken(m[1]))
	return form
}

// paced walks pid through consent, the practice and the batch, every
// screen answered pace after it was sent by the server's clock, with the
// fields fill adds to the rating; it stops after stop screens (0: all),
// and sends the questionnaire q when the batch ends on one.
func paced(e *crowdEnv, clock *stepClock, pid string, pace time.Duration, stop int, fill func(b *browser, form url.Values), q url.Values) *browser {
	e.t.Helper()
	b := e.browser()
	b.get(e.entry(pid, "s"+pid[20:]))
	b.post(e.base()+"/consent", nil)
	b.training()
	var batch int64
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	for _, p := range reps {
		if p.PID == pid {
			batch = p.BatchID
		}
	}
	for n := 0; !b.has("done") && !b.has("questionnaire") && (stop == 0 || n < stop); n++ {
		pos := b.position()
		rating := strconv.Itoa(n%7 + 1)
		sc, err := e.db.CrowdScreen(context.Background(), batch, pos)
		if err != nil {
			e.t.Fatal(err)
		}
		switch sc.Item.Check { // the checks passed, as a careful person does
		case "high":
			rating = "7"
		case "low":
			rating = "1"
		}
		form := url.Values{"position": {strconv.Itoa(pos)}, "rating": {rating}}
		if fill != nil {
			fill(b, form)
		}
		clock.step(pace)
		b.post(e.base()+"/answer", form)
	}
	if b.has("questionnaire") {
		b.post(e.base()+"/questionnaire", q)
		b.must("completion-code")
	}
	return b
}

// TestServerEvidenceOverHTTP (docs/studies.md#server-evidence): the server measures each
// screen itself. A client whose reported times contradict the server's
// clock is flagged clock_mismatch, one that writes the script's fields
// without running the page's script unscripted_signals; a person with
// JavaScript off taking 1.5 s a screen is flagged nothing, nor a browser
// whose script ran and reported times inside the server's. The flags are
// in the participants export and on the review page, and exclude nobody.
func TestServerEvidenceOverHTTP(t *testing.T) {
	e, clock := newClockedCrowdEnv(t, nil)
	human := func(rt string) func(b *browser, form url.Values) {
		return func(b *browser, form url.Values) {
			b.scripted(form)
			form.Set("rt_ms", rt)
			form.Set("first_input_ms", "600")
			form.Set("hidden_ms", "0")
			form.Set("answer_changes", "0")
			for k, v := range map[string]string{"untrusted_events": "0", "pastes": "0", "webdriver": "0", "pointer_or_key": "1"} {
				form.Set(k, v)
			}
		}
	}
	// The red team's forger: the script's token and fields, and a response
	// time of 4–8 s reported for screens the server saw answered in 0.4–0.6 s.
	forger := func(b *browser, form url.Values) {
		human(strconv.Itoa(4000+500*b.position()%4000))(b, form)
	}
	paced(e, clock, pidN(1), 1500*time.Millisecond, 0, nil, nil)                   // JavaScript off
	paced(e, clock, pidN(2), 2500*time.Millisecond, 0, human("2300"), nil)         // the script ran
	paced(e, clock, pidN(3), 500*time.Millisecond, 0, forger, nil)                 // reported times forged
	paced(e, clock, pidN(4), 3*time.Second, 0, func(b *browser, form url.Values) { // signals without the script
		form.Set("rt_ms", "2900")
		form.Set("pointer_or_key", "1")
	}, nil)
	// A first input the browser puts after the answer arrived.
	paced(e, clock, pidN(5), 2*time.Second, 0, func(b *browser, form url.Values) {
		human("1900")(b, form)
		form.Set("first_input_ms", "9000")
	}, nil)

	want := map[string][]string{
		pidN(1): {}, pidN(2): {}, pidN(3): {domain.FlagClockMismatch}, pidN(4): {domain.FlagUnscriptedSignals},
		pidN(5): {domain.FlagClockMismatch},
	}
	flags := participantFlags(t, e)
	for pid, w := range want {
		if got := domain.FlagNames(flags[pid]); !slices.Equal(got, w) {
			t.Errorf("%s flagged %v, want %v", pid, got, w)
		}
	}
	if ev, _ := hasFlag(flags[pidN(3)], domain.FlagClockMismatch); !strings.Contains(ev, "rt_ms 4") || !strings.Contains(ev, "server measured 500 ms") {
		t.Errorf("the forger's evidence %q does not name the reported and the measured time", ev)
	}
	if ev, _ := hasFlag(flags[pidN(5)], domain.FlagClockMismatch); !strings.Contains(ev, "first_input_ms 9000 ms where the server measured 2000 ms") {
		t.Errorf("the late first input's evidence %q", ev)
	}

	// The speed rules judge the server's time: the forger's reported 4–8 s
	// do not hide answers the server saw in 0.5 s.
	reps, err := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		if r.AutoExcluded {
			t.Errorf("%s excluded automatically (%v): flags never exclude", r.PID, r.Reasons)
		}
		switch r.PID {
		case pidN(3):
			if r.MedianRT != 500 {
				t.Errorf("the forger's median response time %d ms, want the server's 500", r.MedianRT)
			}
		case pidN(2):
			if r.MedianRT != 2300 {
				t.Errorf("the scripted browser's median response time %d ms, want its own 2300 (inside the server's 2500)", r.MedianRT)
			}
		case pidN(1):
			if r.MedianRT != 1500 {
				t.Errorf("JavaScript off: median response time %d ms, want the server's 1500", r.MedianRT)
			}
		}
	}

	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d/export/participants.csv", e.study))
	recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], "integrity_flags")
	if col < 0 {
		t.Fatalf("participants header %v lacks integrity_flags", recs[0])
	}
	for _, r := range recs[1:] {
		if got := r[col]; got != strings.Join(want[r[0]], ";") {
			t.Errorf("%s exported with integrity_flags %q, want %q", r[0], got, strings.Join(want[r[0]], ";"))
		}
	}
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	for _, s := range []string{`data-testid="flag-clock_mismatch"`, "where the server measured", `data-testid="flag-unscripted_signals"`, "without the page&#39;s script token"} {
		if !strings.Contains(a.body, s) {
			t.Errorf("the review page lacks %s", s)
		}
	}
}

// TestScriptTokenIsPerScreen: a token made from another screen's nonce,
// or another session's, is not the page's: the answer's signals count as
// written without the script.
func TestScriptTokenIsPerScreen(t *testing.T) {
	e, clock := newClockedCrowdEnv(t, nil)
	other := paced(e, clock, pidN(1), 2*time.Second, 1, nil, nil) // stays on its second screen
	stale := nonceRE.FindStringSubmatch(other.body)[1]
	paced(e, clock, pidN(2), 2*time.Second, 0, func(b *browser, form url.Values) {
		form.Set(domain.ScriptTokenField, domain.ScriptToken(stale))
		form.Set("pointer_or_key", "1")
	}, nil)
	if _, ok := hasFlag(participantFlags(t, e)[pidN(2)], domain.FlagUnscriptedSignals); !ok {
		t.Errorf("a borrowed token passed: flags %+v", participantFlags(t, e)[pidN(2)])
	}
	// The training screens and the preview carry no nonce.
	b := e.browser()
	b.get(e.entry(pidN(3), "s3"))
	b.post(e.base()+"/consent", nil)
	b.must("training")
	if nonceRE.MatchString(b.body) {
		t.Error("a practice screen carries a nonce")
	}
}

// TestSpeedOnlyWhenFinished (docs/studies.md#integrity-flags, speed): a participant answering fast
// is not flagged speed while their batch is in progress — a few answers
// are no pace, and a session so far is no total time — and is once they
// finish; the careful participants who finished are the baseline and
// flagged nothing.
func TestSpeedOnlyWhenFinished(t *testing.T) {
	e, clock := newClockedCrowdEnv(t, func(s *domain.CrowdSettings) { s.ExcludeMedianRT = 1000 })
	for i := 1; i <= 3; i++ {
		paced(e, clock, pidN(i), 30*time.Second, 0, nil, nil)
	}
	fast := paced(e, clock, pidN(4), 300*time.Millisecond, 3, nil, nil)
	flags := participantFlags(t, e)
	for i := 1; i <= 4; i++ {
		if _, ok := hasFlag(flags[pidN(i)], domain.FlagSpeed); ok {
			t.Errorf("%s flagged speed (%+v): the careful ones finished at 30 s a screen, the fast one is in progress", pidN(i), flags[pidN(i)])
		}
	}
	for !fast.has("done") {
		clock.step(300 * time.Millisecond)
		fast.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(fast.position())}, "rating": {"4"}})
	}
	ev, ok := hasFlag(participantFlags(t, e)[pidN(4)], domain.FlagSpeed)
	if !ok || !strings.Contains(ev, "median response time 300 ms") {
		t.Errorf("finished at 0.3 s a screen: speed evidence %q (flagged %v)", ev, ok)
	}
}

// TestPasteWherePastingIsAllowed (docs/studies.md#integrity-flags,
// paste_in_text): a paste into the
// questionnaire, whose fields allow pasting, raises no paste_in_text.
func TestPasteWherePastingIsAllowed(t *testing.T) {
	e, clock := newClockedCrowdEnv(t, func(s *domain.CrowdSettings) {
		s.Questionnaire = domain.QuestionnaireSettings{Languages: true, Comments: true}
	})
	paced(e, clock, pidN(1), 3*time.Second, 0, nil, url.Values{"comments": {"pasted from my notes"}, "native_languages": {"English"},
		"untrusted_events": {"0"}, "pastes": {"2"}, "webdriver": {"0"}, "pointer_or_key": {"1"}, "typed_chars": {"7"}, "inserted_chars": {"20"}})
	flags := participantFlags(t, e)[pidN(1)]
	if _, ok := hasFlag(flags, domain.FlagPasteInText); ok {
		t.Errorf("a paste where pasting is allowed flagged: %+v", flags)
	}
}

// TestAnswersToScreensNeverSent: a client that posts the batch's answers
// without loading the screens — the server never sent them — is flagged
// clock_mismatch, with JavaScript's fields left out as a person without it
// leaves them.
func TestAnswersToScreensNeverSent(t *testing.T) {
	e, clock := newClockedCrowdEnv(t, nil)
	b := paced(e, clock, pidN(1), 2*time.Second, 1, nil, nil) // the first screen answered, the second loaded
	b.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	reps, err := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if err != nil || len(reps) != 1 {
		t.Fatalf("participants %v, %v", reps, err)
	}
	for pos := 2; pos <= reps[0].Screens; pos++ { // no screen loaded after the second
		clock.step(2 * time.Second)
		b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(pos)}, "rating": {"4"}})
	}
	ev, ok := hasFlag(participantFlags(t, e)[pidN(1)], domain.FlagClockMismatch)
	if want := fmt.Sprintf("%d answers to screens the server never sent", reps[0].Screens-2); !ok || ev != want {
		t.Errorf("clock_mismatch %v with evidence %q, want %q", ok, ev, want)
	}
}
