package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/web"
)

// crowdEnv is a running server with one crowd study.
type crowdEnv struct {
	t     *testing.T
	db    *store.DB
	srv   *httptest.Server
	study int64
	set   store.CrowdSettings
}

// newCrowdEnv serves a crowd study of n items (types cycling) plus two high
// and two low checks, batches of size items, the default six training items.
func newCrowdEnv(t *testing.T, n, size int, mod func(*store.CrowdSettings)) *crowdEnv {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "crowd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := &store.Study{Kind: store.KindCrowd, Name: "Crowd test", Lang: "en", Seed: 5}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	types := []string{"scalar", "discourse", "synthetic", "natural"}
	var items []store.Item
	for i := range n {
		items = append(items, store.Item{Key: fmt.Sprintf("it%03d", i), Type: types[i%4], Context: "S1: Are you coming?",
			Utterance: fmt.Sprintf("S2: Item %d utterance.", i), Implicature: fmt.Sprintf("Belief %d.", i), Cancellation: fmt.Sprintf("Cancel %d.", i)})
	}
	for i, c := range []string{"high", "high", "low", "low"} {
		items = append(items, store.Item{Key: fmt.Sprintf("check%d", i), Type: "synthetic", Utterance: "u", Implicature: "check belief", Cancellation: "x", Check: c})
	}
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	set := store.DefaultCrowdSettings()
	set.BatchSize, set.CompletionCode = size, "C0MPLETE"
	if mod != nil {
		mod(&set)
	}
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildCrowdBatches(ctx, db, st.ID, set, 5); err != nil {
		t.Fatal(err)
	}
	s, err := web.New(ctx, web.Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &crowdEnv{t: t, db: db, srv: srv, study: st.ID, set: set}
}

// browser is one participant's browser: its own cookie jar, redirects
// followed, the last page kept.
type browser struct {
	t    *testing.T
	c    *http.Client
	env  *crowdEnv
	body string
	resp *http.Response
}

func (e *crowdEnv) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, env: e, c: &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Host == "app.prolific.com" {
			return http.ErrUseLastResponse
		}
		return nil
	}}}
}

func (b *browser) do(req *http.Request) *browser {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	b.resp, b.body = resp, string(body)
	return b
}

