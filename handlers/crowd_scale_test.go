package handlers_test

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestCrowdFivePointScale: a study's own scale — 5 points, a label per
// end and one for the midpoint, its own question — is what every practice
// and item screen shows; the practice feedback names the sides of that
// scale (4–5, 1–2), its midpoint is wrong on both, and a rating off the
// scale (6) is refused and stores nothing.
func TestCrowdFivePointScale(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) {
		s.ScalePoints, s.CheckHighMin, s.CheckLowMax = 5, 4, 2
		s.ScaleLabels = map[string]string{"1": "surely not", "3": "can't tell", "5": "surely so"}
		s.Question = "How sure are you that this is meant?"
	})
	b := e.browser().get(e.entry(pidN(1), "s1"))
	b.post(e.base()+"/consent", nil).must("training")
	radios := regexp.MustCompile(`name="rating" value="(\d+)"`)
	checkScreen := func(where string) {
		t.Helper()
		var got []string
		for _, m := range radios.FindAllStringSubmatch(b.body, -1) {
			got = append(got, m[1])
		}
		if strings.Join(got, ",") != "1,2,3,4,5" {
			t.Fatalf("%s: the scale's points are %v, want 1–5", where, got)
		}
		for _, s := range []string{"How sure are you that this is meant?", "1 = surely not", "3 = can&#39;t tell", "5 = surely so", "press 1–5"} {
			if !strings.Contains(b.body, s) {
				t.Fatalf("%s: no %q on the screen:\n%s", where, s, b.body)
			}
		}
		if strings.Contains(b.body, "absolutely certain") || strings.Contains(b.body, `name="rating" value="6"`) {
			t.Fatalf("%s: the 7-point scale's labels or points are shown", where)
		}
	}
	tryAgain := regexp.MustCompile(`data-testid="try-again">([^<]*)<`)
	seen := map[bool]bool{}
	for b.has("training") {
		checkScreen("practice")
		pos := b.position()
		cancel := strings.Contains(b.body, "Cancel ")
		b.post(e.base()+"/training", url.Values{"position": {strconv.Itoa(pos)}, "attempt": {"0"}, "rating": {"3"}})
		m := tryAgain.FindStringSubmatch(b.body)
		want, right := "4–5", "4"
		if cancel {
			want, right = "1–2", "2"
		}
		if m == nil || !strings.Contains(m[1], want) {
			t.Fatalf("practice item %d (cancel %v): the midpoint's feedback %q, want it to name %s", pos, cancel, m, want)
		}
		b.post(e.base()+"/training", url.Values{"position": {strconv.Itoa(pos)}, "attempt": {"1"}, "rating": {right}})
		if b.has("try-again") {
			t.Fatalf("practice item %d: %s is on the right side of 5 points but was refused", pos, right)
		}
		seen[cancel] = true
	}
	if !seen[true] || !seen[false] {
		t.Fatalf("practice items seen by condition: %v", seen)
	}
	if b.has("practice-end") {
		b.get(e.base() + "/screen?begin=1")
	}
	checkScreen("item")
	pos := b.position()
	b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(pos)}, "rating": {"6"}})
	if b.resp.StatusCode != 400 || !strings.Contains(b.body, "must be 1–5") {
		t.Fatalf("a rating of 6 on 5 points: %d\n%s", b.resp.StatusCode, b.body)
	}
	b.get(e.base() + "/screen")
	if b.position() != pos {
		t.Fatalf("the refused rating moved the participant on: screen %d, was %d", b.position(), pos)
	}
	b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(pos)}, "rating": {"5"}})
	b.get(e.base() + "/screen")
	if b.position() != pos+1 {
		t.Fatalf("a rating of 5 on 5 points was not taken: screen %d, was %d", b.position(), pos)
	}
}
