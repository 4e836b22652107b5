package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
	"pragmalab/web"
)

// newEmptyJudgementEnv is a draft judgement study — conditions kontrolle and
// zielsatz, 5 German-labelled points — without items, served.
func newEmptyJudgementEnv(t *testing.T) *crowdEnv {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "judgement.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := &domain.Study{Kind: domain.KindJudgement, Name: "Akzeptabilität", Lang: "de", Seed: 5}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultJudgementSettings()
	set.Conditions = []string{"kontrolle", "zielsatz"}
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 5, 4, 2
	set.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	s, err := web.New(ctx, web.Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &crowdEnv{t: t, db: db, srv: srv, web: s, study: st.ID, set: set}
}

// TestJudgementItemsUpload: a judgement study's item template has the
// judgement columns and a minimal pair in its own conditions, and the
// admin upload imports it as it stands; a file with an undeclared
// condition is refused naming line and field, and nothing is stored
// (docs/items.md#judgement-items).
func TestJudgementItemsUpload(t *testing.T) {
	e := newEmptyJudgementEnv(t)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)

	bad := "item,condition,sentence\n1,kontrolle,A.\n1,target,B.\n"
	a.upload(study+"/items", "bad.csv", []byte(bad))
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, `line 3, field &#34;condition&#34;: item &#34;1&#34; is in the condition &#34;target&#34;, which the study does not declare`) {
		t.Fatalf("bad file: %d\n%.3000s", a.resp.StatusCode, a.body)
	}
	if items, _ := e.db.ListItems(context.Background(), e.study); len(items) != 0 {
		t.Fatalf("a refused file stored %d items", len(items))
	}

	a.get(study + "/template/items.csv")
	if a.resp.StatusCode != 200 || !strings.HasPrefix(a.body, "item,condition,sentence,context,check,training\n1,kontrolle,") || !strings.Contains(a.body, "\n1,zielsatz,") {
		t.Fatalf("judgement items template: %d\n%s", a.resp.StatusCode, a.body)
	}
	a.upload(study+"/items", "items-template.csv", []byte(a.body))
	items, err := e.db.ListItems(context.Background(), e.study)
	if err != nil || len(items) != 4 {
		t.Fatalf("the template did not import as it stands: %d items, %v (page %d)", len(items), err, a.resp.StatusCode)
	}
	if it := items[0]; it.Type != domain.TypeJudgement || len(it.Variants) != 2 || it.Variants["zielsatz"].Sentence == "" {
		t.Errorf("the minimal pair was stored as %+v", it)
	}
	if items[3].Training != "high" || items[1].Check != "high" || items[2].Check != "low" {
		t.Errorf("check and practice items stored as %+v", items[1:])
	}
	// The study page's item download (the data set after review: the data
	// items) gives the items back in the study's own columns, and that
	// file imports into another judgement study as they were.
	template := a.body
	a.get(study + "/export/items.csv")
	if a.resp.StatusCode != 200 || !strings.HasPrefix(a.body, "item,condition,sentence,context,check,training\n") || strings.Contains(a.body, "implicature") {
		t.Fatalf("the items download of a judgement study:\n%s\n(the template was\n%s)", a.body, template)
	}
	other := newEmptyJudgementEnv(t)
	oa := other.admin()
	oa.upload(fmt.Sprintf("/admin/studies/%d/items", other.study), "items.csv", []byte(a.body))
	back, err := other.db.ListItems(context.Background(), other.study)
	if err != nil || len(back) != 1 || !reflect.DeepEqual(back[0].Variants, items[0].Variants) {
		t.Fatalf("the downloaded items did not import as they were: %d items, %v\n%s", len(back), err, a.body)
	}
	a.get(study + "/export/items.jsonl")
	if a.resp.StatusCode != 200 || !strings.Contains(a.body, `"variants"`) && !strings.Contains(a.body, `"condition"`) {
		t.Errorf("the JSON Lines download of a judgement study:\n%s", a.body)
	}
}

// TestJudgementDesignThroughThePages: a judgement study's design file,
// downloaded from its page, makes a new study from the dashboard's
// "New study from a design file" whose design is the file's apart from
// the name — items by condition included; one with an undeclared
// condition is refused beside the form and creates nothing
// (docs/studies.md#design-file).
func TestJudgementDesignThroughThePages(t *testing.T) {
	e := newEmptyJudgementEnv(t)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.upload(study+"/items", "items.csv", []byte("item,condition,sentence,context,check\n1,kontrolle,Der Hund bellt.,Im Park:,\n1,zielsatz,Der Hund bellen.,Im Park:,\nc,zielsatz,Die Sonne scheint.,,high\n"))
	a.get(study + "/design.json")
	if a.resp.StatusCode != 200 || !strings.Contains(a.body, `"zielsatz": {`) {
		t.Fatalf("design download: %d\n%s", a.resp.StatusCode, a.body)
	}
	design := a.body
	bad := strings.Replace(design, `"zielsatz": {
          "context"`, `"target": {
          "context"`, 1)
	if bad == design {
		t.Fatalf("the design's items are not keyed by condition as expected:\n%s", design)
	}
	a.uploadDesign([]byte(bad), "")
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "which the study does not declare") {
		t.Fatalf("bad design: %d\n%.3000s", a.resp.StatusCode, a.body)
	}
	if all, _ := e.db.Dashboard(context.Background()); len(all) != 1 {
		t.Fatalf("a refused design created a study: %d studies", len(all))
	}
	a.uploadDesign([]byte(design), "Zweiter Lauf")
	m := regexp.MustCompile(`/admin/studies/(\d+)`).FindStringSubmatch(a.resp.Request.URL.Path)
	if a.resp.StatusCode != 200 || m == nil || m[1] == fmt.Sprint(e.study) {
		t.Fatalf("new study from design: %d %s", a.resp.StatusCode, a.resp.Request.URL)
	}
	a.get("/admin/studies/" + m[1] + "/design.json")
	if again := strings.Replace(a.body, `"name": "Zweiter Lauf"`, `"name": "Akzeptabilität"`, 1); again != design {
		t.Errorf("the new study's design differs:\nfile: %s\nnew:  %s", design, a.body)
	}
}
