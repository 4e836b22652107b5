package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strings"
	"testing"
)

// expertStudy sets up, through the admin pages, an expert study with the
// demo items (16 + 4 checks), one batch of 20, and two invited experts
// assigned round 1. It returns the study and the two experts.
func expertStudy(t *testing.T, e *testEnv, admin *client) (*domain.Study, []domain.Annotator) {
	t.Helper()
	ctx := context.Background()
	resp := admin.post("/admin/studies", url.Values{"name": {"Validation"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther)
	studyPath := resp.location()
	studies, _ := e.db.Studies(ctx)
	s := studies[0]
	data, err := os.ReadFile("../cli/demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	admin.upload(studyPath+"/items", "file", "items.jsonl", data).mustStatus(t, http.StatusSeeOther)
	admin.get(studyPath).mustStatus(t, 200).mustContain(t, "Imported 20 items", "16 items, 4 attention checks")
	admin.post(studyPath+"/batches", url.Values{"batch_size": {"20"}, "checks": {"4"}}).mustStatus(t, http.StatusSeeOther)
	admin.post(studyPath+"/experts", url.Values{"name": {"Ada"}}).mustStatus(t, http.StatusSeeOther)
	admin.post(studyPath+"/experts", url.Values{"name": {"Ben"}}).mustStatus(t, http.StatusSeeOther)
	batches, _ := e.db.Batches(ctx, s.ID)
	experts, _ := e.db.Annotators(ctx, s.ID)
	if len(batches) != 1 || batches[0].Size != 20 || len(experts) != 2 {
		t.Fatalf("batches %+v, experts %+v", batches, experts)
	}
	admin.post(studyPath+"/rounds/1", url.Values{
		"batch":  {fmt.Sprint(batches[0].ID)},
		"expert": {fmt.Sprint(experts[0].ID), fmt.Sprint(experts[1].ID)},
	}).mustStatus(t, http.StatusSeeOther)
	admin.openStudy(t, studyPath)
	return s, experts
}

// answerFor is the answer the test gives to an item: keys ending in 1 are
// judged implausible (with an alternative), in 2 a wrong cancellation;
// attention checks are rejected.
func answerFor(it domain.Item) url.Values {
	v := url.Values{"plausible": {"yes"}, "cancellation_correct": {"yes"}}
	switch {
	case it.Check != "":
		v.Set("plausible", "no")
	case strings.HasSuffix(it.Key, "1"):
		v = url.Values{"plausible": {"no"}, "alt_implicature": {"alt impl for " + it.Key}, "alt_cancellation": {"alt canc for " + it.Key}}
	case strings.HasSuffix(it.Key, "2"):
		v.Set("cancellation_correct", "no")
		v.Set("alt_cancellation", "better cancellation for "+it.Key)
	}
	return v
}

func TestExpertFlow(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, experts := expertStudy(t, e, admin)
	ctx := context.Background()
	ada := experts[0]
	as, _ := e.db.AnnotatorAssignments(ctx, ada.ID)
	aid := as[0].ID
	screens, _ := e.db.Screens(ctx, aid)
	base := fmt.Sprintf("/e/%s/b/%d", ada.Token, aid)

	// The types come in the order of increasing load.
	order := []string{}
	for _, sc := range screens {
		if len(order) == 0 || order[len(order)-1] != sc.Item.Type {
			order = append(order, sc.Item.Type)
		}
	}
	if strings.Join(order, ",") != "scalar,synthetic,natural,discourse" {
		t.Fatalf("type order %v", order)
	}

	// Invitation → landing with the definitions.
	expert := e.newClient()
	expert.get("/e/"+ada.Token).mustStatus(t, 200).mustContain(t, `data-testid="definitions"`, "An implicature is", "A cancellation is", base)
	// Starting goes to the first screen, which first shows the scalar instructions.
	if loc := expert.get(base).mustStatus(t, http.StatusSeeOther).location(); loc != base+"/1" {
		t.Fatalf("start → %s", loc)
	}
	expert.get(base+"/1").mustStatus(t, 200).mustContain(t, `data-testid="intro-scalar"`, "Worked examples")
	expert.get(base+"/1?intro=seen").mustStatus(t, 200).mustContain(t, `data-testid="item-form"`, screens[0].Item.Implicature, "0 / 20")

	// An answer with no plausibility is refused with a message, nothing stored.
	expert.post(base+"/1", url.Values{"cancellation_correct": {"yes"}}).mustStatus(t, http.StatusUnprocessableEntity).mustContain(t, "please answer whether the implicature is plausible")
	// Plausible but no cancellation answer: refused too.
	expert.post(base+"/1", url.Values{"plausible": {"yes"}}).mustStatus(t, http.StatusUnprocessableEntity).mustContain(t, "cancellation is correct")

	answer := func(pos int) {
		t.Helper()
		// Before the first item of each type, its instructions come first.
		it := screens[pos-1].Item
		screen := expert.get(fmt.Sprintf("%s/%d", base, pos)).mustStatus(t, 200)
		if pos == 1 || screens[pos-2].Item.Type != it.Type {
			screen.mustContain(t, `data-testid="intro-`+it.Type+`"`, "Worked examples")
			screen = expert.get(fmt.Sprintf("%s/%d?intro=seen", base, pos)).mustStatus(t, 200)
		}
		screen.mustContain(t, `data-item="`+it.Key+`"`)
		if hasAlt := strings.Contains(screen.Body, `name="alt_implicature"`); hasAlt == (it.Type == "natural") {
			t.Fatalf("screen %d (%s): alternative box shown = %v", pos, it.Type, hasAlt)
		}
		resp := expert.post(fmt.Sprintf("%s/%d", base, pos), answerFor(it)).mustStatus(t, http.StatusSeeOther)
		want := fmt.Sprintf("%s/%d", base, pos+1)
		if pos == len(screens) {
			want = base + "/done"
		}
		if resp.location() != want {
			t.Fatalf("after screen %d → %s, want %s", pos, resp.location(), want)
		}
	}
	for pos := 1; pos <= 7; pos++ {
		answer(pos)
	}
	// Going back to an answered first-of-type screen shows the item at once.
	expert.get(base+"/1").mustStatus(t, 200).mustContain(t, `data-testid="item-form"`)

	// Leave and come back (a new browser, the same link): resume at screen 8.
	back := e.newClient()
	if loc := back.get(base).mustStatus(t, http.StatusSeeOther).location(); loc != base+"/8" {
		t.Fatalf("resume → %s, want %s/8", loc, base)
	}
	// Back to screen 1 shows the stored answer; change it.
	p1 := back.get(base+"/1").mustStatus(t, 200)
	if screens[0].Item.Key == "sc1" && !strings.Contains(p1.Body, `value="no" checked`) {
		t.Fatalf("screen 1 does not show the stored answer:\n%s", p1.Body)
	}
	back.post(base+"/1", url.Values{"plausible": {"yes"}, "cancellation_correct": {"yes"}, "alt_implicature": {"ignored"}}).mustStatus(t, http.StatusSeeOther)
	changedKey := screens[0].Item.Key

	// A double click: the same answer twice makes one row.
	back.post(base+"/8", answerFor(screens[7].Item)).mustStatus(t, http.StatusSeeOther)
	for pos := 8; pos <= len(screens); pos++ {
		resp := back.post(fmt.Sprintf("%s/%d", base, pos), answerFor(screens[pos-1].Item)).mustStatus(t, http.StatusSeeOther)
		_ = resp
	}
	back.get(base+"/done").mustStatus(t, 200).mustContain(t, `data-testid="done"`, "Thank you")
	var rows int
	e.db.Reader().QueryRow(`SELECT COUNT(*) FROM judgements WHERE assignment_id = ?`, aid).Scan(&rows)
	if rows != len(screens) {
		t.Fatalf("%d judgement rows, want %d (one per screen)", rows, len(screens))
	}

	// Natural items never keep alternatives, even when sent.
	for _, sc := range mustScreens(t, e, aid) {
		if sc.Item.Type == "natural" && (sc.Answer.AltImplicature != "" || sc.Answer.AltCancellation != "") {
			t.Errorf("natural item %s kept alternatives %+v", sc.Item.Key, sc.Answer)
		}
	}

	// The progress table shows Ada done, Ben not started, Ada's failed checks 0.
	admin.get(fmt.Sprintf("/admin/studies/%d", s.ID)).mustContain(t, "20 / 20 (100 %)", "0 / 20 (0 %)", "0 of 4")

	// The export: one row per answered data item, the changed answer as changed.
	exp := admin.get(fmt.Sprintf("/admin/studies/%d/export/judgements.csv", s.ID)).mustStatus(t, 200)
	recs, err := csv.NewReader(strings.NewReader(exp.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "annotator_id,item_id,item_type,plausible,cancellation_correct,item_version,shown_at,answered_at,rt_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot,typed_chars,inserted_chars,iki_median_ms,iki_iqr_ms" {
		t.Fatalf("header %v", recs[0])
	}
	if len(recs) != 1+16 {
		t.Fatalf("%d data rows, want 16 (checks left out)", len(recs)-1)
	}
	byKey := map[string]domain.Item{}
	for _, sc := range screens {
		byKey[sc.Item.Key] = sc.Item
	}
	for _, rec := range recs[1:] {
		it := byKey[rec[1]]
		want := answerFor(it)
		if rec[1] == changedKey {
			want = url.Values{"plausible": {"yes"}, "cancellation_correct": {"yes"}}
		}
		if rec[0] != "Ada" || rec[2] != it.Type || rec[3] != want.Get("plausible") || rec[4] != want.Get("cancellation_correct") || rec[5] != "1" {
			t.Errorf("row %v, want Ada,%s,%s,%s,%s", rec, it.Key, it.Type, want.Get("plausible"), want.Get("cancellation_correct"))
		}
	}
}

func mustScreens(t *testing.T, e *testEnv, aid int64) []domain.Screen {
	t.Helper()
	sc, err := e.db.Screens(context.Background(), aid)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestExpertCannotOpenAnotherExpertsBatch(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	_, experts := expertStudy(t, e, admin)
	ctx := context.Background()
	adaAs, _ := e.db.AnnotatorAssignments(ctx, experts[0].ID)
	ben := e.newClient()
	// Ben's token with Ada's assignment id: not found, nothing stored.
	path := fmt.Sprintf("/e/%s/b/%d", experts[1].Token, adaAs[0].ID)
	for _, p := range []string{path, path + "/1", path + "/done"} {
		if resp := ben.get(p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, resp.StatusCode)
		}
	}
	ben.post(path+"/1", url.Values{"plausible": {"yes"}, "cancellation_correct": {"yes"}}).mustStatus(t, http.StatusNotFound)
	// A made-up token is not found either.
	ben.get("/e/NOT-A-TOKEN").mustStatus(t, http.StatusNotFound)
	var n int
	e.db.Reader().QueryRow(`SELECT COUNT(*) FROM judgements`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d judgements stored by requests that were refused", n)
	}
}

func TestReviewAcceptAndDrop(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, experts := expertStudy(t, e, admin)
	ctx := context.Background()
	for _, ex := range experts {
		as, _ := e.db.AnnotatorAssignments(ctx, ex.ID)
		for _, sc := range mustScreens(t, e, as[0].ID) {
			a := answerFor(sc.Item)
			j := domain.Judgement{Plausible: a.Get("plausible"), CancellationCorrect: a.Get("cancellation_correct"), AltImplicature: a.Get("alt_implicature"), AltCancellation: a.Get("alt_cancellation")}
			if err := e.db.SaveJudgement(ctx, ex.ID, as[0].ID, sc.Position, j); err != nil {
				t.Fatal(err)
			}
		}
	}
	review := admin.get(fmt.Sprintf("/admin/studies/%d/review", s.ID)).mustStatus(t, 200)
	// sc1 / sy1 / di1 implausible, sc2 / sy2 / di2 / na2 wrong cancellation; na1 too (no alternatives).
	for _, k := range []string{"sc1", "sc2", "sy1", "di2", "na1", "na2"} {
		review.mustContain(t, `data-testid="flag-`+k+`"`)
	}
	if strings.Contains(review.Body, `data-testid="flag-ck1"`) {
		t.Fatal("an attention check is listed for review")
	}
	// Sorted by the annotator models: the same items, each with the
	// posterior of its majority label (the two experts agree: 1.00).
	review.mustContain(t, `data-testid="sort-posterior"`)
	sorted := admin.get(fmt.Sprintf("/admin/studies/%d/review?sort=posterior", s.ID)).mustStatus(t, 200)
	sorted.mustContain(t, `data-testid="sort-default"`, `data-testid="posterior">Posterior of the majority label (Dawid–Skene): 1.00<`)
	for _, k := range []string{"sc1", "sc2", "sy1", "di2", "na1", "na2"} {
		sorted.mustContain(t, `data-testid="flag-`+k+`"`)
	}
	items, _ := e.db.ListItems(ctx, s.ID)
	id := map[string]int64{}
	for _, it := range items {
		id[it.Key] = it.ID
	}
	admin.post(fmt.Sprintf("/admin/studies/%d/review/%d", s.ID, id["sc1"]), url.Values{"action": {"accept"}, "implicature": {"0"}, "cancellation": {"1"}}).mustStatus(t, http.StatusSeeOther)
	// Drop asks first, on a page of its own; only the confirmation drops.
	admin.post(fmt.Sprintf("/admin/studies/%d/review/%d", s.ID, id["na1"]), url.Values{"action": {"drop"}}).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="confirm-drop"`)
	if it, _ := e.db.ItemByID(ctx, s.ID, id["na1"]); it.Status != domain.ItemActive {
		t.Fatal("na1 dropped before the confirmation")
	}
	admin.post(fmt.Sprintf("/admin/studies/%d/review/%d", s.ID, id["na1"]), url.Values{"action": {"drop"}, "confirm": {"1"}}).mustStatus(t, http.StatusSeeOther)
	// Accepting with nothing chosen explains what to do, on the review page.
	admin.post(fmt.Sprintf("/admin/studies/%d/review/%d", s.ID, id["sc2"]), url.Values{"action": {"accept"}}).mustStatus(t, http.StatusBadRequest).
		mustContain(t, `data-testid="review-error"`, "keep as is", `data-testid="flag-sc2"`)

	cleaned := admin.get(fmt.Sprintf("/admin/studies/%d/export/items.csv", s.ID)).mustStatus(t, 200)
	back, err := itemfiles.ParseItemsCSV(strings.NewReader(cleaned.Body))
	if err != nil {
		t.Fatalf("cleaned export does not import again: %v", err)
	}
	if len(back) != 15 {
		t.Fatalf("cleaned set has %d items, want 15 (16 minus dropped na1, no checks)", len(back))
	}
	for _, it := range back {
		if it.Key == "sc1" && (it.Implicature != "alt impl for sc1" || it.Cancellation != "alt canc for sc1") {
			t.Errorf("sc1 in the cleaned set: %+v", it)
		}
		if it.Key == "na1" {
			t.Error("dropped item na1 is in the cleaned set")
		}
	}
	var revs int
	e.db.Reader().QueryRow(`SELECT COUNT(*) FROM item_revisions WHERE item_id = ?`, id["sc1"]).Scan(&revs)
	if revs != 1 {
		t.Fatalf("sc1 has %d revisions kept, want 1 (the original)", revs)
	}
	jsonl := admin.get(fmt.Sprintf("/admin/studies/%d/export/items.jsonl", s.ID)).mustStatus(t, 200)
	if n := strings.Count(jsonl.Body, "\n"); n != 15 {
		t.Fatalf("JSONL export has %d lines, want 15", n)
	}
}

func TestAdminNeedsLogin(t *testing.T) {
	e := newTestEnv(t)
	c := e.newClient()
	if loc := c.get("/admin").mustStatus(t, http.StatusSeeOther).location(); !strings.HasPrefix(loc, "/admin/login") {
		t.Fatalf("/admin → %s, want the login page", loc)
	}
	c.post("/admin/studies", url.Values{"name": {"x"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusUnauthorized)
	c.get("/admin/studies/1/export/judgements.csv").mustStatus(t, http.StatusSeeOther)
	e.db.CreateAdmin(context.Background(), "researcher", "correct horse battery")
	c.post("/admin/login", url.Values{"username": {"researcher"}, "password": {"wrong password!"}}).mustStatus(t, http.StatusUnauthorized).mustContain(t, "Wrong username or password")
	// The session cookie is HttpOnly and SameSite.
	resp := c.post("/admin/login", url.Values{"username": {"researcher"}, "password": {"correct horse battery"}, "next": {"https://evil.example/"}}).mustStatus(t, http.StatusSeeOther)
	if resp.location() != "/admin" {
		t.Fatalf("login with an off-site next → %s, want /admin", resp.location())
	}
	ck := resp.Header.Get("Set-Cookie")
	if !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Lax") {
		t.Fatalf("session cookie %q lacks HttpOnly or SameSite", ck)
	}
	c.get("/admin").mustStatus(t, 200)
}

func TestCrossOriginPostRefused(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Origin": "https://evil.example"},
	} {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/admin/studies", strings.NewReader("name=evil&kind=expert&lang=en"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp := admin.do(req)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("cross-origin post with %v: status %d, want 403", hdr, resp.StatusCode)
		}
	}
	studies, _ := e.db.Studies(context.Background())
	if len(studies) != 0 {
		t.Fatalf("a cross-origin post created %d studies", len(studies))
	}
}

func TestImportErrorShownAndNothingStored(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	for _, kind := range []string{"expert", "crowd"} {
		resp := admin.post("/admin/studies", url.Values{"name": {"V " + kind}, "kind": {kind}, "lang": {"en"}})
		bad := "id,type,context,utterance,implicature,cancellation\ns1,scalar,,u,i,c\ns2,scaler,,u,i,c\n"
		// The study's own page comes back, with the message naming line and field.
		admin.upload(resp.location()+"/items", "file", "bad.csv", []byte(bad)).mustStatus(t, http.StatusBadRequest).
			mustContain(t, "Nothing was imported", "line 3", "type", "scaler", `data-testid="import-form"`)
	}
	var n int
	e.db.Reader().QueryRow(`SELECT COUNT(*) FROM items`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d items stored from a rejected file", n)
	}
}

func TestLoginThrottled(t *testing.T) {
	e := newTestEnv(t)
	e.db.CreateAdmin(context.Background(), "researcher", "correct horse battery")
	c := e.newClient()
	for i := 0; i < 10; i++ {
		c.post("/admin/login", url.Values{"username": {"researcher"}, "password": {"guess number " + fmt.Sprint(i)}}).mustStatus(t, http.StatusUnauthorized)
	}
	// Even the right password is refused once the address is throttled.
	resp := c.post("/admin/login", url.Values{"username": {"researcher"}, "password": {"correct horse battery"}})
	resp.mustStatus(t, http.StatusTooManyRequests).mustContain(t, "Too many failed logins")
	if resp.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After header")
	}
}

// Once experts hold a batch, rebuilding the batches is refused on the
// study's own page, and the batches stay as they were.
func TestRebuildAssignedBatchesRefused(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, _ := expertStudy(t, e, admin)
	before, _ := e.db.Batches(context.Background(), s.ID)
	admin.post(fmt.Sprintf("/admin/studies/%d/batches", s.ID), url.Values{"batch_size": {"10"}, "checks": {"2"}}).
		mustStatus(t, http.StatusConflict).mustContain(t, "already assigned", `data-testid="batches-form"`)
	after, _ := e.db.Batches(context.Background(), s.ID)
	if len(after) != len(before) || after[0].ID != before[0].ID {
		t.Fatalf("batches changed after a refused rebuild: %+v → %+v", before, after)
	}
}

// TestExpertStudyStates: an expert's invitation works only while the
// study is open; a draft refuses to open without items and batches.
func TestExpertStudyStates(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	resp := admin.post("/admin/studies", url.Values{"name": {"Empty"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther)
	admin.post(resp.location()+"/state", url.Values{"state": {"open"}}).mustStatus(t, http.StatusConflict).
		mustContain(t, "The study cannot open yet", "items imported", "expert batches built")

	s, experts := expertStudy(t, e, admin)
	path := fmt.Sprintf("/admin/studies/%d", s.ID)
	expert := e.newClient()
	expert.get("/e/"+experts[0].Token).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="definitions"`)
	admin.post(path+"/state", url.Values{"state": {"paused"}}).mustStatus(t, http.StatusSeeOther)
	expert.get("/e/"+experts[0].Token).mustStatus(t, http.StatusServiceUnavailable).mustContain(t, `data-testid="study-paused"`, "answers you have given are saved")
	as, _ := e.db.AnnotatorAssignments(context.Background(), experts[0].ID)
	expert.post(fmt.Sprintf("/e/%s/b/%d/1", experts[0].Token, as[0].ID), url.Values{"plausible": {"yes"}, "cancellation_correct": {"yes"}}).
		mustStatus(t, http.StatusServiceUnavailable)
	if rows, _ := e.db.JudgementRows(context.Background(), s.ID); len(rows) != 0 {
		t.Fatalf("a judgement was stored while paused: %+v", rows)
	}
	admin.post(path+"/state", url.Values{"state": {"closed"}}).mustStatus(t, http.StatusSeeOther)
	expert.get("/e/"+experts[0].Token).mustStatus(t, http.StatusForbidden).mustContain(t, `data-testid="study-closed"`)
	admin.get(path).mustContain(t, `data-testid="study-state">Closed<`, `data-testid="state-changes"`)
}

// TestExpertAnswerTimes: an expert's answer carries its screen's first
// showing, its arrival and the browser's response time into the export.
func TestExpertAnswerTimes(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, experts := expertStudy(t, e, admin)
	as, _ := e.db.AnnotatorAssignments(context.Background(), experts[0].ID)
	screens, _ := e.db.Screens(context.Background(), as[0].ID)
	base := fmt.Sprintf("/e/%s/b/%d", experts[0].Token, as[0].ID)
	pos := 1
	for screens[pos-1].Item.Check != "" { // the export holds data items
		pos++
	}
	expert := e.newClient()
	expert.get(fmt.Sprintf("%s/%d?intro=seen", base, pos)).mustStatus(t, http.StatusOK).mustContain(t, `name="rt_ms"`)
	v := answerFor(screens[pos-1].Item)
	v.Set("rt_ms", "2100")
	expert.post(fmt.Sprintf("%s/%d", base, pos), v).mustStatus(t, http.StatusSeeOther)
	exp := admin.get(fmt.Sprintf("/admin/studies/%d/export/judgements.csv", s.ID)).mustStatus(t, http.StatusOK)
	recs, _ := csv.NewReader(strings.NewReader(exp.Body)).ReadAll()
	if len(recs) != 2 || recs[1][1] != screens[pos-1].Item.Key || recs[1][6] == "" || recs[1][7] == "" || recs[1][8] != "2100" {
		t.Fatalf("export %q", recs)
	}
}

// TestExpertPilot: the pilot link walks the expert flow of a draft study
// as a marked pilot expert, whose answers stay out of the judgements and
// the agreement unless ?pilot=include, and out of the experts' lists.
func TestExpertPilot(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, _ := expertStudy(t, e, admin)
	ctx := context.Background()
	path := fmt.Sprintf("/admin/studies/%d", s.ID)
	admin.post(path+"/state", url.Values{"state": {"draft"}}).mustStatus(t, http.StatusSeeOther)
	admin.post(path+"/pilot", url.Values{"action": {"new"}}).mustStatus(t, http.StatusSeeOther)
	tok, _ := e.db.PilotLink(ctx, s.ID)
	pilot := e.newClient()
	loc := pilot.get("/p/"+tok).mustStatus(t, http.StatusSeeOther).location()
	if !strings.HasPrefix(loc, "/e/") {
		t.Fatalf("pilot link → %s", loc)
	}
	// Every page of the pilot expert carries the pilot banner
	// (docs/studies.md#pilots); a real expert's never does.
	pilot.get(loc).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="definitions"`, `data-testid="pilot-banner"`)
	var pa domain.Annotator
	if a, err := e.db.AnnotatorByToken(ctx, strings.TrimPrefix(loc, "/e/")); err != nil || !a.Pilot {
		t.Fatalf("pilot expert %+v %v", a, err)
	} else {
		pa = *a
	}
	as, _ := e.db.AnnotatorAssignments(ctx, pa.ID)
	screens, _ := e.db.Screens(ctx, as[0].ID)
	for pos := 1; pos <= len(screens); pos++ {
		pilot.get(fmt.Sprintf("%s/b/%d/%d?intro=seen", loc, as[0].ID, pos)).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="pilot-banner"`)
		pilot.post(fmt.Sprintf("%s/b/%d/%d", loc, as[0].ID, pos), answerFor(screens[pos-1].Item)).mustStatus(t, http.StatusSeeOther)
	}
	pilot.get(fmt.Sprintf("%s/b/%d/done", loc, as[0].ID)).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="pilot-banner"`)
	real, _ := e.db.Annotators(ctx, s.ID)
	if page := e.newClient().get("/e/" + real[0].Token); strings.Contains(page.Body, "pilot-banner") {
		t.Fatal("a real expert sees the pilot banner")
	}
	if rows, _ := e.db.JudgementRows(ctx, s.ID); len(rows) != 0 {
		t.Fatalf("pilot judgements in the rows: %+v", rows)
	}
	exp := admin.get(path+"/export/judgements.csv?pilot=include").mustStatus(t, http.StatusOK)
	if !strings.Contains(exp.Body, pa.Name+",") {
		t.Fatalf("?pilot=include without the pilot expert:\n%s", exp.Body)
	}
	if as, _ := e.db.Annotators(ctx, s.ID); len(as) != 2 {
		t.Fatalf("experts list %+v", as)
	}
	// Nor do they count on the dashboard: no answer, nobody done.
	dash, err := e.db.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range dash {
		if o.Study.ID == s.ID && (o.Answers != 0 || o.Done != 0) {
			t.Errorf("the dashboard counts the pilot: %d answers, %d done", o.Answers, o.Done)
		}
	}
	admin.get(path).mustContain(t, "1 pilot sessions")
	admin.post(path+"/pilot", url.Values{"action": {"revoke"}}).mustStatus(t, http.StatusSeeOther)
	pilot.get(loc).mustStatus(t, http.StatusNotFound)
	admin.post(path+"/pilot", url.Values{"action": {"wipe"}}).mustStatus(t, http.StatusSeeOther)
	exp = admin.get(path + "/export/judgements.csv?pilot=include")
	if strings.Contains(exp.Body, "Pilot ") {
		t.Fatalf("pilot judgements after the wipe:\n%s", exp.Body)
	}
}
