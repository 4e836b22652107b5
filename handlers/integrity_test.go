package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
)

var textInputRE = regexp.MustCompile(`<input[^>]*type="text"[^>]*>`)
var nameRE = regexp.MustCompile(`name="([^"]+)"`)

// TestCrowdHoneypotAndSignals, over plain HTTP: a client that fills every
// text field of the answer form is recorded as honeypot; one that sends
// only the visible fields is not; signals that are absent, not numbers,
// negative or huge are stored empty or clamped, and every rating is
// stored all the same.
func TestCrowdHoneypotAndSignals(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	walk := func(pid string, fill func(b *browserPage, form url.Values)) {
		b := e.browser()
		b.get(e.entry(pid, "s"+pid[20:]))
		b.post(e.base()+"/consent", nil)
		b.training()
		for !b.has("done") {
			pos := b.position()
			form := url.Values{"position": {strconv.Itoa(pos)}, "rating": {"5"}, "rt_ms": {"2100"}}
			fill(&browserPage{b.body}, form)
			b.post(e.base()+"/answer", form)
		}
	}
	walk(pidN(1), func(p *browserPage, form url.Values) {
		ins := textInputRE.FindAllString(p.body, -1)
		if len(ins) == 0 {
			t.Fatalf("the answer form has no text field (the honeypot):\n%s", p.body)
		}
		for _, in := range ins {
			for _, attr := range []string{`tabindex="-1"`, `autocomplete="off"`, `aria-hidden="true"`} {
				if !strings.Contains(in, attr) {
					t.Errorf("text field %s lacks %s", in, attr)
				}
			}
			form.Set(nameRE.FindStringSubmatch(in)[1], "http://bot.example")
		}
		form.Set("untrusted_events", "abc")
		form.Set("pastes", "-1")
		form.Set("webdriver", "99999999999999999999999999")
	})
	walk(pidN(2), func(_ *browserPage, form url.Values) {
		form.Set("untrusted_events", "0")
		form.Set("pastes", "0")
		form.Set("webdriver", "0")
		form.Set("pointer_or_key", "1")
	})
	walk(pidN(3), func(*browserPage, url.Values) {}) // no JavaScript

	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d/export/ratings.csv", e.study))
	recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	at := slices.Index(recs[0], "first_input_ms") + 1
	const cols = "untrusted_events,pastes,webdriver,pointer_or_key,honeypot"
	if at == 0 || at+5 > len(recs[0]) || strings.Join(recs[0][at:at+5], ",") != cols {
		t.Fatalf("ratings header %v: want %s after first_input_ms", recs[0], cols)
	}
	want := map[string]string{
		pidN(1): ",,1,,http://bot.example",
		pidN(2): "0,0,0,1,",
		pidN(3): ",,,,",
	}
	rows := map[string]int{}
	for _, r := range recs[1:] {
		rows[r[0]]++
		if got := strings.Join(r[at:at+5], ","); got != want[r[0]] {
			t.Errorf("%s: signals exported as %q, want %q", r[0], got, want[r[0]])
		}
	}
	if rows[pidN(1)] == 0 || rows[pidN(2)] != rows[pidN(1)] || rows[pidN(3)] != rows[pidN(1)] {
		t.Fatalf("ratings per participant %v: every answer must be stored, whatever its signals", rows)
	}
}

// browserPage is the body of the page a walk answers.
type browserPage struct{ body string }

