package handlers_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestFrozenDesignOverHTTP: opening a study from its page keeps the design
// file it opened with, downloadable byte for byte after a later change of
// a setting that is not frozen; a change of the scale is refused on the
// settings form with the setting named and the way forward, and nothing
// is saved; a participant's screens keep the scale they opened with.
func TestFrozenDesignOverHTTP(t *testing.T) {
	e := newDraftCrowdEnv(t, 40, 10, nil)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.get(study + "/design.json")
	atOpening := a.body
	a.post(study+"/state", url.Values{"state": {domain.StateOpen}})
	if st, _ := e.db.Study(t.Context(), e.study); st.State != domain.StateOpen {
		t.Fatalf("the study did not open: %s\n%.2000s", st.State, a.body)
	}
	a.get(study)
	a.must("download-opening-design")

	form := url.Values{
		"batch_size": {"10"}, "quota": {"9"}, "timeout_minutes": {"60"}, "check_high_min": {"5"},
		"check_low_max": {"3"}, "max_failed_checks": {"3"}, "lang": {"en"}, "completion_code": {"C0MPLETE"},
		"places_per_address": {"0"}, "finish_when_paused": {"yes"},
	}
	a.post(study+"/crowd/settings", form)
	a.must("flash")
	if _, set, _ := e.db.CrowdStudy(t.Context(), e.study); set.Quota != 9 {
		t.Fatalf("the quota, which is not frozen, was not saved: %+v", set)
	}

	form.Set("scale_points", "5")
	form.Set("scale_labels", "1 = surely not\n5 = surely so")
	a.post(study+"/crowd/settings", form)
	for _, want := range []string{"its design is frozen", "scale_points", "clone it"} {
		if !strings.Contains(a.body, want) {
			t.Fatalf("the refusal does not say %q:\n%.3000s", want, a.body)
		}
	}
	if _, set, _ := e.db.CrowdStudy(t.Context(), e.study); set.ScalePoints != 7 && set.ScalePoints != 0 {
		t.Fatalf("a refused scale was saved: %d points", set.ScalePoints)
	}

	a.get(study + "/design-at-opening.json")
	if a.resp.StatusCode != 200 || a.body != atOpening || !strings.Contains(a.resp.Header.Get("Content-Disposition"), "at-opening") {
		t.Errorf("the design at opening (%d) differs from the file before opening:\n%.800s\nwant\n%.800s", a.resp.StatusCode, a.body, atOpening)
	}
	a.get(study + "/design.json")
	if a.body == atOpening || !strings.Contains(a.body, `"quota": 9`) {
		t.Errorf("the current design should show the new quota:\n%.800s", a.body)
	}

	b := e.browser().get(e.entry(pidN(1), "s1"))
	b.post(e.base()+"/consent", nil).must("training")
	if m := ratingNameRE.FindStringSubmatch(b.body); m == nil || !strings.Contains(b.body, `name="`+m[1]+`" value="7"`) || strings.Contains(b.body, `name="`+m[1]+`" value="8"`) {
		t.Errorf("the participant's screen lost the scale the study opened with:\n%.2000s", b.body)
	}
}
