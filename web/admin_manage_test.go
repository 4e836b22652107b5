package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"pragmalab/domain"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/store"
)

// testidText is the text inside the first element with the given
// data-testid, tags stripped and spaces collapsed.
func testidText(t *testing.T, body, testid string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)data-testid="` + regexp.QuoteMeta(testid) + `"[^>]*>(.*?)</(td|th|p|span|strong|summary)>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no element %s in\n%s", testid, short(body))
	}
	return strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], " ")), " ")
}

// dashboardRow is the dashboard's row of a study.
func dashboardRow(t *testing.T, c *client, id int64) string {
	t.Helper()
	body := c.get("/admin").mustStatus(t, 200).Body
	return rowText(t, body, fmt.Sprintf("study-%d", id))
}

func studyPath(id int64, sub string) string { return fmt.Sprintf("/admin/studies/%d%s", id, sub) }

// answerAll has both experts answer their whole batch (answerFor for the
// first, yes/yes for the second).
func answerAll(t *testing.T, e *testEnv, experts []domain.Annotator) {
	t.Helper()
	answerExperts(t, e, experts)
}
func TestDashboard(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, experts := expertStudy(t, e, admin)
	crowd := admin.post("/admin/studies", url.Values{"name": {"Crowd run"}, "kind": {"crowd"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther)
	crowdID, _ := strconv.ParseInt(strings.TrimPrefix(crowd.location(), "/admin/studies/"), 10, 64)

	// Before any answer: 16 items (the 4 attention checks apart, as the
	// study page counts them), two experts under way, no activity.
	row := dashboardRow(t, admin, s.ID)
	for _, want := range []string{"Validation", "Expert validation", "—", "16", "0 / 2", "Progress Analysis Scoring"} {
		if !strings.Contains(row, want) {
			t.Errorf("dashboard row %q lacks %q", row, want)
		}
	}
	// One expert finishes the batch; the other answers three screens.
	ctx := context.Background()
	as, _ := e.db.AnnotatorAssignments(ctx, experts[0].ID)
	for _, sc := range mustScreens(t, e, as[0].ID) {
		if err := e.db.SaveJudgement(ctx, experts[0].ID, as[0].ID, sc.Position, domain.Judgement{Plausible: "yes", CancellationCorrect: "yes"}); err != nil {
			t.Fatal(err)
		}
	}
	bs, _ := e.db.AnnotatorAssignments(ctx, experts[1].ID)
	for pos := 1; pos <= 3; pos++ {
		if err := e.db.SaveJudgement(ctx, experts[1].ID, bs[0].ID, pos, domain.Judgement{Plausible: "no"}); err != nil {
			t.Fatal(err)
		}
	}
	body := admin.get("/admin").mustStatus(t, 200).Body
	row = rowText(t, body, fmt.Sprintf("study-%d", s.ID))
	if !strings.Contains(row, "16 1 / 1 23") {
		t.Errorf("row %q: want 16 items, 1 expert done / 1 under way, 23 answers", row)
	}
	if !strings.Contains(row, "23 (23 not exported)") {
		t.Errorf("answers: row %q, want 23 answers, none exported", row)
	}
	if strings.Contains(row, "Last activity —") || !regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d`).MatchString(row) {
		t.Errorf("last activity missing: %q", row)
	}
	// Both studies are listed, each with the links to its pages.
	for _, link := range []string{
		`href="/admin/studies/` + fmt.Sprint(s.ID) + `#progress"`, `href="/admin/studies/` + fmt.Sprint(s.ID) + `/analysis"`,
		`href="/admin/studies/` + fmt.Sprint(s.ID) + `/jobs"`, `href="/admin/studies/` + fmt.Sprint(crowdID) + `/crowd/progress"`,
	} {
		if !strings.Contains(body, link) {
			t.Errorf("dashboard lacks the link %s", link)
		}
	}
	if got := rowText(t, body, fmt.Sprintf("study-%d", crowdID)); !strings.Contains(got, "Crowd ratings") || !strings.Contains(got, "0 / 0") {
		t.Errorf("crowd row %q", got)
	}
	// Exporting the judgements marks them exported.
	admin.get(studyPath(s.ID, "/export/judgements.csv")).mustStatus(t, 200)
	if row := dashboardRow(t, admin, s.ID); strings.Contains(row, "not exported") {
		t.Errorf("after the export the row still says %q", row)
	}
}

func TestStudyRenameArchiveRestore(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, experts := expertStudy(t, e, admin)
	admin.post(studyPath(s.ID, "/rename"), url.Values{"name": {"  "}}).mustStatus(t, http.StatusBadRequest).mustContain(t, "name must be 1–200 characters")
	admin.post(studyPath(s.ID, "/rename"), url.Values{"name": {"Validation, spring term"}}).mustStatus(t, http.StatusSeeOther)
	admin.get(studyPath(s.ID, "")).mustContain(t, "<h1>Validation, spring term</h1>")

	admin.post(studyPath(s.ID, "/archive"), url.Values{"archived": {"1"}}).mustStatus(t, http.StatusSeeOther)
	home := admin.get("/admin").mustStatus(t, 200)
	if strings.Contains(home.Body, fmt.Sprintf(`data-testid="study-%d"`, s.ID)) {
		t.Fatal("an archived study is still on the dashboard")
	}
	home.mustContain(t, `data-testid="archived"`, fmt.Sprintf(`data-testid="archived-%d"`, s.ID))
	// Read-only: every change is refused and nothing is stored.
	admin.get(studyPath(s.ID, "")).mustStatus(t, 200).mustContain(t, `data-testid="archived-banner"`, `data-testid="restore"`)
	admin.post(studyPath(s.ID, "/experts"), url.Values{"name": {"Cleo"}}).mustStatus(t, http.StatusConflict).mustContain(t, "archived and read-only")
	admin.post(studyPath(s.ID, "/rename"), url.Values{"name": {"Other"}}).mustStatus(t, http.StatusConflict)
	if people, _ := e.db.Annotators(context.Background(), s.ID); len(people) != 2 {
		t.Fatalf("%d experts after a refused invitation", len(people))
	}
	// Its participants are told it is closed, and cannot answer.
	expert := e.newClient()
	as, _ := e.db.AnnotatorAssignments(context.Background(), experts[0].ID)
	expert.get("/e/"+experts[0].Token).mustStatus(t, http.StatusGone).mustContain(t, "This study is closed")
	expert.post(fmt.Sprintf("/e/%s/b/%d/1", experts[0].Token, as[0].ID), url.Values{"plausible": {"yes"}, "cancellation_correct": {"yes"}}).mustStatus(t, http.StatusGone)
	// Deleting a job is a change too.
	admin.post(studyPath(s.ID, "/jobs/1/delete"), nil).mustStatus(t, http.StatusConflict)
	// Restored, it is back and writable.
	admin.post(studyPath(s.ID, "/archive"), url.Values{"archived": {"0"}}).mustStatus(t, http.StatusSeeOther)
	dashboardRow(t, admin, s.ID)
	admin.post(studyPath(s.ID, "/experts"), url.Values{"name": {"Cleo"}}).mustStatus(t, http.StatusSeeOther)
	expert.get("/e/"+experts[0].Token).mustStatus(t, http.StatusOK)
}

func TestStudyCloneAndDelete(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	s, experts := expertStudy(t, e, admin)
	answerAll(t, e, experts)
	items, _ := e.db.ListItems(ctx, s.ID)
	// A corrected item is cloned with its current text, as version 1.
	if _, err := e.db.EditItem(ctx, s.ID, items[0].ID, domain.Item{Type: items[0].Type, Context: items[0].Context, Utterance: items[0].Utterance,
		Implicature: "corrected implicature", Cancellation: items[0].Cancellation, Check: items[0].Check}, ""); err != nil {
		t.Fatal(err)
	}

	cl := admin.post(studyPath(s.ID, "/clone"), url.Values{"name": {"Validation re-run"}}).mustStatus(t, http.StatusSeeOther)
	cloneID, _ := strconv.ParseInt(strings.TrimPrefix(cl.location(), "/admin/studies/"), 10, 64)
	c, err := e.db.Study(ctx, cloneID)
	if err != nil || c.Name != "Validation re-run" || c.Kind != domain.KindExpert || string(c.Settings) != string(mustStudy(t, e, s.ID).Settings) {
		t.Fatalf("clone %+v %v", c, err)
	}
	citems, _ := e.db.ListItems(ctx, cloneID)
	if len(citems) != len(items) || citems[0].Implicature != "corrected implicature" || citems[0].Version != 1 {
		t.Fatalf("cloned items: %d, first %+v", len(citems), citems[0])
	}
	if bs, _ := e.db.Batches(ctx, cloneID); len(bs) != 1 || bs[0].Size != 20 {
		t.Fatalf("cloned batches %+v", bs)
	}
	if people, _ := e.db.Annotators(ctx, cloneID); len(people) != 0 {
		t.Fatalf("the clone has %d experts, want none", len(people))
	}
	if r, _ := e.db.StudyResponses(ctx, cloneID); r.Answers != 0 {
		t.Fatalf("the clone has %d answers", r.Answers)
	}

	// Delete: the name must be typed; answers never exported ask again.
	admin.get(studyPath(s.ID, "/delete")).mustStatus(t, 200).mustContain(t, `data-testid="delete-form"`, "40 answers", `data-testid="unexported"`)
	admin.post(studyPath(s.ID, "/delete"), url.Values{"name": {"validation"}}).mustStatus(t, http.StatusBadRequest).mustContain(t, "type the study")
	admin.post(studyPath(s.ID, "/delete"), url.Values{"name": {"Validation"}}).mustStatus(t, http.StatusConflict).mustContain(t, `data-testid="confirm-again"`, "40 answers were never exported")
	mustStudy(t, e, s.ID)
	admin.post(studyPath(s.ID, "/delete"), url.Values{"name": {"Validation"}, "force": {"1"}}).mustStatus(t, http.StatusSeeOther)
	if _, err := e.db.Study(ctx, s.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("study still there after delete: %v", err)
	}
	var n int
	e.db.Reader().QueryRow(`SELECT COUNT(*) FROM judgements`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d judgements left", n)
	}
	// The clone is untouched, and once exported a study is deleted at the
	// first confirmation.
	mustStudy(t, e, cloneID)
	admin.get(studyPath(cloneID, "/export/judgements.csv")).mustStatus(t, 200)
	admin.post(studyPath(cloneID, "/delete"), url.Values{"name": {"Validation re-run"}}).mustStatus(t, http.StatusSeeOther)

	// Each action is in the audit log, in words, under its study.
	for id, want := range map[int64][]string{
		s.ID:    {"clone study: cloned into study", "delete study: deleted expert study \"Validation\" with 40 answers (40 never exported)"},
		cloneID: {"delete study: deleted expert study \"Validation re-run\" with 0 answers"},
	} {
		log, _ := e.db.AuditLog(ctx, id, 0)
		var got []string
		for _, a := range log {
			got = append(got, a.Action+": "+a.Detail)
		}
		for _, w := range want {
			if !strings.Contains(strings.Join(got, "\n"), w) {
				t.Errorf("audit log of study %d lacks %q:\n%s", id, w, strings.Join(got, "\n"))
			}
		}
	}
}

func mustStudy(t *testing.T, e *testEnv, id int64) *domain.Study {
	t.Helper()
	s, err := e.db.Study(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestItemCorrectedInPlace(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	s, experts := expertStudy(t, e, admin)
	as, _ := e.db.AnnotatorAssignments(ctx, experts[0].ID)
	screens := mustScreens(t, e, as[0].ID)
	// The first data item (attention checks are left out of the export).
	var first domain.Item
	pos := 0
	for i, sc := range screens {
		if sc.Item.Check == "" {
			first, pos = sc.Item, i+1
			break
		}
	}
	// An answer on version 1.
	if err := e.db.SaveJudgement(ctx, experts[0].ID, as[0].ID, pos, domain.Judgement{Plausible: "yes", CancellationCorrect: "yes"}); err != nil {
		t.Fatal(err)
	}
	edit := studyPath(s.ID, fmt.Sprintf("/items/%d/edit", first.ID))
	admin.get(edit).mustStatus(t, 200).mustContain(t, `data-testid="edit-item"`, "Correct item "+first.Key, `name="utterance"`)
	form := url.Values{"type": {first.Type}, "context": {first.Context}, "utterance": {""}, "implicature": {first.Implicature},
		"cancellation": {first.Cancellation}, "check": {first.Check}}
	// A bad field is named, the typed values kept, nothing changed.
	admin.post(edit, form).mustStatus(t, http.StatusBadRequest).mustContain(t, `data-testid="field-error-utterance"`, "is empty")
	form.Set("utterance", first.Utterance)
	form.Set("implicature", "A better implicature.")
	form.Set("note", "typo")
	admin.post(edit, form).mustStatus(t, http.StatusSeeOther)
	it, _ := e.db.ItemByID(ctx, s.ID, first.ID)
	if it.Version != 2 || it.Implicature != "A better implicature." {
		t.Fatalf("after the edit: %+v", it)
	}
	admin.get(edit).mustStatus(t, 200).mustContain(t, `data-testid="revisions"`, "typo")
	// An answer on version 2; the export names each answer's version.
	asB := mustAssignment(t, e, experts[1].ID)
	posB := 0
	for i, sc := range mustScreens(t, e, asB) {
		if sc.Item.Key == first.Key {
			posB = i + 1
		}
	}
	if err := e.db.SaveJudgement(ctx, experts[1].ID, asB, posB, domain.Judgement{Plausible: "yes", CancellationCorrect: "yes"}); err != nil {
		t.Fatal(err)
	}
	recs := csvRecords(t, admin, studyPath(s.ID, "/export/judgements.csv"))
	// item_version follows the judgements file's columns; the answer
	// times come after it (docs/formats.md#judgements-export).
	if h := recs[0]; h[5] != "item_version" {
		t.Fatalf("header %v: item_version must follow the judgements columns", h)
	}
	versions := map[string]string{}
	for _, r := range recs[1:] {
		if r[1] == first.Key {
			versions[r[0]] = r[5]
		}
	}
	if versions["Ada"] != "1" || versions["Ben"] != "2" {
		t.Fatalf("item versions of the answers on %s: %v, want Ada 1, Ben 2", first.Key, versions)
	}
}

func mustAssignment(t *testing.T, e *testEnv, annotatorID int64) int64 {
	t.Helper()
	as, err := e.db.AnnotatorAssignments(context.Background(), annotatorID)
	if err != nil || len(as) == 0 {
		t.Fatalf("assignments: %v %v", as, err)
	}
	return as[0].ID
}

func csvRecords(t *testing.T, c *client, path string) [][]string {
	t.Helper()
	p := c.get(path).mustStatus(t, 200)
	recs, err := csv.NewReader(strings.NewReader(p.Body)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func TestItemsReimportPreview(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	s, _ := expertStudy(t, e, admin)
	data, _ := os.ReadFile("../cli/demo/items.jsonl")
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	before, _ := e.db.ListItems(ctx, s.ID)
	// Change the implicature of the first item, add a new one.
	lines[0] = strings.Replace(lines[0], `"implicature": "`, `"implicature": "CHANGED `, 1)
	lines[0] = strings.Replace(lines[0], `"implicature":"`, `"implicature":"CHANGED `, 1)
	lines = append(lines, `{"id":"new1","type":"scalar","utterance":"Some came.","implicature":"Not all came.","cancellation":"In fact all came."}`)
	file := []byte(strings.Join(lines, "\n") + "\n")

	p := admin.upload(studyPath(s.ID, "/items/reimport"), "file", "fixed.jsonl", file).mustStatus(t, http.StatusSeeOther)
	preview := admin.get(p.location()).mustStatus(t, 200)
	if got := testidText(t, preview.Body, "reimport-summary"); got != "1 item changes, 1 item is new, 19 items are unchanged." {
		t.Fatalf("summary %q", got)
	}
	preview.mustContain(t, `data-testid="change-`+before[0].Key+`"`, `data-testid="field-implicature"`, "CHANGED ", `data-testid="change-new1"`)
	// Nothing is applied by the preview.
	if it, _ := e.db.ItemByID(ctx, s.ID, before[0].ID); it.Version != 1 {
		t.Fatal("the preview changed the item")
	}
	digest := regexp.MustCompile(`name="digest" value="([0-9a-f]+)"`).FindStringSubmatch(preview.Body)
	if digest == nil {
		t.Fatal("no digest in the apply form")
	}
	// If the items change in between, nothing is applied.
	admin.post(studyPath(s.ID, fmt.Sprintf("/items/%d/edit", before[1].ID)), url.Values{"type": {before[1].Type}, "context": {before[1].Context},
		"utterance": {before[1].Utterance}, "implicature": {"edited meanwhile"}, "cancellation": {before[1].Cancellation}, "check": {before[1].Check}}).mustStatus(t, http.StatusSeeOther)
	stale := admin.post(p.location(), url.Values{"action": {"apply"}, "digest": {"0123456789abcdef0123456789abcdef"}}).mustStatus(t, http.StatusConflict)
	stale.mustContain(t, "nothing was applied")
	if n := len(mustItems(t, e, s.ID)); n != 20 {
		t.Fatalf("%d items after a refused apply", n)
	}
	// Applying what was shown (the edit meanwhile does not touch the file's
	// changes: item 2 of the file now differs, so the digest changed too).
	fresh := admin.get(p.location()).mustStatus(t, 200)
	d2 := regexp.MustCompile(`name="digest" value="([0-9a-f]+)"`).FindStringSubmatch(fresh.Body)[1]
	if d2 == digest[1] {
		t.Fatal("the digest did not change with the items")
	}
	admin.post(p.location(), url.Values{"action": {"apply"}, "digest": {digest[1]}}).mustStatus(t, http.StatusConflict)
	admin.post(p.location(), url.Values{"action": {"apply"}, "digest": {d2}, "note": {"spring fix"}}).mustStatus(t, http.StatusSeeOther)
	after := mustItems(t, e, s.ID)
	if len(after) != 21 || !strings.HasPrefix(after[0].Implicature, "CHANGED ") || after[0].Version != 2 || after[1].Implicature != before[1].Implicature || after[1].Version != 3 {
		t.Fatalf("after apply: %d items, first %+v, second %+v", len(after), after[0], after[1])
	}
	// The upload is gone once applied; a broken file is refused whole.
	admin.get(p.location()).mustStatus(t, http.StatusNotFound)
	bad := append([]byte(nil), file...)
	bad = append(bad, []byte(`{"id":"bad","type":"nonsense","utterance":"x","implicature":"y","cancellation":"z"}`+"\n")...)
	admin.upload(studyPath(s.ID, "/items/reimport"), "file", "bad.jsonl", bad).mustStatus(t, http.StatusBadRequest).mustContain(t, "Nothing was imported", "line 22", "nonsense")
}

func mustItems(t *testing.T, e *testEnv, studyID int64) []domain.Item {
	t.Helper()
	items, err := e.db.ListItems(context.Background(), studyID)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func TestPeopleRenameRevokeReissue(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	s, experts := expertStudy(t, e, admin)
	ada := experts[0]
	page := admin.get(studyPath(s.ID, "")).mustStatus(t, 200)
	// The links are listed with a read-only field to copy from, and the
	// round form says who already has which batch.
	page.mustContain(t, `data-testid="people"`, `readonly value="`+e.srv.URL+`/e/`+ada.Token+`"`, "data-copy",
		"Round 1: batch #1, with Ada, Ben; add experts to it", "pragmalab links --study")
	if got := testidText(t, page.Body, "assignee-Ada"); !strings.Contains(got, "has #1 (round 1)") {
		t.Errorf("round form entry of Ada: %q", got)
	}
	admin.post(studyPath(s.ID, fmt.Sprintf("/people/%d/rename", ada.ID)), url.Values{"name": {"Ben"}}).mustStatus(t, http.StatusConflict).mustContain(t, "already has an expert named")
	admin.post(studyPath(s.ID, fmt.Sprintf("/people/%d/rename", ada.ID)), url.Values{"name": {"Ada Lovelace"}}).mustStatus(t, http.StatusSeeOther)
	admin.get(studyPath(s.ID, "")).mustContain(t, `data-testid="person-Ada Lovelace"`)

	expert := e.newClient()
	expert.get("/e/"+ada.Token).mustStatus(t, 200)
	admin.post(studyPath(s.ID, fmt.Sprintf("/people/%d/revoke", ada.ID)), nil).mustStatus(t, http.StatusSeeOther)
	expert.get("/e/"+ada.Token).mustStatus(t, http.StatusNotFound)
	admin.get(studyPath(s.ID, "")).mustContain(t, `data-testid="revoked"`)

	admin.post(studyPath(s.ID, fmt.Sprintf("/people/%d/reissue", ada.ID)), nil).mustStatus(t, http.StatusSeeOther)
	people, _ := e.db.Annotators(ctx, s.ID)
	if people[0].Token == ada.Token || people[0].Revoked {
		t.Fatalf("after re-issue: %+v", people[0])
	}
	expert.get("/e/"+people[0].Token).mustStatus(t, 200)
	expert.get("/e/"+ada.Token).mustStatus(t, http.StatusNotFound)
	// Another study's expert cannot be touched through this study.
	other := admin.post("/admin/studies", url.Values{"name": {"Other"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther).location()
	admin.post(other+fmt.Sprintf("/people/%d/revoke", ada.ID), nil).mustStatus(t, http.StatusNotFound)
}

func TestReviewThatFinishes(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	s, experts := expertStudy(t, e, admin)
	answerAll(t, e, experts)
	id := map[string]domain.Item{}
	for _, it := range mustItems(t, e, s.ID) {
		id[it.Key] = it
	}
	review := studyPath(s.ID, "/review")
	item := func(k string) string { return studyPath(s.ID, fmt.Sprintf("/review/%d", id[k].ID)) }
	page := admin.get(review).mustStatus(t, 200)
	page.mustContain(t, `data-testid="flag-sc1"`, `data-testid="choices-implicature"`, `value="keep"`, `value="own"`, "alt impl for sc1")

	// Nothing chosen: the page says what to do, and nothing changes.
	admin.post(item("sc1"), url.Values{"action": {"accept"}}).mustStatus(t, http.StatusBadRequest).
		mustContain(t, `data-testid="review-error"`, "choose “keep as is”", `data-testid="flag-sc1"`)
	// "Write my own fix" without text says so, and keeps the choice.
	admin.post(item("sc1"), url.Values{"action": {"accept"}, "implicature": {"own"}}).mustStatus(t, http.StatusBadRequest).
		mustContain(t, "type it in the box")
	// Keep as is: the item leaves the flagged list, unchanged.
	admin.post(item("sc2"), url.Values{"action": {"accept"}, "implicature": {"keep"}, "cancellation": {"keep"}}).mustStatus(t, http.StatusSeeOther)
	// Own fix for the implicature, an expert's alternative for the cancellation.
	admin.post(item("sc1"), url.Values{"action": {"accept"}, "implicature": {"own"}, "own_implicature": {"My own implicature."}, "cancellation": {"0"}}).mustStatus(t, http.StatusSeeOther)
	page = admin.get(review).mustStatus(t, 200)
	for _, k := range []string{"sc1", "sc2"} {
		if strings.Contains(page.Body, `data-testid="flag-`+k+`"`) {
			t.Errorf("decided item %s is still in the flagged list", k)
		}
		page.mustContain(t, `data-testid="decided-`+k+`"`)
	}
	if got := rowText(t, page.Body, "decided-sc1"); !strings.Contains(got, "own fix") || !strings.Contains(got, "My own implicature.") || !strings.Contains(got, "alt canc for sc1") {
		t.Errorf("decided row of sc1: %q", got)
	}
	if it, _ := e.db.ItemByID(ctx, s.ID, id["sc2"].ID); it.Version != 1 || it.Decision != domain.ReviewKept {
		t.Errorf("sc2 after keep: %+v", it)
	}
	// Undo brings sc1 back, with its original text as a new version.
	admin.post(item("sc1"), url.Values{"action": {"undo"}}).mustStatus(t, http.StatusSeeOther)
	it, _ := e.db.ItemByID(ctx, s.ID, id["sc1"].ID)
	if it.Decision != "" || it.Implicature != id["sc1"].Implicature || it.Cancellation != id["sc1"].Cancellation || it.Version != 3 {
		t.Fatalf("sc1 after undo: %+v", it)
	}
	admin.get(review).mustContain(t, `data-testid="flag-sc1"`)
	// Drop goes through a confirmation page (a GET: the button's
	// formaction, no script needed), then can be undone too.
	admin.get(item("sy1")+"/drop").mustStatus(t, http.StatusOK).mustContain(t, `data-testid="confirm-drop"`)
	if it, _ := e.db.ItemByID(ctx, s.ID, id["sy1"].ID); it.Status != domain.ItemActive {
		t.Fatal("opening the confirmation dropped the item")
	}
	admin.get(review).mustContain(t, `formaction="`+item("sy1")+`/drop"`)
	admin.post(item("sy1"), url.Values{"action": {"drop"}}).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="confirm-drop"`, `name="confirm" value="1"`)
	admin.post(item("sy1"), url.Values{"action": {"drop"}, "confirm": {"1"}}).mustStatus(t, http.StatusSeeOther)
	if it, _ := e.db.ItemByID(ctx, s.ID, id["sy1"].ID); it.Status != domain.ItemDropped {
		t.Fatalf("sy1 not dropped: %+v", it)
	}
	admin.post(item("sy1"), url.Values{"action": {"undo"}}).mustStatus(t, http.StatusSeeOther)
	if it, _ := e.db.ItemByID(ctx, s.ID, id["sy1"].ID); it.Status != domain.ItemActive {
		t.Fatalf("sy1 not restored by undo: %+v", it)
	}
	// No undo once the study is archived.
	admin.post(item("sc2"), url.Values{"action": {"undo"}}).mustStatus(t, http.StatusSeeOther)
	admin.post(item("sc2"), url.Values{"action": {"accept"}, "implicature": {"keep"}}).mustStatus(t, http.StatusSeeOther)
	admin.post(studyPath(s.ID, "/archive"), url.Values{"archived": {"1"}}).mustStatus(t, http.StatusSeeOther)
	if strings.Contains(admin.get(review).Body, `data-testid="undo"`) {
		t.Error("an archived study still offers undo")
	}
	admin.post(item("sc2"), url.Values{"action": {"undo"}}).mustStatus(t, http.StatusConflict)

	// alternatives.csv: every alternative typed, with the item's version
	// and the review's decision.
	recs := csvRecords(t, admin, studyPath(s.ID, "/export/alternatives.csv"))
	if strings.Join(recs[0], ",") != strings.Join(store.AlternativesHeader, ",") {
		t.Fatalf("header %v", recs[0])
	}
	found := false
	for _, r := range recs[1:] {
		if r[0] == "Ada" && r[1] == "sc1" {
			found = r[3] == "1" && r[6] == "alt impl for sc1" && r[7] == "alt canc for sc1" && r[8] == ""
		}
		if r[1] == "sc2" && r[8] != domain.ReviewKept {
			t.Errorf("sc2 row %v: decision should be kept", r)
		}
	}
	if !found {
		t.Errorf("no row of Ada's alternatives for sc1 in\n%v", recs)
	}
}

func TestJobDelete(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	study := itemsStudy(t, env.db, 3)
	base := studyPath(study, "")
	p := c.post(base+"/jobs", url.Values{"task": {"truefalse"}, "scorer": {"always-true"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}}).mustStatus(t, http.StatusSeeOther)
	id, _ := strconv.ParseInt(p.location()[strings.LastIndex(p.location(), "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)
	c.get(base+"/jobs").mustContain(t, fmt.Sprintf(`data-testid="delete-job-%d"`, id))
	// A job of another study cannot be deleted through this one.
	other := itemsStudy(t, env.db, 1)
	c.post(studyPath(other, fmt.Sprintf("/jobs/%d/delete", id)), nil).mustStatus(t, http.StatusNotFound)
	c.post(base+fmt.Sprintf("/jobs/%d/delete", id), nil).mustStatus(t, http.StatusSeeOther)
	if _, err := env.db.Job(context.Background(), id); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("job still there: %v", err)
	}
	var n int
	env.db.Reader().QueryRow(`SELECT COUNT(*) FROM scoring_prompts WHERE job_id = ?`, id).Scan(&n)
	if n != 0 {
		t.Fatalf("%d prompts of the deleted job left", n)
	}
	if strings.Contains(c.get(base+"/jobs").Body, fmt.Sprintf(`data-testid="job-%d"`, id)) {
		t.Fatal("the deleted job is still listed")
	}
}

// TestExpertDefaultsFitTheDemoItems: the build form's proposed batch size
// and checks build the demo items (docs/studies.md#expert-batches) into one
// batch, and the page says "Built 1 batch", not "1 batches".
func TestExpertDefaultsFitTheDemoItems(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	loc := admin.post("/admin/studies", url.Values{"name": {"Fresh"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther).location()
	data, _ := os.ReadFile("../cli/demo/items.jsonl")
	admin.upload(loc+"/items", "file", "items.jsonl", data).mustStatus(t, http.StatusSeeOther)
	page := admin.get(loc).mustStatus(t, 200)
	size := regexp.MustCompile(`name="batch_size"[^>]*value="(\d+)"`).FindStringSubmatch(page.Body)
	checks := regexp.MustCompile(`name="checks"[^>]*value="(\d+)"`).FindStringSubmatch(page.Body)
	if size == nil || checks == nil {
		t.Fatalf("no batch form values in\n%s", short(page.Body))
	}
	// Pressing "Build batches" with what the form proposes works.
	admin.post(loc+"/batches", url.Values{"batch_size": {size[1]}, "checks": {checks[1]}}).mustStatus(t, http.StatusSeeOther)
	admin.get(loc).mustContain(t, "Built 1 batch (seed", "(20 screens)")
}
