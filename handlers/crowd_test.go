package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"pragmalab/domain"
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
	web   *web.Server
	study int64
	set   domain.CrowdSettings
}

// newCrowdEnv serves a crowd study of n items (types cycling) plus two high
// and two low checks, batches of size items, the default six training items.
func newCrowdEnv(t *testing.T, n, size int, mod func(*domain.CrowdSettings)) *crowdEnv {
	t.Helper()
	return newCrowdEnvAt(t, n, size, mod, nil)
}

// open opens the env's study, as the go-live checklist would.
func (e *crowdEnv) open() {
	e.t.Helper()
	if err := e.db.SetStudyState(context.Background(), e.study, domain.StateOpen, "test"); err != nil {
		e.t.Fatal(err)
	}
}

// newCrowdEnvAt is newCrowdEnv on the server clock now (nil: the real
// one), set before anything runs.
func newCrowdEnvAt(t *testing.T, n, size int, mod func(*domain.CrowdSettings), now func() time.Time) *crowdEnv {
	t.Helper()
	e := newDraftCrowdEnvAt(t, n, size, mod, now)
	e.open()
	return e
}

// newDraftCrowdEnv is newCrowdEnv with the study still a draft, its
// design not yet frozen (docs/studies.md#frozen-design): for the tests of
// the settings a study opens with.
func newDraftCrowdEnv(t *testing.T, n, size int, mod func(*domain.CrowdSettings)) *crowdEnv {
	t.Helper()
	return newDraftCrowdEnvAt(t, n, size, mod, nil)
}

