package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
	"pragmalab/web"
)

// planEnv serves a crowd study of 384 items in 4 batches that 16
// participants completed, linked to a fake Prolific study of 10 places.
func planEnv(t *testing.T) (*crowdEnv, *prolifictest.Server) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := prolifictest.SeedPlanStudy(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	const psid = "64cccccccccccccccccccccc"
	fake := prolifictest.NewServer("plan-test-token-0123456789")
	t.Cleanup(fake.Close)
	fake.AddStudy(psid, "plan on Prolific")
	if err := db.LinkProlific(ctx, st.ID, psid); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{prolific.TokenEnv: fake.Token, prolific.APIEnv: fake.URL}
	s, err := web.New(ctx, web.Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1, Getenv: func(k string) string { return vars[k] }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &crowdEnv{t: t, db: db, srv: srv, web: s, study: st.ID}, fake
}

var (
	neededRE = regexp.MustCompile(`takes about <strong>(\d+)</strong>`)
	widthRE  = regexp.MustCompile(`<td>implicature_recognition</td><td class="num">[0-9.]+</td><td class="num">([0-9.]+)</td>`)
	addRE    = regexp.MustCompile(`/prolific/places\?add=(\d+)`)
	pointRE  = regexp.MustCompile(`(\d+) participants → width ([0-9.]+)`)
)

// The Plan page: the participants a width needs, their cost from
// Prolific's calculator, the width now against the target, and Add places
// proposing exactly the difference with the places on Prolific.
func TestProlificPlanPage(t *testing.T) {
	e, fake := planEnv(t)
	a := e.admin()
	page := "/admin/studies/" + strconv.FormatInt(e.study, 10) + "/prolific/plan"
	a.get(page)
	a.must("plan-form")
	if a.has("plan-result") {
		t.Fatal("a result before Plan")
	}
	a.get(page + "?type=all&quantity=implicature_recognition&width=abc")
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "is not a number") {
		t.Errorf("bad width: %d", a.resp.StatusCode)
	}
	// The bounds of analyze plan --target-width (docs/prolific.md#plan):
	// refused before anything is simulated.
	for _, w := range []string{"0", "-0.1", "2", "NaN", "1e300"} {
		a.get(page + "?type=all&quantity=implicature_recognition&width=" + w)
		if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "is not a width (a number above 0 and below 2") || a.has("plan-result") {
			t.Errorf("width %s: %d", w, a.resp.StatusCode)
		}
	}
	a.get(page + "?type=all&quantity=implicature_recognition&width=1.5")
	a.must("plan-current")
	a.must("plan-reached")
	a.must("plan-enough")
	m := widthRE.FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no current width:\n%s", a.body)
	}
	now, _ := strconv.ParseFloat(m[1], 64)
	// A target between the simulated widths at 16 and at 64 participants,
	// under the width now.
	pts := pointRE.FindAllStringSubmatch(a.body, -1)
	if len(pts) < 2 || pts[0][1] != "16" || pts[len(pts)-1][1] != "64" {
		t.Fatalf("simulated points %v", pts)
	}
	w16, _ := strconv.ParseFloat(pts[0][2], 64)
	w64, _ := strconv.ParseFloat(pts[len(pts)-1][2], 64)
	if w64 >= w16 || w64 >= now {
		t.Fatalf("the width at 64 participants is not under the width at 16 and now (%.3f): %v", now, pts)
	}
	target := strconv.FormatFloat((w16+w64)/2, 'f', 4, 64)
	if (w16+w64)/2 >= now {
		t.Fatalf("target %s not under the width now %.3f", target, now)
	}
	a.get(page + "?" + url.Values{"type": {"all"}, "quantity": {"implicature_recognition"}, "width": {target}}.Encode())
	a.must("plan-not-reached")
	if a.has("plan-unreachable") {
		t.Fatalf("a target of %s between the width now and at 64 is out of reach:\n%s", target, a.body)
	}
	a.must("plan-needed")
	a.must("plan-width-range") // docs/statistics.md#how-sure-is-a-planned-width
	a.must("plan-cost")
	n, _ := strconv.Atoi(neededRE.FindStringSubmatch(a.body)[1])
	if n <= 16 {
		t.Errorf("a narrower interval than now needs %d participants, not more than 16", n)
	}
	add := addRE.FindStringSubmatch(a.body)
	if add == nil || add[1] != strconv.Itoa(n-10) {
		t.Fatalf("add places %v, want %d − 10 places:\n%s", add, n, a.body)
	}
	if fake.Calls("POST cost") == 0 {
		t.Error("Prolific's calculator was not asked")
	}
	a.get(strings.TrimSuffix(page, "/plan") + "/places?add=" + add[1])
	if !strings.Contains(a.body, "to <strong data-testid=\"places-to\">"+strconv.Itoa(n)+"</strong>") {
		t.Errorf("the places page does not go to %d:\n%s", n, a.body)
	}

	// A viewer sees the plan, and no Add places.
	if _, err := e.db.CreateAdminWithRole(context.Background(), "watcher", "correct horse battery", domain.RoleViewer); err != nil {
		t.Fatal(err)
	}
	v := e.browser()
	v.post("/admin/login", url.Values{"username": {"watcher"}, "password": {"correct horse battery"}})
	v.get(page + "?" + url.Values{"type": {"all"}, "quantity": {"implicature_recognition"}, "width": {target}}.Encode())
	v.must("plan-needed")
	if v.has("plan-add-places") {
		t.Error("a viewer is offered Add places")
	}
}
