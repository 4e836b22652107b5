package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
)

// fromAddr makes a browser whose requests come from addr, as a trusted
// proxy would report it.
func (e *crowdEnv) fromAddr(addr string) *browser {
	b := e.browser()
	jar, _ := cookiejar.New(nil)
	b.c.Jar = jar
	b.c.Transport = addrTransport{addr}
	return b
}

type addrTransport struct{ addr string }

func (a addrTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Test-Client", a.addr)
	return http.DefaultTransport.RoundTrip(r)
}

// TestCrowdPlacesPerAddress: one address holds at most the study's
// places_per_address consented, unfinished places; the next arrival is
// told so before the consent text (docs/studies.md#no-hoarding), and so is one that had the
// consent page open when the limit was reached. A place unanswered past
// the hold no longer counts.
func TestCrowdPlacesPerAddress(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) { s.PlacesPerAddress = 3 })
	e.web.Handler.TrustedProxyHeader = "X-Test-Client"
	now := time.Now().UTC()
	e.db.Now = func() time.Time { return now }
	var held []*browser
	for i := range 2 {
		b := e.fromAddr("192.0.2.7").get(e.entry(pidN(i), fmt.Sprint("s", i)))
		b.must("consent")
		b.post(e.base()+"/consent", nil).must("training")
		held = append(held, b)
	}
	// Two held: a third reads the consent page, a fourth too.
	third := e.fromAddr("192.0.2.7").get(e.entry(pidN(2), "s2"))
	third.must("consent")
	fourth := e.fromAddr("192.0.2.7").get(e.entry(pidN(3), "s3"))
	fourth.must("consent")
	third.post(e.base()+"/consent", nil).must("training")
	// The fourth agrees after the limit was reached: refused, no place.
	fourth.post(e.base()+"/consent", nil).must("message-limit")
	if fourth.resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("over the limit at consent: status %d", fourth.resp.StatusCode)
	}
	// A fifth from the same address learns it before the consent text,
	// with one instruction.
	fifth := e.fromAddr("192.0.2.7").get(e.entry(pidN(4), "s4"))
	fifth.must("message-limit")
	if fifth.has("consent") || fifth.has("agree") || !strings.Contains(fifth.body, "Please open the study again from Prolific in 10 minutes") {
		t.Fatalf("over the limit, the page is not the refusal alone:\n%s", fifth.body)
	}
	// Another address is not concerned.
	e.fromAddr("198.51.100.9").get(e.entry(pidN(5), "s5")).must("consent")
	// One of the three answers its first practice item; the two others
	// never answer. Past the hold, only the answered place counts.
	held[0].post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"0"}, "rating": {"6"}})
	now = now.Add(11 * time.Minute)
	e.fromAddr("192.0.2.7").get(e.entry(pidN(6), "s6")).must("consent")
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if len(reps) != 3 {
		t.Fatalf("%d participants stored, want the 3 who consented within the limit", len(reps))
	}
}

// TestCrowdHoldFreesUnansweredPlace: a full study tells a newcomer before
// the consent form; a place consented to and never answered is free after
// the hold (10 minutes by default), one that has an answer is not.
func TestCrowdHoldFreesUnansweredPlace(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) { s.Quota = 1 })
	now := time.Now().UTC()
	e.db.Now = func() time.Time { return now }
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	if len(prog) < 2 {
		t.Fatalf("%d batches", len(prog))
	}
	var first []*browser
	for i := range prog {
		b := e.browser().get(e.entry(pidN(i), fmt.Sprint("s", i)))
		b.post(e.base()+"/consent", nil).must("training")
		first = append(first, b)
	}
	// The first answers a practice item: it keeps its place.
	first[0].post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"0"}, "rating": {"6"}})
	full := e.browser().get(e.entry(pidN(50), "s50"))
	full.must("message-full")
	if full.has("consent") || full.has("agree") {
		t.Fatalf("a full study shows the consent form:\n%s", full.body)
	}
	// Nine minutes: still held.
	now = now.Add(9 * time.Minute)
	e.browser().get(e.entry(pidN(51), "s51")).must("message-full")
	// Eleven: every unanswered place is free, the answered one is not.
	now = now.Add(2 * time.Minute)
	for i := 1; i < len(prog); i++ {
		b := e.browser().get(e.entry(pidN(60+i), fmt.Sprint("n", i)))
		b.must("consent")
		b.post(e.base()+"/consent", nil).must("training")
	}
	e.browser().get(e.entry(pidN(70), "s70")).must("message-full")
	first[0].get(e.base() + "/screen").must("training")
	for _, b := range first[1:] {
		b.get(e.base() + "/screen").must("message-moved")
	}
}