// TestIntegrityFlagsOverHTTP: the participants export's integrity_flags.
// A client that fills every text field of every form (rating screens and
// questionnaire) is flagged honeypot, and unscripted_signals for the
// response time it sends without the page's script; one that sends only
// the visible fields is flagged nothing, with or without the script's
// signals; a malformed questionnaire signal is stored empty and the
// answers kept. Then the review page shows the flags with their evidence,
// an exclusion on them keeps its reason in the audit log, and the
// keystroke summary of the questionnaire is exported.
func TestIntegrityFlagsOverHTTP(t *testing.T) {
	e, clock := newClockedCrowdEnv(t, func(s *domain.CrowdSettings) {
		s.Questionnaire = domain.QuestionnaireSettings{Languages: true, Comments: true}
	})
	fillAll := func(body string, form url.Values) {
		for _, in := range textInputRE.FindAllString(body, -1) {
			if n := nameRE.FindStringSubmatch(in)[1]; form.Get(n) == "" {
				form.Set(n, "http://bot.example")
			}
		}
	}
	walk := func(pid string, every bool, signals, questionnaire url.Values) {
		b := e.browser()
		b.get(e.entry(pid, "s"+pid[20:]))
		b.post(e.base()+"/consent", nil)
		b.training()
		for !b.has("questionnaire") {
			form := url.Values{"position": {strconv.Itoa(b.position())}, "rating": {"5"}}
			if signals != nil || every { // the script's fields: with its token when it ran
				form.Set("rt_ms", "2100")
			}
			if signals != nil {
				b.scripted(form)
			}
			for k, v := range signals {
				form[k] = v
			}
			if every {
				fillAll(b.body, form)
			}
			clock.step(2500 * time.Millisecond)
			b.post(e.base()+"/answer", form)
		}
		if every {
			fillAll(b.body, questionnaire)
		}
		b.post(e.base()+"/questionnaire", questionnaire)
		b.must("completion-code")
	}
	human := url.Values{"untrusted_events": {"0"}, "pastes": {"0"}, "webdriver": {"0"}, "pointer_or_key": {"1"}}
	walk(pidN(1), true, nil, url.Values{"comments": {"fine"}})
	walk(pidN(2), false, human, url.Values{"comments": {"fine"}, "untrusted_events": {"0"}, "pastes": {"0"}, "webdriver": {"0"},
		"pointer_or_key": {"1"}, "typed_chars": {"4"}, "inserted_chars": {"0"}, "iki_median_ms": {"180"}, "iki_iqr_ms": {"60"}})
	walk(pidN(3), false, nil, url.Values{"comments": {"fine"}}) // no JavaScript
	walk(pidN(4), false, human, url.Values{"comments": {"kept"}, "pastes": {"-3"}, "typed_chars": {"x"}, "iki_median_ms": {"99999999"}})

	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d/export/participants.csv", e.study))
	recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int {
		i := slices.Index(recs[0], name)
		if i < 0 {
			t.Fatalf("participants header %v lacks %s", recs[0], name)
		}
		return i
	}
	flags, comments, keys := col("integrity_flags"), col("comments"), col("typed_chars")
	// The program also sent a response time without the page's script.
	want := map[string]string{pidN(1): "honeypot;unscripted_signals", pidN(2): "", pidN(3): "", pidN(4): ""}
	wantKeys := map[string]string{pidN(1): ",,,", pidN(2): "4,0,180,60", pidN(3): ",,,", pidN(4): ",,600000,"}
	for _, r := range recs[1:] {
		if r[flags] != want[r[0]] {
			t.Errorf("%s flagged %q, want %q", r[0], r[flags], want[r[0]])
		}
		if got := strings.Join(r[keys:keys+4], ","); got != wantKeys[r[0]] {
			t.Errorf("%s keystroke summary %q, want %q", r[0], got, wantKeys[r[0]])
		}
		if r[comments] == "" {
			t.Errorf("%s: the questionnaire's comments were lost", r[0])
		}
	}

	// The review page: the flag beside the participant, with its evidence.
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	if !strings.Contains(a.body, `data-testid="flag-honeypot"`) || !strings.Contains(a.body, "hidden field filled on ") {
		t.Fatalf("participants table without the honeypot flag:\n%s", a.body)
	}
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	var bot int64
	for _, p := range reps {
		if p.PID == pidN(1) {
			bot = p.ID
		}
		if p.AutoExcluded {
			t.Errorf("%s excluded automatically (%v): flags never exclude", p.PID, p.Reasons)
		}
	}
	a.post(fmt.Sprintf("/admin/studies/%d/crowd/participants/%d/exclusion", e.study, bot),
		url.Values{"override": {"exclude"}, "reason": {"honeypot filled on every screen"}})
	a.get(fmt.Sprintf("/admin/studies/%d/export/audit.csv", e.study))
	if !strings.Contains(a.body, "honeypot filled on every screen") {
		t.Fatalf("audit log without the exclusion's reason:\n%s", a.body)
	}
}
