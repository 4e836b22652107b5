package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"strings"
	"testing"
)

func (b *browser) upload(path, name string, data []byte) *browser {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest("POST", b.env.srv.URL+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.do(req)
}

// publishedItems is an item file of n data items (types cycling), the
// given training items and 10 checks (5 high, 5 low).
func publishedItems(n, training int) []byte {
	var b strings.Builder
	b.WriteString("id,type,context,utterance,implicature,cancellation,check,training\n")
	types := []string{"scalar", "discourse", "synthetic", "natural"}
	for i := range n {
		fmt.Fprintf(&b, "it%03d,%s,S1: Hello?,S2: Item %d.,Belief %d.,Cancel %d.,,\n", i, types[i%4], i, i, i)
	}
	for i := range training {
		fmt.Fprintf(&b, "tr%d,%s,,S2: Practice %d.,Belief t%d.,Cancel t%d.,,%s\n", i, types[i%4], i, i, i, []string{"high", "low"}[i%2])
	}
	for i := range 10 {
		fmt.Fprintf(&b, "chk%d,synthetic,,S2: Check %d.,Check %d.,x,%s,\n", i, i, i, []string{"high", "low"}[i%2])
	}
	return []byte(b.String())
}

// TestPublishedDesign: 271 items + 6 training items of their own + 10
// checks in batches of 30 give the paper's 16 × 30 + 2 × 32, shown before
// building; the training items are their own and in no batch.
func TestPublishedDesign(t *testing.T) {
	e := newCrowdEnv(t, 8, 4, nil) // for its server and admin
	a := e.admin()
	a.post("/admin/studies", url.Values{"name": {"Published"}, "kind": {"crowd"}, "lang": {"en"}})
	sts, _ := e.db.Studies(context.Background())
	st := sts[0]
	path := fmt.Sprintf("/admin/studies/%d", st.ID)
	a.upload(path+"/items", "items.csv", publishedItems(271, 6))
	a.must("flash")
	if !strings.Contains(a.body, "271 items, 10 attention checks (5 high, 5 low), 6 training items") {
		t.Fatalf("summary:\n%s", a.body)
	}
	a.must("plan")
	if !strings.Contains(a.body, "now gives 18 batches (16 × 30 + 2 × 32 items, + 10 attention checks each)") ||
		!strings.Contains(a.body, "6 training items of their own") {
		t.Fatalf("plan before building:\n%s", a.body)
	}
	a.post(path+"/crowd/batches", url.Values{"seed": {"3"}})
	a.must("flash")
	ctx := context.Background()
	prog, _ := e.db.CrowdProgress(ctx, st.ID, domain.DefaultCrowdSettings())
	sizes := map[int]int{}
	inBatches := map[string]bool{}
	for _, b := range prog {
		sizes[b.Screens-10]++
		screens, _ := e.db.CrowdBatchScreens(ctx, b.BatchID)
		for _, sc := range screens {
			inBatches[sc.Item.Key] = true
		}
	}
	if len(prog) != 18 || sizes[30] != 16 || sizes[32] != 2 {
		t.Fatalf("batches %v, want 16 × 30 + 2 × 32", sizes)
	}
	tr, _ := e.db.CrowdTraining(ctx, st.ID)
	if len(tr) != 6 {
		t.Fatalf("%d training screens", len(tr))
	}
	for _, sc := range tr {
		if !strings.HasPrefix(sc.Item.Key, "tr") || inBatches[sc.Item.Key] {
			t.Fatalf("training screen %+v (in a batch: %v)", sc, inBatches[sc.Item.Key])
		}
		if want := map[string]string{"high": "trigger", "low": "cancel"}[sc.Item.Training]; sc.Condition != want {
			t.Fatalf("training %s (%s) shown in %s", sc.Item.Key, sc.Item.Training, sc.Condition)
		}
	}
	for i := range 271 {
		if !inBatches[fmt.Sprintf("it%03d", i)] {
			t.Fatalf("item it%03d in no batch", i)
		}
	}
}

// TestDrawnTrainingShownBeforeBuilding: without training items of its
// own, the page says they will be drawn from the items, and the design
// that leaves (the 14 × 30 + 4 × 28 of 265 items).
func TestDrawnTrainingShownBeforeBuilding(t *testing.T) {
	e := newCrowdEnv(t, 8, 4, nil)
	a := e.admin()
	a.post("/admin/studies", url.Values{"name": {"Drawn"}, "kind": {"crowd"}, "lang": {"en"}})
	sts, _ := e.db.Studies(context.Background())
	path := fmt.Sprintf("/admin/studies/%d", sts[0].ID)
	a.get(path).must("plan-error")
	a.upload(path+"/items", "items.csv", publishedItems(271, 0))
	if !strings.Contains(a.body, "no training items of its own: 6 will be drawn from the study&#39;s items") ||
		!strings.Contains(a.body, "which leaves 265 items for the batches") ||
		!strings.Contains(a.body, "18 batches (4 × 28 + 14 × 30 items") {
		t.Fatalf("plan with drawn training:\n%s", a.body)
	}
	// A bad training value names its line and field; nothing is imported.
	a.upload(path+"/items", "bad.csv", []byte("id,type,utterance,implicature,cancellation,training\nx1,scalar,u,b,c,maybe\n"))
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "training") || !strings.Contains(a.body, "maybe") {
		t.Fatalf("bad training value: %d\n%s", a.resp.StatusCode, a.body)
	}
}