// TestCrowdConsentPage: the consent page names the researcher, the
// contact and the ethics approval, and states the study's length from
// the batch (20 s a screen before answers are measured); "I do not
// agree" stores nothing but the refusal and gives the no-consent code.
func TestCrowdConsentPage(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) {
		s.Researcher, s.Contact, s.EthicsRef = "Dr Ada Rossi", "ada.rossi@example.edu", "CE-2026-041"
		s.ScreenOutCode, s.NoConsentCode = "SCREENED1", "NOCONSENT1"
	})
	b := e.browser().get(e.entry(pidN(1), "s1"))
	for _, id := range []string{"researcher", "contact", "ethics", "agree", "decline", "minutes"} {
		b.must(id)
	}
	for _, s := range []string{"Dr Ada Rossi", "ada.rossi@example.edu", "CE-2026-041"} {
		if !strings.Contains(b.body, s) {
			t.Fatalf("consent page lacks %q", s)
		}
	}
	// The first batch's screens and the 6 practice items, 20 s each,
	// rounded up.
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	screens := prog[0].Screens + 6
	want := fmt.Sprintf("about %d minutes (%d pages", (screens*20+59)/60, screens)
	if !strings.Contains(b.body, want) || strings.Contains(b.body, "15 minutes") {
		t.Fatalf("estimated minutes: want %q in\n%s", want, b.body)
	}
	// One minute is "1 minute" in every language, never "1 minutes".
	// Each language is a study of its own: a study's language is frozen
	// once it opens (docs/studies.md#frozen-design).
	for lang, want := range map[string]string{"en": "about 1 minute (", "de": "etwa 1 Minute (", "it": "circa 1 minuto ("} {
		o := newDraftCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) { s.Minutes = 1 })
		if err := o.db.SaveCrowdStudy(context.Background(), o.study, lang, o.set); err != nil {
			t.Fatal(err)
		}
		o.open()
		other := o.browser().get(o.entry(pidN(2), "s1"))
		if !strings.Contains(other.body, want) {
			t.Fatalf("%s consent page: want %q in\n%s", lang, want, other.body)
		}
	}
	b.post(e.base()+"/decline", nil).must("message-declined")
	if !strings.Contains(b.body, "NOCONSENT1") || !strings.Contains(b.body, "cc=NOCONSENT1") {
		t.Fatalf("declined page without the no-consent code:\n%s", b.body)
	}
	// A reload shows the same page; the refusal is all that is stored.
	b.get(e.base() + "/screen").must("message-declined")
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	n, _ := e.db.CrowdRefusals(context.Background(), e.study)
	if len(reps) != 0 || n != 1 {
		t.Fatalf("after declining: %d participants, %d refusals; want 0 and 1", len(reps), n)
	}
	// Consenting afterwards with the same cookie is refused: no entry.
	b.post(e.base()+"/consent", nil)
	if b.has("training") {
		t.Fatal("a declined browser took a place")
	}
	// Without a no-consent code, the screen-out code; without either, the
	// page says to return the study.
	set := e.set
	set.ScreenOutCode, set.NoConsentCode, set.Minutes = "", "", 25
	if err := e.db.SaveCrowdSettings(context.Background(), e.study, set); err != nil {
		t.Fatal(err)
	}
	c := e.browser().get(e.entry(pidN(2), "s2"))
	if !strings.Contains(c.body, "about 25 minutes") {
		t.Fatalf("the researcher's minutes are not shown:\n%s", c.body)
	}
	c.post(e.base()+"/decline", nil).must("message-declined")
	if c.has("code") || !strings.Contains(c.body, "Please return the study on Prolific") {
		t.Fatalf("declined without a code:\n%s", c.body)
	}
}

// TestCrowdConsentItalian: the consent page's new parts in Italian.
func TestCrowdConsentItalian(t *testing.T) {
	e := newDraftCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) { s.EthicsRef = "CE-1" })
	if err := e.db.SaveCrowdStudy(context.Background(), e.study, "it", e.set); err != nil {
		t.Fatal(err)
	}
	e.open()
	b := e.browser().get(e.entry(pidN(1), "s1"))
	for _, s := range []string{"Non accetto", "Approvazione etica", "Lo studio dura circa"} {
		if !strings.Contains(b.body, s) {
			t.Fatalf("Italian consent page lacks %q:\n%s", s, b.body)
		}
	}
}

var tryAgainRE = regexp.MustCompile(`data-testid="try-again">([^<]*)<`)

