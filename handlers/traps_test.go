package handlers_test

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TrapWords are the words no participant page may carry anywhere — in an
// attribute, a class, an id, a comment or a script — since a program
// reading the page would learn from them which field or sentence is the
// trap (docs/studies.md#integrity-signals). The e2e and web tests use the same list.
var trapWords = regexp.MustCompile(`(?i)honeypot|website|machine[-_ ]?check|machine[-_ ]?instruction|decoy|\btraps?\b|class="hp"|lpignore[^>]*leave|leave this field`)

// noTrapWords fails when the page of what names a trap.
func noTrapWords(t *testing.T, what, body string) {
	t.Helper()
	if m := trapWords.FindAllString(body, -1); m != nil {
		i := trapWords.FindStringIndex(body)[0]
		t.Errorf("%s names a trap %q: …%s…", what, m, body[max(0, i-200):min(len(body), i+200)])
	}
}

// fieldNames are the names of a page's form fields, in order.
var fieldNameRE = regexp.MustCompile(`<(?:input|textarea|select)[^>]* name="([^"]+)"`)

func fieldNames(body string) []string {
	var out []string
	for _, m := range fieldNameRE.FindAllStringSubmatch(body, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// TestParticipantPagesNameNoTrap walks every kind of crowd participant page
// — consent, practice with its "try again", the practice's end, rating
// screens with and without the hidden instruction, the questionnaire, the
// completion page, a refusal, the preview — and the script and style
// sheet they load: none names a trap. Two participants' rating forms
// differ in their field names, and each participant's answers are read
// back under their own names (docs/studies.md#integrity-signals).
func TestParticipantPagesNameNoTrap(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) {
		s.MachineCheck, s.AllowPreview = true, true
		s.Questionnaire = domain.QuestionnaireSettings{Languages: true, Age: true, Gender: true, Comments: true}
	})
	forms := map[string][]string{}
	instructed := 0
	for _, pid := range []string{pidN(1), pidN(2)} {
		b := e.browser()
		b.get(e.entry(pid, "s"+pid[20:]))
		b.must("landing")
		noTrapWords(t, "the consent page", b.body)
		b.post(e.base()+"/consent", nil).must("training")
		noTrapWords(t, "a practice screen", b.body)
		// A wrong practice answer brings "try again".
		rating := "1"
		if strings.Contains(b.body, "Cancel ") {
			rating = "7"
		}
		b.post(e.base()+"/training", url.Values{"position": {strconv.Itoa(b.position())}, "attempt": {"0"}, "rating": {rating}}).must("try-again")
		noTrapWords(t, "the practice's try-again", b.body)
		for b.has("training") {
			pos := b.position()
			rating := "6"
			if strings.Contains(b.body, "Cancel ") {
				rating = "2"
			}
			a := attemptRE.FindStringSubmatch(b.body)[1]
			b.post(e.base()+"/training", url.Values{"position": {strconv.Itoa(pos)}, "attempt": {a}, "rating": {rating}})
		}
		b.must("practice-end")
		noTrapWords(t, "the practice's end", b.body)
		b.get(e.base() + "/screen?begin=1")
		forms[pid] = fieldNames(b.body)
		for !b.has("questionnaire") {
			noTrapWords(t, "a rating screen", b.body)
			if instructionWordRE.MatchString(b.body) {
				instructed++
			}
			b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(b.position())}, "rating": {"4"}})
		}
		noTrapWords(t, "the questionnaire", b.body)
		b.post(e.base()+"/questionnaire", url.Values{"age_range": {"17"}})
		noTrapWords(t, "the questionnaire's error", b.body)
		b.post(e.base()+"/questionnaire", url.Values{"comments": {"fine"}}).must("completion-code")
		noTrapWords(t, "the completion page", b.body)
	}
	if instructed != 2*domain.MachineCheckScreens {
		t.Errorf("the walk met %d hidden instructions, want %d: the pages above were not all checked", instructed, 2*domain.MachineCheckScreens)
	}
	// A refusal, and the preview.
	x := e.browser()
	x.get(e.entry(pidN(3), "s3"))
	x.post(e.base()+"/decline", nil).must("message-declined")
	noTrapWords(t, "the declined page", x.body)
	p := e.browser()
	for step := 0; step < 4; step++ {
		p.get(e.base() + "/preview?step=" + strconv.Itoa(step))
		noTrapWords(t, "the preview", p.body)
	}
	for _, f := range []string{"/static/app.js", "/static/style.css"} {
		noTrapWords(t, f, e.browser().get(f).body)
	}

	a, b := forms[pidN(1)], forms[pidN(2)]
	if len(a) < 3 || len(b) < 3 {
		t.Fatalf("rating forms without fields: %v %v", a, b)
	}
	var own []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			own = append(own, n)
		}
	}
	if len(own) < 2 {
		t.Errorf("the two participants' rating forms share their field names %v / %v", a, b)
	}
}