func (b *browser) get(path string) *browser {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.env.srv.URL+path, nil)
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) *browser {
	b.t.Helper()
	req, _ := http.NewRequest("POST", b.env.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

func (b *browser) has(testid string) bool {
	return strings.Contains(b.body, `data-testid="`+testid+`"`)
}

func (b *browser) must(testid string) {
	b.t.Helper()
	if !b.has(testid) {
		b.t.Fatalf("page (status %d) has no %s:\n%s", b.resp.StatusCode, testid, b.body)
	}
}

var positionRE = regexp.MustCompile(`name="position" value="(\d+)"`)
var attemptRE = regexp.MustCompile(`name="attempt" value="(\d+)"`)

func (b *browser) position() int {
	b.t.Helper()
	m := positionRE.FindStringSubmatch(b.body)
	if m == nil {
		b.t.Fatalf("no rating form on the page:\n%s", b.body)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func (e *crowdEnv) entry(pid, session string) string {
	return fmt.Sprintf("/s/%d?PROLIFIC_PID=%s&STUDY_ID=study1&SESSION_ID=%s", e.study, pid, session)
}

func (e *crowdEnv) base() string { return fmt.Sprintf("/s/%d", e.study) }

// training answers the training screens with the right rating for each.
func (b *browser) training() {
	b.t.Helper()
	for b.has("training") {
		pos := b.position()
		rating := "6"
		if strings.Contains(b.body, "Cancel ") { // the cancelling utterance is shown
			rating = "2"
		}
		a := attemptRE.FindStringSubmatch(b.body)[1]
		b.post(b.env.base()+"/training", url.Values{"position": {strconv.Itoa(pos)}, "attempt": {a}, "rating": {rating}})
	}
}

func pidN(i int) string { return fmt.Sprintf("%024x", 0xabc000+i) }

func TestCrowdParticipantJourney(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	b := e.browser()
	b.get(e.entry(pidN(1), "sess1"))
	b.must("landing")
	b.post(e.base()+"/consent", nil)
	b.must("training")
	// A wrong answer (1 on the first item, which has no cancellation — the
	// picker gives trigger first): try again, same item.
	if b.position() != 1 || strings.Contains(b.body, "Cancel ") {
		t.Fatalf("first training screen is not a trigger item:\n%s", b.body)
	}
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"0"}, "rating": {"1"}})
	b.must("try-again")
	if b.position() != 1 {
		t.Fatal("after a wrong answer the training moved on")
	}
	b.training()
	// The batch: its items and the 4 checks, answered in order.
	b.must("progress")
	total := 0
	for pos := 1; !b.has("done"); pos++ {
		if got := b.position(); got != pos {
			t.Fatalf("screen %d shown, want %d", got, pos)
		}
		if pos == 5 {
			// Reload: the same screen. Resubmitting the previous one: nothing changes.
			b.get(e.base() + "/screen")
			if b.position() != 5 {
				t.Fatal("reload did not resume at screen 5")
			}
			b.post(e.base()+"/answer", url.Values{"position": {"4"}, "rating": {"1"}})
			if b.position() != 5 {
				t.Fatal("resubmitting screen 4 moved the participant")
			}
		}
		b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(pos)}, "rating": {strconv.Itoa(pos%7 + 1)}})
		total = pos
	}
	if total < 14 {
		t.Fatalf("batch of %d screens, want at least 10 items + 4 checks", total)
	}
	b.must("done")
	b.must("completion-code")
	if !strings.Contains(b.body, "C0MPLETE") {
		t.Fatal("completion code missing")
	}
	if ref := b.resp.Header.Get("Refresh"); ref != "3; url=https://app.prolific.com/submissions/complete?cc=C0MPLETE" {
		t.Fatalf("Refresh header %q", ref)
	}
	// The database holds one rating per screen, the first answer of each.
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if len(reps) != 1 || reps[0].Status != store.CrowdCompleted {
		t.Fatalf("participants %+v", reps)
	}
	rs, _ := e.db.CrowdRatings(context.Background(), reps[0].ID)
	if len(rs) != total {
		t.Fatalf("%d ratings stored, want %d", len(rs), total)
	}
	for _, r := range rs {
		if r.Rating != r.Position%7+1 {
			t.Fatalf("screen %d rating %d, want %d", r.Position, r.Rating, r.Position%7+1)
		}
	}
	// Coming back from the same link: still the completion page, no new batch.
	b.get(e.entry(pidN(1), "sess1"))
	b.must("done")
}

func TestCrowdSessionNeedsCookieOrSessionID(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	a := e.browser()
	a.get(e.entry(pidN(1), "sessA"))
	a.post(e.base()+"/consent", nil)
	a.training()
	a.post(e.base()+"/answer", url.Values{"position": {"1"}, "rating": {"4"}})

	// Someone who knows the PID only, in another browser.
	x := e.browser()
	x.get(fmt.Sprintf("/s/%d?PROLIFIC_PID=%s", e.study, pidN(1)))
	if x.resp.StatusCode != http.StatusForbidden || !x.has("message-foreign") {
		t.Fatalf("PID alone: status %d\n%s", x.resp.StatusCode, x.body)
	}
	x.get(e.entry(pidN(1), "guessed"))
	x.must("message-foreign")
	x.get(e.base() + "/screen")
	if x.has("rating-form") || x.resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a browser without the session reached a screen:\n%s", x.body)
	}
	x.post(e.base()+"/answer", url.Values{"position": {"2"}, "rating": {"7"}})
	rs, _ := e.db.CrowdRatings(context.Background(), 1)
	if len(rs) != 1 {
		t.Fatalf("a foreign post stored a rating: %+v", rs)
	}

	// The participant themselves, on another device, from the Prolific link.
	y := e.browser()
	y.get(e.entry(pidN(1), "sessA"))
	if y.position() != 2 {
		t.Fatalf("resume in another browser shows screen %d, want 2", y.position())
	}
}

