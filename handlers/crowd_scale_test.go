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
	radios := regexp.MustCompile(`type="radio" name="[a-z0-9]+" value="(\d+)"`)
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
		if strings.Contains(b.body, "absolutely certain") || strings.Contains(b.body, `value="6" required`) {
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

// TestCrowdScaleSettingsForm: the settings form sets the scale; a label
// for a point off the scale is refused by name and nothing is saved; the
// saved scale is what the participant's screens show.
func TestCrowdScaleSettingsForm(t *testing.T) {
	e := newDraftCrowdEnv(t, 40, 10, nil)
	a := e.admin()
	study := "/admin/studies/" + strconv.FormatInt(e.study, 10)
	a.get(study)
	a.must("scale-settings")
	form := url.Values{
		"batch_size": {"10"}, "quota": {"5"}, "timeout_minutes": {"60"}, "check_high_min": {"4"},
		"check_low_max": {"2"}, "max_failed_checks": {"3"}, "lang": {"en"}, "completion_code": {"C0MPLETE"},
		"places_per_address": {"0"},
		"scale_points":       {"5"}, "scale_labels": {"1 = surely not\n9 = surely so"}, "question": {"How sure are you?"},
	}
	a.post(study+"/crowd/settings", form)
	if !strings.Contains(a.body, "scale labels: point 9 is outside the scale of 5 points") {
		t.Fatalf("a label for point 9 of 5 was not refused by name:\n%s", a.body)
	}
	if _, set, _ := e.db.CrowdStudy(t.Context(), e.study); set.ScalePoints != 7 || set.Question != "" {
		t.Fatalf("a refused form saved the scale: %+v", set)
	}
	// One end label missing is refused, never filled in from the 7-point
	// scale's; so is a 5-point scale without labels.
	for _, labels := range []string{"1 = surely not", ""} {
		form.Set("scale_labels", labels)
		a.post(study+"/crowd/settings", form)
		if !strings.Contains(a.body, "point 5 of 5, has no label") && !strings.Contains(a.body, "point 1 of 5, has no label") {
			t.Fatalf("a 5-point scale labelled %q was not refused by name:\n%s", labels, a.body)
		}
		if _, set, _ := e.db.CrowdStudy(t.Context(), e.study); set.ScalePoints != 7 {
			t.Fatalf("a refused form saved the scale: %+v", set)
		}
	}
	// Overlapping check thresholds are refused, naming both and the scale.
	form.Set("scale_labels", "1 = surely not\n5 = surely so")
	form.Set("check_high_min", "2")
	form.Set("check_low_max", "4")
	a.post(study+"/crowd/settings", form)
	if !strings.Contains(a.body, "check thresholds overlap on the 5-point scale") || !strings.Contains(a.body, "check_low_max") || !strings.Contains(a.body, "check_high_min") {
		t.Fatalf("overlapping thresholds were not refused by name:\n%s", a.body)
	}
	form.Set("check_high_min", "4")
	form.Set("check_low_max", "2")
	a.post(study+"/crowd/settings", form)
	a.must("flash")
	_, set, err := e.db.CrowdStudy(t.Context(), e.study)
	if err != nil || set.ScalePoints != 5 || set.ScaleLabels["5"] != "surely so" || set.Question != "How sure are you?" {
		t.Fatalf("saved %+v %v", set, err)
	}
	// The study page says the study's own scale, never "7-point".
	a.get(study)
	if !strings.Contains(a.body, "5-point scale") || strings.Contains(a.body, "7-point") {
		t.Fatalf("the study page does not say its 5-point scale:\n%s", a.body)
	}
	e.open()
	b := e.browser().get(e.entry(pidN(1), "s1"))
	b.post(e.base()+"/consent", nil).must("training")
	if !strings.Contains(b.body, `value="5" required`) || strings.Contains(b.body, `value="6" required`) || !strings.Contains(b.body, "5 = surely so") {
		t.Fatalf("the participant's screen does not show the saved scale:\n%s", b.body)
	}
}