// newDraftCrowdEnvAt is newDraftCrowdEnv on the server clock now (nil:
// the real one).
func newDraftCrowdEnvAt(t *testing.T, n, size int, mod func(*domain.CrowdSettings), now func() time.Time) *crowdEnv {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "crowd.db"))
	if err != nil {
		t.Fatal(err)
	}
	if now != nil {
		db.Now = now
	}
	t.Cleanup(func() { db.Close() })
	st := &domain.Study{Kind: domain.KindCrowd, Name: "Crowd test", Lang: "en", Seed: 5}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	types := []string{"scalar", "discourse", "synthetic", "natural"}
	var items []domain.Item
	for i := range n {
		items = append(items, domain.Item{Key: fmt.Sprintf("it%03d", i), Type: types[i%4], Context: "S1: Are you coming?",
			Utterance: fmt.Sprintf("S2: Item %d utterance.", i), Implicature: fmt.Sprintf("Belief %d.", i), Cancellation: fmt.Sprintf("Cancel %d.", i)})
	}
	for i, c := range []string{"high", "high", "low", "low"} {
		items = append(items, domain.Item{Key: fmt.Sprintf("check%d", i), Type: "synthetic", Utterance: "u", Implicature: "check belief", Cancellation: "x", Check: c})
	}
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultCrowdSettings()
	set.BatchSize, set.CompletionCode = size, "C0MPLETE"
	// Every browser of these tests comes from 127.0.0.1: no limit of
	// places per address (TestCrowdPlacesPerAddress sets one).
	set.PlacesPerAddress = 0
	if mod != nil {
		mod(&set)
	}
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildCrowdBatches(ctx, db, st.ID, set, 5); err != nil {
		t.Fatal(err)
	}
	// Every browser of these tests comes from 127.0.0.1: no entry limit
	// (TestCrowdLinkOpeningsTakeNoSlot sets one).
	s, err := web.New(ctx, web.Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &crowdEnv{t: t, db: db, srv: srv, web: s, study: st.ID, set: set}
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

// ratingNameRE finds the rating radios' name, drawn per participant.
var ratingNameRE = regexp.MustCompile(`<input type="radio" name="([a-z0-9]+)" value="\d+"`)

// post sends form as the last page's form would: a "rating" the test
// gives goes under the name the page's radios carry (drawn per
// participant, domain.DrawTraps), as a browser sends it.
func (b *browser) post(path string, form url.Values) *browser {
	b.t.Helper()
	if v, ok := form["rating"]; ok {
		if m := ratingNameRE.FindStringSubmatch(b.body); m != nil && m[1] != "rating" {
			form = maps.Clone(form)
			delete(form, "rating")
			form[m[1]] = v
		}
	}
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
	if b.has("practice-end") {
		b.get(b.env.base() + "/screen?begin=1")
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
	// Nothing leaves by itself (the code must stay readable); the button
	// goes back to Prolific with the code.
	if ref := b.resp.Header.Get("Refresh"); ref != "" {
		t.Fatalf("the completion page leaves by itself: Refresh %q", ref)
	}
	if !strings.Contains(b.body, `href="https://app.prolific.com/submissions/complete?cc=C0MPLETE"`) {
		t.Fatal("no button back to Prolific with the code")
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
	e := newCrowdEnv(t, 8, 4, func(s *domain.CrowdSettings) { s.Quota = 1 })
	b := e.browser()
	b.get(e.base())
	if b.resp.StatusCode != http.StatusBadRequest || !b.has("message-incomplete") {
		t.Fatalf("no PID: %d\n%s", b.resp.StatusCode, b.body)
	}
	b.get(fmt.Sprintf("/s/%d?PROLIFIC_PID=%s", e.study, "not_hex!"))
	if b.resp.StatusCode != http.StatusBadRequest || !strings.Contains(b.body, "PROLIFIC_PID is malformed") {
		t.Fatalf("malformed PID: %d\n%s", b.resp.StatusCode, b.body)
	}
	// 8 items, batches of 4 (minus 6 training: 2 items → 1 pair of batches
	// at most): fill every slot, then the next participant finds it full.
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	for i := range prog {
		e.browser().get(e.entry(pidN(i), "s")).must("landing")
	}
	// Opening the link takes no slot: the next one still sees the landing
	// page; consenting takes the slots, and then the study is full.
	late := e.browser().get(e.entry(pidN(99), "s"))
	late.must("landing")
	for i := range prog {
		e.browser().get(e.entry(pidN(i+10), "s")).post(e.base()+"/consent", nil).must("training")
	}
	late.post(e.base()+"/consent", nil)
	if late.resp.StatusCode != http.StatusConflict || !late.has("message-full") || !strings.Contains(late.body, "return the study on Prolific") {
		t.Fatalf("full study: %d\n%s", late.resp.StatusCode, late.body)
	}
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if len(reps) != len(prog) {
		t.Fatalf("%d sessions stored, want %d", len(reps), len(prog))
	}
}

func TestCrowdPreviewStoresNothing(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) { s.AllowPreview = true })
	b := e.browser()
	b.get(e.base() + "/preview")
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
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) { s.ScreenOutCode = "SCR33N" })
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
	// Export: the columns of docs/formats.md#ratings-export, then the answer times; 14 rows, the
	// checks marked. Every answer has its screen's showing and its arrival;
	// rt_ms is empty, since no browser measured it.
	a.get(fmt.Sprintf("/admin/studies/%d/export/ratings.csv", e.study))
	recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil || len(recs) != me[0].Screens+1 || strings.Join(recs[0], ",") != "participant_id,batch_id,item_id,item_type,condition,rating,check,item_version,shown_at,answered_at,rt_ms,answer_changes,hidden_ms,first_input_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot,machine_instruction,scale_points" {
		t.Fatalf("ratings.csv: %v\n%s", err, a.body)
	}
	checks := 0
	for _, r := range recs[1:] {
		if r[6] != "" {
			checks++
		}
		shown, err1 := time.Parse(time.RFC3339, r[8])
		answered, err2 := time.Parse(time.RFC3339, r[9])
		if err1 != nil || err2 != nil || answered.Before(shown) || r[10] != "" {
			t.Fatalf("answer times %q", r[8:])
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
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) { s.Quota = 1 })
	now := time.Now().UTC()
	e.db.Now = func() time.Time { return now }
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	var first []*browser
	for i := range prog {
		b := e.browser().get(e.entry(pidN(i), fmt.Sprint("s", i)))
		b.must("landing")
		b.post(e.base()+"/consent", nil).must("training")
		first = append(first, b)
	}
	e.browser().get(e.entry(pidN(50), "s50")).post(e.base()+"/consent", nil).must("message-full")
	// An hour and a bit later: every slot is idle, so a newcomer gets one,
	// and the participant who held it is told the study moved on.
	now = now.Add(61 * time.Minute)
	late := e.browser().get(e.entry(pidN(51), "s51"))
	late.post(e.base()+"/consent", nil).must("training")
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
			b.must("training") // slot still free: carries on
		}
	}
	if taken == "" {
		t.Fatal("the newcomer shares no batch with an earlier participant")
	}
}