func TestCrowdEntryErrors(t *testing.T) {
	e := newCrowdEnv(t, 8, 4, func(s *store.CrowdSettings) { s.Quota = 1 })
	b := e.browser()
	b.get(e.base())
	if b.resp.StatusCode != http.StatusBadRequest || !strings.Contains(b.body, "PROLIFIC_PID is missing") {
		t.Fatalf("no PID: %d\n%s", b.resp.StatusCode, b.body)
	}
	b.get(fmt.Sprintf("/s/%d?PROLIFIC_PID=%s", e.study, url.QueryEscape("{{%PROLIFIC_PID%}}")))
	if b.resp.StatusCode != http.StatusBadRequest || !strings.Contains(b.body, "PROLIFIC_PID is malformed") {
		t.Fatalf("placeholder PID: %d\n%s", b.resp.StatusCode, b.body)
	}
	// 8 items, batches of 4 (minus 6 training: 2 items → 1 pair of batches
	// at most): fill every slot, then the next participant finds it full.
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	for i := range prog {
		e.browser().get(e.entry(pidN(i), "s")).must("landing")
	}
	late := e.browser().get(e.entry(pidN(99), "s"))
	if late.resp.StatusCode != http.StatusConflict || !late.has("message-full") || !strings.Contains(late.body, "return the study on Prolific") {
		t.Fatalf("full study: %d\n%s", late.resp.StatusCode, late.body)
	}
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if len(reps) != len(prog) {
		t.Fatalf("%d sessions stored, want %d", len(reps), len(prog))
	}
}

func TestCrowdPreviewStoresNothing(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *store.CrowdSettings) { s.AllowPreview = true })
	b := e.browser()
	b.get(e.base())
	b.must("preview")
	b.must("landing")
	steps := 0
	for step := 1; step < 40; step++ {
		b.get(fmt.Sprintf("%s/preview?step=%d&rating=4", e.base(), step))
		if b.has("message-preview_done") {
			break
		}
		b.must("preview")
		b.must("rating-form")
		steps++
	}
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	if steps != 6+prog[0].Screens {
		t.Fatalf("preview showed %d screens, want 6 training + the %d of the first batch", steps, prog[0].Screens)
	}
	b.must("message-preview_done")
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if len(reps) != 0 {
		t.Fatalf("the preview stored %d sessions", len(reps))
	}
}

func TestCrowdItalian(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	st, _ := e.db.Study(context.Background(), e.study)
	st.Lang = "it"
	if err := e.db.UpdateStudy(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	b := e.browser().get(e.entry(pidN(1), "s"))
	if !strings.Contains(b.body, "Accetto") || !strings.Contains(b.body, `lang="it"`) {
		t.Fatalf("Italian landing expected:\n%s", b.body)
	}
	b.post(e.base()+"/consent", nil)
	if !strings.Contains(b.body, "assolutamente impossibile") {
		t.Fatal("scale labels not in Italian")
	}
}

func TestCrowdScreenedOut(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *store.CrowdSettings) { s.ScreenOutCode = "SCR33N" })
	b := e.browser()
	b.get(e.entry(pidN(1), "s"))
	b.post(e.base()+"/consent", nil)
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"0"}, "rating": {"1"}})
	b.must("try-again")
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"1"}, "rating": {"2"}})
	b.must("message-screened")
	if !strings.Contains(b.body, "https://app.prolific.com/submissions/complete?cc=SCR33N") {
		t.Fatalf("screen-out page without the code link:\n%s", b.body)
	}
}

// admin logs a browser in as a fresh admin.
func (e *crowdEnv) admin() *browser {
	e.t.Helper()
	if _, err := e.db.CreateAdmin(context.Background(), "root", "correct horse battery"); err != nil {
		e.t.Fatal(err)
	}
	b := e.browser()
	b.post("/admin/login", url.Values{"username": {"root"}, "password": {"correct horse battery"}})
	return b
}

