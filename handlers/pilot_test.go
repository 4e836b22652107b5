package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var pilotURLRE = regexp.MustCompile(`value="[^"]*(/p/[A-Za-z0-9_-]+)" data-testid="pilot-url"`)

func pilotPath(t *testing.T, body string) string {
	t.Helper()
	m := pilotURLRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no pilot link on the page:\n%s", body)
	}
	return m[1]
}

// TestCrowdPilot: a pilot link walks the real flow of a draft study; the
// pilot answers are stored and marked, take no slot, stay out of the
// exports unless ?pilot=include, stop with the revoked link, and wipe.
func TestCrowdPilot(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) { s.Quota = 1 })
	ctx := context.Background()
	if err := e.db.SetStudyState(ctx, e.study, domain.StateDraft, "test"); err != nil {
		t.Fatal(err)
	}
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.post(study+"/pilot", url.Values{"action": {"new"}})
	a.must("pilot-url")
	link := pilotPath(t, a.body)

	p := e.browser()
	p.get(link).must("landing")
	p.post(e.base()+"/consent", nil).must("training")
	p.training()
	for !p.has("done") {
		p.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(p.position())}, "rating": {"4"}})
	}
	// A second browser gets its own pilot session; nobody real can enter.
	e.browser().get(link).must("landing")
	e.browser().get(e.entry(pidN(1), "s")).must("study-draft")

	prog, _ := e.db.CrowdProgress(ctx, e.study, e.set)
	for _, b := range prog {
		if b.Taken() != 0 || b.Completed != 0 {
			t.Fatalf("pilot sessions counted against the quota: %+v", b)
		}
	}
	a.get(study)
	if !strings.Contains(a.body, "2 pilot sessions, ") || strings.Contains(a.body, ", 0 pilot answers") {
		t.Fatalf("pilot summary:\n%s", a.body)
	}
	if strings.Contains(a.body, "participant-pilot-") {
		t.Fatal("pilot sessions listed among the participants")
	}
	rows := func(path string) [][]string {
		t.Helper()
		a.get(path)
		recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v\n%s", path, err, a.body)
		}
		return recs
	}
	if n := len(rows(study + "/export/ratings.csv")); n != 1 {
		t.Fatalf("ratings export holds %d pilot rows", n-1)
	}
	with := rows(study + "/export/ratings.csv?pilot=include")
	if len(with) < 2 || !strings.HasPrefix(with[1][0], "pilot-") {
		t.Fatalf("?pilot=include: %q", with)
	}
	if n := len(rows(study + "/export/participants.csv")); n != 1 {
		t.Fatalf("participants export holds %d pilot rows", n-1)
	}
	if n := len(rows(study + "/export/participants.csv?pilot=include")); n != 3 {
		t.Fatalf("participants with pilot: %d rows, want 2 + header", n)
	}
	a.get(study + "/analysis")
	if a.resp.StatusCode != http.StatusOK || strings.Contains(a.body, "pilot-") {
		t.Fatalf("analysis without pilot: %d", a.resp.StatusCode)
	}

	// Revoked: the link and the sessions opened with it stop.
	a.post(study+"/pilot", url.Values{"action": {"revoke"}})
	if b := e.browser().get(link); b.resp.StatusCode != http.StatusNotFound {
		t.Fatalf("revoked pilot link: %d", b.resp.StatusCode)
	}
	p.get(e.base() + "/screen")
	if p.has("done") || p.has("rating-form") {
		t.Fatalf("a revoked pilot session goes on:\n%s", p.body)
	}
	// Wiped: nothing left.
	a.post(study+"/pilot", url.Values{"action": {"wipe"}})
	a.must("flash")
	if n := len(rows(study + "/export/ratings.csv?pilot=include")); n != 1 {
		t.Fatalf("%d pilot rows after the wipe", n-1)
	}
	if s, _ := e.db.PilotSummary(ctx, e.study); s.Sessions != 0 || s.Answers != 0 {
		t.Fatalf("after the wipe: %+v", s)
	}
}