func TestCrowdAdminSettingsAndBuild(t *testing.T) {
	e := newDraftCrowdEnv(t, 40, 10, nil)
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
		!set.AllowPreview || len(set.Training) != 2 || set.Training[1] != (domain.CrowdTrainingSpec{Key: "it001", Condition: "cancel"}) {
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
			if err == nil {
				resp.Body.Close()
				resp, err = c.PostForm(e.srv.URL+e.base()+"/consent", nil)
			}
			if err != nil {
				t.Error(err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			kind := "other"
			switch {
			case strings.Contains(string(body), `data-testid="training"`):
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

// TestCrowdIncompleteLinkNeverPreviews: whatever is wrong with PROLIFIC_PID
// — missing, empty, the placeholder raw, URL-encoded or encoded twice — the
// page says the link is incomplete, even with the preview allowed, and
// nothing is stored.
func TestCrowdIncompleteLinkNeverPreviews(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) { s.AllowPreview = true })
	for _, q := range []string{
		"",
		"?STUDY_ID=abc&SESSION_ID=def",
		"?PROLIFIC_PID=",
		"?PROLIFIC_PID=%20&STUDY_ID=abc",
		"?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
		"?PROLIFIC_PID=" + url.QueryEscape("{{%PROLIFIC_PID%}}"),
		"?PROLIFIC_PID=" + url.QueryEscape(url.QueryEscape("{{%PROLIFIC_PID%}}")),
		"?PROLIFIC_PID=%7B%7BPROLIFIC_PID%7D%7D",
	} {
		b := e.browser().get(e.base() + q)
		if b.resp.StatusCode != http.StatusBadRequest || !b.has("message-incomplete") || b.has("preview") || b.has("landing") {
			t.Errorf("%q: status %d\n%s", q, b.resp.StatusCode, b.body)
		}
		if strings.Contains(q, "PROLIFIC_PID%") || strings.Contains(q, "{{") || strings.Contains(q, "%257B") {
			if !strings.Contains(b.body, "placeholder") {
				t.Errorf("%q: the page does not name the placeholder:\n%s", q, b.body)
			}
		}
	}
	// Italian study: the page in Italian.
	st, _ := e.db.Study(context.Background(), e.study)
	st.Lang = "it"
	e.db.UpdateStudy(context.Background(), st)
	if b := e.browser().get(e.base()); !strings.Contains(b.body, "Questo link è incompleto") {
		t.Errorf("Italian incomplete page:\n%s", b.body)
	}
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if len(reps) != 0 {
		t.Fatalf("%d sessions stored", len(reps))
	}
}

// TestCrowdLinkOpeningsTakeNoSlot: hundreds of link openings with
// invented PIDs, from many addresses, take no slot — a real participant
// still consents and answers to the end — and one address is limited.
func TestCrowdLinkOpeningsTakeNoSlot(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) { s.Quota = 1 })
	e.web.Handler.SetEntryLimit(5)
	open := func(addr string, i int) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", e.entry(fmt.Sprintf("%024x", 0xbad000000+i), fmt.Sprint("x", i)), nil)
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		e.web.ServeHTTP(rec, req)
		return rec
	}
	codes := map[int]int{}
	for i := range 20 {
		rec := open("203.0.113.9:4000", i)
		codes[rec.Code]++
		if rec.Code == http.StatusTooManyRequests && (rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), `data-testid="message-busy"`) || !strings.Contains(rec.Body.String(), "Too many attempts")) {
			t.Fatalf("limited entry without Retry-After or its page:\n%s", rec.Body)
		}
	}
	if codes[http.StatusSeeOther] != 5 || codes[http.StatusTooManyRequests] != 15 {
		t.Fatalf("one address, 20 openings: %v, want 5 admitted and 15 limited", codes)
	}
	for i := range 300 {
		if rec := open(fmt.Sprintf("198.51.100.%d:5000", i%100), 100+i); rec.Code != http.StatusSeeOther {
			t.Fatalf("opening %d from its own address: %d", i, rec.Code)
		}
	}
	ctx := context.Background()
	prog, _ := e.db.CrowdProgress(ctx, e.study, e.set)
	for _, b := range prog {
		if b.Taken() != 0 {
			t.Fatalf("batch %d: %d slots taken by link openings", b.Number, b.Taken())
		}
	}
	// Every batch has one slot (quota 1); the real participant gets one.
	b := e.browser()
	b.get(e.entry(pidN(1), "real")).must("landing")
	b.post(e.base()+"/consent", nil).must("training")
	b.training()
	for !b.has("done") {
		b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(b.position())}, "rating": {"4"}})
	}
	b.must("completion-code")
	reps, _ := e.db.CrowdParticipants(ctx, e.study, e.set)
	if len(reps) != 1 || reps[0].Status != store.CrowdCompleted || reps[0].PID != pidN(1) {
		t.Fatalf("participants %+v", reps)
	}
}