// TestCrowdPracticeMidpointIsWrong: 4 is on neither side, so it is a
// wrong practice answer on every item; the feedback says which side is
// right and why.
func TestCrowdPracticeMidpointIsWrong(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	b := e.browser().get(e.entry(pidN(1), "s1"))
	b.post(e.base()+"/consent", nil).must("training")
	seen := map[bool]bool{}
	for b.has("training") {
		pos := b.position()
		cancel := strings.Contains(b.body, "Cancel ")
		b.post(e.base()+"/training", url.Values{"position": {strconv.Itoa(pos)}, "attempt": {"0"}, "rating": {"4"}})
		b.must("try-again")
		m := tryAgainRE.FindStringSubmatch(b.body)
		want := "5–7"
		if cancel {
			want = "1–3"
		}
		if m == nil || !strings.Contains(m[1], want) {
			t.Fatalf("practice item %d (cancel %v): feedback %q, want it to name %s", pos, cancel, m, want)
		}
		seen[cancel] = true
		right := "5"
		if cancel {
			right = "3"
		}
		b.post(e.base()+"/training", url.Values{"position": {strconv.Itoa(pos)}, "attempt": {"1"}, "rating": {right}})
		if b.has("try-again") {
			t.Fatalf("practice item %d: %s is on the right side but was refused", pos, right)
		}
	}
	if !seen[true] || !seen[false] {
		t.Fatalf("practice items seen by condition: %v", seen)
	}
}

// TestCrowdScreenLabelsAndProgress: a screen labels its context and its
// utterance, says where the participant is as a heading and a labelled
// progress bar, and hides the keyboard hint until the script shows it.
func TestCrowdScreenLabelsAndProgress(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	b := e.browser().get(e.entry(pidN(1), "s1"))
	b.post(e.base()+"/consent", nil).must("training")
	if !strings.Contains(b.body, "Practice question 1 of 6") || !b.has("progress") {
		t.Fatalf("practice screen without its progress:\n%s", b.body)
	}
	b.training()
	for _, id := range []string{"context-label", "utterance-label", "screen-title", "progress"} {
		b.must(id)
	}
	if !strings.Contains(b.body, ">Context<") || !strings.Contains(b.body, ">What was said<") || !strings.Contains(b.body, ">Question 1 of ") {
		t.Fatalf("screen labels:\n%s", b.body)
	}
	if !regexp.MustCompile(`<p class="hint" data-keys-hint hidden>`).MatchString(b.body) {
		t.Fatalf("the keyboard hint is not hidden without the script:\n%s", b.body)
	}
}

// TestCrowdPilotBanner: every page of a crowd pilot session says it is
// a pilot; a real participant's pages do not.
func TestCrowdPilotBanner(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.post(study+"/pilot", url.Values{"action": {"new"}})
	p := e.browser()
	p.get(pilotPath(t, a.body)).must("pilot-banner")
	p.must("landing")
	p.post(e.base()+"/consent", nil).must("pilot-banner")
	for p.has("training") {
		pos := p.position()
		rating := "6"
		if strings.Contains(p.body, "Cancel ") {
			rating = "2"
		}
		p.post(e.base()+"/training", url.Values{"position": {strconv.Itoa(pos)}, "attempt": {"0"}, "rating": {rating}}).must("pilot-banner")
	}
	p.must("practice-end")
	p.get(e.base() + "/screen?begin=1").must("pilot-banner")
	for !p.has("done") {
		p.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(p.position())}, "rating": {"4"}}).must("pilot-banner")
	}
	real := e.browser().get(e.entry(pidN(1), "s1"))
	real.post(e.base()+"/consent", nil)
	if real.has("pilot-banner") {
		t.Fatal("a real participant sees the pilot banner")
	}
}

// TestCrowdConsentSettingsForm: the study page's settings form saves the
// consent page's facts and the no-hoarding limits, and refuses a bad one
// with the field named.
func TestCrowdConsentSettingsForm(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	form := url.Values{
		"batch_size": {"10"}, "quota": {"5"}, "timeout_minutes": {"60"}, "check_high_min": {"5"},
		"check_low_max": {"3"}, "max_failed_checks": {"3"}, "lang": {"en"}, "completion_code": {"C0MPLETE"},
		"hold_minutes": {"15"}, "places_per_address": {"0"}, "researcher": {"Dr Ada Rossi"},
		"contact": {"ada@example.edu"}, "ethics_ref": {"CE-7"}, "minutes": {"12"}, "no_consent_code": {"NOC1"},
	}
	a.post(study+"/crowd/settings", form)
	a.must("flash")
	_, set, err := e.db.CrowdStudy(context.Background(), e.study)
	if err != nil {
		t.Fatal(err)
	}
	if set.HoldMinutes != 15 || set.PlacesPerAddress != 0 || set.Researcher != "Dr Ada Rossi" || set.Contact != "ada@example.edu" ||
		set.EthicsRef != "CE-7" || set.Minutes != 12 || set.NoConsentCode != "NOC1" {
		t.Fatalf("saved %+v", set)
	}
	a.get(study)
	for _, id := range []string{"hold-minutes", "places-per-address", "researcher", "contact", "ethics-ref"} {
		a.must(id)
	}
	form.Set("hold_minutes", "0")
	a.post(study+"/crowd/settings", form)
	if !strings.Contains(a.body, "hold before the first answer (minutes) must be 1–10080, got 0") {
		t.Fatalf("a hold of 0 was not refused by name:\n%s", a.body)
	}
}