func TestCrowdAdmin(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	// One participant completes with every check failed (high checks rated
	// 1, low checks 7).
	p := e.browser()
	p.get(e.entry(pidN(7), "s7"))
	p.post(e.base()+"/consent", nil)
	p.training()
	me, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	for !p.has("done") {
		sc, err := e.db.CrowdScreen(context.Background(), me[0].BatchID, p.position())
		if err != nil {
			t.Fatal(err)
		}
		rating := map[string]string{"": "4", "high": "1", "low": "7"}[sc.Item.Check]
		p.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(p.position())}, "rating": {rating}})
	}
	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	a.must("progress")
	a.must("participant-" + pidN(7))
	if !strings.Contains(a.body, `<td class="num">4 / 4</td>`) || !strings.Contains(a.body, "yes (rule)") {
		t.Fatalf("check results not shown:\n%s", a.body)
	}
	// Export: the columns of docs/formats.md#ratings-export, 14 rows, the
	// checks marked.
	a.get(fmt.Sprintf("/admin/studies/%d/export/ratings.csv", e.study))
	recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil || len(recs) != me[0].Screens+1 || strings.Join(recs[0], ",") != "participant_id,batch_id,item_id,item_type,condition,rating,check,item_version" {
		t.Fatalf("ratings.csv: %v\n%s", err, a.body)
	}
	checks := 0
	for _, r := range recs[1:] {
		if r[6] != "" {
			checks++
		}
	}
	if checks != 4 {
		t.Fatalf("%d check rows, want 4", checks)
	}
	// The researcher overrides the exclusion.
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	a.post(fmt.Sprintf("/admin/studies/%d/crowd/participants/%d/exclusion", e.study, reps[0].ID), url.Values{"override": {"include"}})
	a.must("flash")
	a.get(fmt.Sprintf("/admin/studies/%d/export/participants.csv", e.study))
	if !strings.Contains(a.body, pidN(7)+",study1,s7,") || !strings.Contains(a.body, ",4,4,yes,include,no") {
		t.Fatalf("participants.csv:\n%s", a.body)
	}
	// Invalid settings: the message names the field, nothing saved.
	a.post(fmt.Sprintf("/admin/studies/%d/crowd/settings", e.study), url.Values{
		"batch_size": {"30"}, "quota": {"0"}, "timeout_minutes": {"60"}, "check_high_min": {"5"},
		"check_low_max": {"3"}, "max_failed_checks": {"3"}, "lang": {"en"},
	})
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "quota must be 1–1000, got 0") {
		t.Fatalf("bad quota: %d\n%s", a.resp.StatusCode, a.body)
	}
	// Rebuilding after participants arrived is refused.
	a.post(fmt.Sprintf("/admin/studies/%d/crowd/batches", e.study), url.Values{"seed": {"9"}})
	if !strings.Contains(a.body, "cannot be rebuilt") {
		t.Fatalf("rebuild after participants:\n%s", a.body)
	}
	// The analysis page reads the same export.
	a.get(fmt.Sprintf("/admin/studies/%d/analysis", e.study))
	if a.resp.StatusCode != http.StatusOK {
		t.Fatalf("analysis page: %d\n%s", a.resp.StatusCode, a.body)
	}
	// Exports are admin-only.
	anon := e.browser().get(fmt.Sprintf("/admin/studies/%d/export/ratings.csv", e.study))
	if strings.Contains(anon.body, "participant_id,batch_id") {
		t.Fatal("ratings export served without login")
	}
}

func TestCrowdTimeoutPages(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *store.CrowdSettings) { s.Quota = 1 })
	now := time.Now().UTC()
	e.db.Now = func() time.Time { return now }
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	var first []*browser
	for i := range prog {
		b := e.browser().get(e.entry(pidN(i), fmt.Sprint("s", i)))
		b.must("landing")
		first = append(first, b)
	}
	e.browser().get(e.entry(pidN(50), "s50")).must("message-full")
	// An hour and a bit later: every slot is idle, so a newcomer gets one,
	// and the participant who held it is told the study moved on.
	now = now.Add(61 * time.Minute)
	late := e.browser().get(e.entry(pidN(51), "s51"))
	late.must("landing")
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	var taken string
	for _, r := range reps {
		if r.PID == pidN(51) {
			for _, o := range reps {
				if o.BatchID == r.BatchID && o.PID != r.PID {
					taken = o.PID
				}
			}
		}
	}
	for i, b := range first {
		b.get(e.base() + "/screen")
		if pidN(i) == taken {
			b.must("message-moved")
			if !strings.Contains(b.body, "return the submission on Prolific") {
				t.Fatalf("moved-on page:\n%s", b.body)
			}
		} else {
			b.must("landing") // slot still free: carries on
		}
	}
	if taken == "" {
		t.Fatal("the newcomer shares no batch with an earlier participant")
	}
}