// TestCrowdPIDCaseOverHTTP: the PID in upper case is the same participant;
// ids that are not Prolific's shape are refused unless the study allows them.
func TestCrowdPIDCaseOverHTTP(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	a := e.browser()
	a.get(e.entry(pidN(1), "sA"))
	a.post(e.base()+"/consent", nil).must("training")
	e.browser().get(e.entry(strings.ToUpper(pidN(1)), "guess")).must("message-foreign")
	other := e.browser().get(e.entry(strings.ToUpper(pidN(1)), "sA"))
	other.must("training")
	bad := e.browser().get(e.entry("tester1", "s"))
	if bad.resp.StatusCode != http.StatusBadRequest || !strings.Contains(bad.body, "24 hexadecimal characters") {
		t.Fatalf("non-Prolific id: %d\n%s", bad.resp.StatusCode, bad.body)
	}
	set := e.set
	set.AnyPID = true
	if err := e.db.SaveCrowdSettings(context.Background(), e.study, set); err != nil {
		t.Fatal(err)
	}
	e.browser().get(e.entry("tester1", "s")).must("landing")
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, set)
	if len(reps) != 1 {
		t.Fatalf("%d sessions, want 1", len(reps))
	}
}

// TestCrowdAnswerTimes: the rt_ms the page's script sends is stored with
// the rating and its screen's first showing — a reload does not move it —
// and a value that is no time is dropped.
func TestCrowdAnswerTimes(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e.db.Now = func() time.Time { return now }
	b := e.browser()
	b.get(e.entry(pidN(1), "s"))
	b.post(e.base()+"/consent", nil)
	b.training()
	b.must("rating-form")
	if !strings.Contains(b.body, `name="rt_ms"`) {
		t.Fatal("the rating form has no rt_ms field")
	}
	now = now.Add(3 * time.Second)
	b.get(e.base() + "/screen") // a reload: the screen was shown 3 s earlier
	now = now.Add(2 * time.Second)
	b.post(e.base()+"/answer", url.Values{"position": {"1"}, "rating": {"5"}, "rt_ms": {"1234"}})
	b.post(e.base()+"/answer", url.Values{"position": {"2"}, "rating": {"5"}, "rt_ms": {"-5"}})
	b.post(e.base()+"/answer", url.Values{"position": {"3"}, "rating": {"5"}, "rt_ms": {"99999999999"}})
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	rs, _ := e.db.CrowdRatings(context.Background(), reps[0].ID)
	if len(rs) != 3 || rs[0].RTms != 1234 || rs[1].RTms != 0 || rs[2].RTms != 0 {
		t.Fatalf("ratings %+v", rs)
	}
	if !rs[0].ShownAt.Equal(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)) || !rs[0].AnsweredAt.Equal(now) {
		t.Fatalf("screen 1 shown %v answered %v", rs[0].ShownAt, rs[0].AnsweredAt)
	}
	for !b.has("done") { // the export holds completed batches
		b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(b.position())}, "rating": {"4"}})
	}
	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d/export/ratings.csv", e.study))
	if !strings.Contains(a.body, ",2026-12-01T09:00:00.000Z,2026-12-01T09:00:05.000Z,1234,,,,,,,,,,7\n") {
		t.Fatalf("export without the times of screen 1:\n%s", a.body)
	}
}

// TestCrowdPageFixes: the end-of-practice page between the training and
// the batch (once), the keyboard hint left to the script, and a consent
// text that does not call stored Prolific ids anonymous.
func TestCrowdPageFixes(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	b := e.browser()
	b.get(e.entry(pidN(1), "s"))
	if strings.Contains(b.body, "anonym") || !strings.Contains(b.body, "stored with your Prolific ID") {
		t.Fatalf("consent text:\n%s", b.body)
	}
	b.post(e.base()+"/consent", nil)
	if !strings.Contains(b.body, `data-keys-hint hidden`) {
		t.Fatalf("the keyboard hint is shown without the script:\n%s", b.body)
	}
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
	if !strings.Contains(b.body, "End of the practice") || !strings.Contains(b.body, `href="`+e.base()+`/screen?begin=1"`) {
		t.Fatalf("end of practice:\n%s", b.body)
	}
	b.get(e.base() + "/screen").must("practice-end") // a reload: still there
	b.get(e.base() + "/screen?begin=1").must("rating-form")
	if b.position() != 1 {
		t.Fatalf("begin shows screen %d", b.position())
	}
	b.get(e.base() + "/screen").must("rating-form") // once seen, not again
}

