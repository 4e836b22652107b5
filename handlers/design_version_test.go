package handlers_test

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"pragmalab/domain"
)

// TestDesignVersionOverHTTP: a frozen save refused on the settings form
// offers "Start design version 2 with these settings"; pressed while a
// participant rates, it is refused naming them and what to do, and
// nothing changes; once they timed out it starts version 2: the settings
// are saved, the study page lists both versions with a download each,
// and a newcomer rates on version 2's scale (docs/studies.md#design-versions).
func TestDesignVersionOverHTTP(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := newDraftCrowdEnvAt(t, 40, 10, nil, clock)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.post(study+"/state", url.Values{"state": {domain.StateOpen}})
	if st, _ := e.db.Study(t.Context(), e.study); st.State != domain.StateOpen {
		t.Fatalf("the study did not open: %s\n%.2000s", st.State, a.body)
	}
	first := e.browser().get(e.entry(pidN(1), "s1"))
	first.post(e.base()+"/consent", nil).must("training")

	form := url.Values{
		"batch_size": {"10"}, "quota": {"9"}, "timeout_minutes": {"60"}, "check_high_min": {"4"},
		"check_low_max": {"2"}, "max_failed_checks": {"3"}, "lang": {"en"}, "completion_code": {"C0MPLETE"},
		"places_per_address": {"0"}, "finish_when_paused": {"yes"},
		"scale_points": {"5"}, "scale_labels": {"1 = surely not\n5 = surely so"},
	}
	a.post(study+"/crowd/settings", form)
	a.must("start-design-version")
	if !strings.Contains(a.body, "Start design version 2 with these settings") || !strings.Contains(a.body, "its design is frozen") {
		t.Fatalf("the frozen refusal does not offer version 2:\n%.3000s", a.body)
	}

	form.Set("design_version", "start")
	a.post(study+"/crowd/settings", form)
	if !strings.Contains(a.body, "1 participant(s) of study") || !strings.Contains(a.body, "Pause the study") {
		t.Fatalf("version 2 while a participant rates was not refused with why:\n%.3000s", a.body)
	}
	if _, set, _ := e.db.CrowdStudy(t.Context(), e.study); set.ScalePoints == 5 {
		t.Fatal("a refused version saved its scale")
	}

	mu.Lock()
	now = now.Add(2 * time.Hour) // the participant times out
	mu.Unlock()
	a = e.browser() // signed in again
	a.post("/admin/login", url.Values{"username": {"root"}, "password": {"correct horse battery"}})
	a.post(study+"/crowd/settings", form)
	a.must("flash")
	if !strings.Contains(a.body, "Design version 2 started") {
		t.Fatalf("no word of version 2:\n%.2000s", a.body)
	}
	if _, set, _ := e.db.CrowdStudy(t.Context(), e.study); set.ScalePoints != 5 {
		t.Fatalf("version 2's scale was not saved: %d points", set.ScalePoints)
	}
	a.get(study)
	a.must("design-version-1")
	a.must("design-version-2")
	// The progress table names each batch's version and which are retired.
	if !regexp.MustCompile(`data-testid="batch-1-version">\s*1\s*\(retired: no newcomer is given it\)`).MatchString(a.body) {
		t.Errorf("the progress table does not mark batch 1 as version 1, retired:\n%.4000s", a.body[strings.Index(a.body, `data-testid="progress"`):])
	}
	a.get(study + "/design-versions/2.json")
	if a.resp.StatusCode != 200 || !strings.Contains(a.body, `"scale_points": 5`) {
		t.Fatalf("version 2's file (%d):\n%.800s", a.resp.StatusCode, a.body)
	}

	b := e.browser().get(e.entry(pidN(2), "s2"))
	b.post(e.base()+"/consent", nil).must("training")
	if m := ratingNameRE.FindStringSubmatch(b.body); m == nil || !strings.Contains(b.body, `name="`+m[1]+`" value="5"`) || strings.Contains(b.body, `name="`+m[1]+`" value="6"`) {
		t.Errorf("the newcomer's screen is not on version 2's 5 points:\n%.2000s", b.body)
	}
	ps, err := e.db.CrowdParticipants(t.Context(), e.study, domain.CrowdSettings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if want := map[string]int{pidN(1): 1, pidN(2): 2}[p.PID]; p.DesignVersion != want {
			t.Errorf("participant %s: design version %d, want %d", p.PID, p.DesignVersion, want)
		}
	}
}