func TestCrowdAdminSettingsAndBuild(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.post(study+"/crowd/settings", url.Values{
		"batch_size": {"8"}, "quota": {"3"}, "timeout_minutes": {"30"}, "check_high_min": {"6"},
		"check_low_max": {"2"}, "max_failed_checks": {"2"}, "lang": {"it"}, "completion_code": {"ABC123"},
		"screen_out_code": {"SCR"}, "allow_preview": {"yes"}, "title": {"Quanto è probabile?"},
		"training": {"it000 trigger\nit001 cancel\n"},
	})
	a.must("flash")
	st, set, err := e.db.CrowdStudy(context.Background(), e.study)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lang != "it" || set.Quota != 3 || set.BatchSize != 8 || set.CheckHighMin != 6 || set.CompletionCode != "ABC123" ||
		!set.AllowPreview || len(set.Training) != 2 || set.Training[1] != (store.CrowdTrainingSpec{Key: "it001", Condition: "cancel"}) {
		t.Fatalf("saved %+v %+v", st, set)
	}
	// A condition whose text the items lack is refused with the item named.
	a.post(study+"/crowd/settings", url.Values{
		"batch_size": {"8"}, "quota": {"3"}, "timeout_minutes": {"30"}, "check_high_min": {"6"},
		"check_low_max": {"2"}, "max_failed_checks": {"2"}, "lang": {"it"}, "conditions": {"neutral"},
		"training": {"it000 trigger\nit001 cancel\n"},
	})
	a.must("flash")
	a.post(study+"/crowd/batches", url.Values{"seed": {"9"}})
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "has no neutral text, which the neutral condition needs") {
		t.Fatalf("neutral without texts: %d\n%s", a.resp.StatusCode, a.body)
	}
	// Back to two conditions: the build takes the named training items and
	// stores the seed.
	a.post(study+"/crowd/settings", url.Values{
		"batch_size": {"8"}, "quota": {"3"}, "timeout_minutes": {"30"}, "check_high_min": {"6"},
		"check_low_max": {"2"}, "max_failed_checks": {"2"}, "lang": {"it"},
		"training": {"it000 trigger\nit001 cancel\n"},
	})
	a.post(study+"/crowd/batches", url.Values{"seed": {"9"}})
	a.must("flash")
	if !strings.Contains(a.body, "Built") || !strings.Contains(a.body, "and 2 training items") {
		t.Fatalf("build flash:\n%s", a.body)
	}
	st, _ = e.db.Study(context.Background(), e.study)
	tr, _ := e.db.CrowdTraining(context.Background(), e.study)
	if st.Seed != 9 || len(tr) != 2 || tr[0].Item.Key != "it000" || tr[1].Condition != "cancel" {
		t.Fatalf("seed %d, training %+v", st.Seed, tr)
	}
	// A bad training line names its line.
	a.post(study+"/crowd/settings", url.Values{
		"batch_size": {"8"}, "quota": {"3"}, "timeout_minutes": {"30"}, "check_high_min": {"6"},
		"check_low_max": {"2"}, "max_failed_checks": {"2"}, "lang": {"it"}, "training": {"it000 trigger\nit001\n"},
	})
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "training line 2") {
		t.Fatalf("bad training line: %d\n%s", a.resp.StatusCode, a.body)
	}
	// The live progress page reloads itself.
	a.get(study + "/crowd/progress")
	if a.resp.Header.Get("Refresh") != "10" {
		a.must("progress")
		t.Fatal("progress page does not refresh itself")
	}
}

func TestCrowdArrivalsAtOnceOverHTTP(t *testing.T) {
	// 18 data items in batches of 2: 18 batches; quota 5: 90 places.
	e := newCrowdEnv(t, 24, 2, nil)
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	if len(prog) != 18 {
		t.Fatalf("%d batches, want 18", len(prog))
	}
	var mu sync.Mutex
	kinds := map[string]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 200 {
		wg.Go(func() {
			<-start
			jar, _ := cookiejar.New(nil)
			c := &http.Client{Jar: jar}
			resp, err := c.Get(e.srv.URL + e.entry(pidN(1000+i), fmt.Sprint("s", i)))
			if err != nil {
				t.Error(err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			kind := "other"
			switch {
			case strings.Contains(string(body), `data-testid="landing"`):
				kind = "admitted"
			case strings.Contains(string(body), `data-testid="message-full"`):
				kind = "full"
			}
			mu.Lock()
			kinds[kind]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	if kinds["admitted"] != 90 || kinds["full"] != 110 {
		t.Fatalf("outcomes %v, want 90 admitted and 110 told the study is full", kinds)
	}
	prog, _ = e.db.CrowdProgress(context.Background(), e.study, e.set)
	for _, b := range prog {
		if b.Taken() != 5 {
			t.Errorf("batch %d holds %d participants, want 5", b.Number, b.Taken())
		}
	}
}