// TestCrowdQuestionnaire: with the questionnaire on, a participant who
// answered the last screen gets the fields the study asks (in its
// language) before the completion code; the answers are stored once and
// exported with the participants.
func TestCrowdQuestionnaire(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) {
		s.Questionnaire = domain.QuestionnaireSettings{Languages: true, Age: true, Comments: true}
	})
	b := e.browser()
	b.get(e.entry(pidN(1), "s"))
	b.post(e.base()+"/consent", nil)
	b.training()
	for !b.has("questionnaire") {
		b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(b.position())}, "rating": {"4"}})
	}
	if b.has("completion-code") || b.has("q-gender") || !b.has("q-languages") || !b.has("q-age") || !b.has("q-comments") {
		t.Fatalf("questionnaire page:\n%s", b.body)
	}
	if b.resp.Header.Get("Refresh") != "" {
		t.Fatal("the questionnaire sends the browser on to Prolific")
	}
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	if reps[0].Status != store.CrowdCompleted {
		t.Fatalf("not completed before the questionnaire: %s", reps[0].Status)
	}
	b.post(e.base()+"/questionnaire", url.Values{"age_range": {"17"}})
	if b.resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(b.body, "age range") {
		t.Fatalf("bad age range: %d\n%s", b.resp.StatusCode, b.body)
	}
	b.post(e.base()+"/questionnaire", url.Values{"native_languages": {"Italian, Friulian"}, "age_range": {"25-34"}, "gender": {"woman"}, "comments": {"Nice, \"short\" study"}})
	b.must("completion-code")
	b.post(e.base()+"/questionnaire", url.Values{"native_languages": {"changed"}})
	b.must("completion-code")
	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d/export/participants.csv", e.study))
	recs, _ := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	h := recs[0][:len(recs[0])-5] // the keystroke summary and integrity_flags close the row
	if strings.Join(h[len(h)-4:], ",") != "native_languages,age_range,gender,comments" {
		t.Fatalf("header %v", h)
	}
	// gender was not asked: not stored, whatever the form sent.
	if got := strings.Join(recs[1][len(h)-4:len(h)], "|"); got != `Italian, Friulian|25-34||Nice, "short" study` {
		t.Fatalf("answers %q", got)
	}
	// Italian texts.
	st, _ := e.db.Study(context.Background(), e.study)
	st.Lang = "it"
	e.db.UpdateStudy(context.Background(), st)
	it := e.browser()
	it.get(e.entry(pidN(2), "s"))
	it.post(e.base()+"/consent", nil)
	it.training()
	for !it.has("questionnaire") {
		it.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(it.position())}, "rating": {"4"}})
	}
	if !strings.Contains(it.body, "Qualche domanda su di te") || !strings.Contains(it.body, "La tua lingua madre") {
		t.Fatalf("Italian questionnaire:\n%s", it.body)
	}
}

// TestCrowdRatingOffScale: a rating off the 1–7 scale, or none, is refused
// with a 400 page that says so, and stores nothing, on the practice and
// on the batch; the participant is still at the same screen.
func TestCrowdRatingOffScale(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	b := e.browser()
	b.get(e.entry(pidN(1), "sess1"))
	b.post(e.base()+"/consent", nil)
	b.must("training")
	for _, r := range []string{"8", "0", "", "abc"} {
		b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"0"}, "rating": {r}})
		if b.resp.StatusCode != http.StatusBadRequest || !b.has("message-rating") || !strings.Contains(b.body, "The rating must be 1–7") {
			t.Fatalf("practice rating %q: status %d\n%s", r, b.resp.StatusCode, b.body)
		}
	}
	b.get(e.base() + "/screen")
	b.must("training")
	if b.position() != 1 || b.has("try-again") {
		t.Fatalf("off-scale practice answers counted:\n%s", b.body)
	}
	b.training()
	if b.position() != 1 {
		t.Fatalf("first screen of the batch: %d", b.position())
	}
	b.post(e.base()+"/answer", url.Values{"position": {"1"}, "rating": {"9"}})
	if b.resp.StatusCode != http.StatusBadRequest || !b.has("message-rating") {
		t.Fatalf("rating 9: status %d\n%s", b.resp.StatusCode, b.body)
	}
	b.get(e.base() + "/screen")
	if b.position() != 1 {
		t.Fatal("an off-scale rating moved the participant on")
	}
	// A valid answer sent twice: stored once, the participant one screen on.
	for range 2 {
		b.post(e.base()+"/answer", url.Values{"position": {"1"}, "rating": {"7"}})
		if b.resp.StatusCode != http.StatusOK || b.position() != 2 {
			t.Fatalf("valid answer: status %d, screen %d", b.resp.StatusCode, b.position())
		}
	}
	reps, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	rs, _ := e.db.CrowdRatings(context.Background(), reps[0].ID)
	if len(rs) != 1 || rs[0].Rating != 7 {
		t.Fatalf("ratings %+v, want one 7", rs)
	}
}
