package handlers_test

import (
	"encoding/csv"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
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
