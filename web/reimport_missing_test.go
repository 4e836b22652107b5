package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestReimportKeepsMissingFields: a corrected file that leaves out an
// optional field (sc1 without its negation) keeps the field's text unless
// "clear missing fields" is ticked, and the preview says which fields are
// kept or cleared before anything is applied.
func TestReimportKeepsMissingFields(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, _ := expertStudy(t, e, admin)
	ctx := context.Background()
	path := fmt.Sprintf("/admin/studies/%d", s.ID)
	item := func(key string) domain.Item {
		items, _ := e.db.ListItems(ctx, s.ID)
		for _, it := range items {
			if it.Key == key {
				return it
			}
		}
		t.Fatalf("no item %s", key)
		return domain.Item{}
	}
	before := item("sc1")
	if before.Negation == "" || item("sc2").Neutral == "" {
		t.Fatal("the demo items have lost their follow-ups")
	}
	// The demo file with sc1's implicature corrected, its negation left
	// out, and sc2's neutral left out.
	data, err := os.ReadFile("../cli/demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		switch m["id"] {
		case "sc1":
			m["implicature"] = "Not every guest left before dessert."
			delete(m, "negation")
		case "sc2":
			delete(m, "neutral")
		}
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	file := []byte(strings.Join(lines, "\n") + "\n")
	digest := regexp.MustCompile(`name="digest" value="([^"]+)"`)

	// Kept: the preview says so, and applying changes the implicature only.
	preview := admin.upload(path+"/items/reimport", "file", "fixed.jsonl", file).mustStatus(t, http.StatusSeeOther).location()
	p := admin.get(preview).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="reimport-kept"`, "<li>sc1: negation</li>", "<li>sc2: neutral</li>")
	if strings.Contains(p.Body, `data-testid="field-negation"`) || strings.Contains(p.Body, `data-testid="change-sc2"`) {
		t.Fatalf("the preview shows a kept field as a change:\n%s", p.Body)
	}
	m := digest.FindStringSubmatch(p.Body)
	admin.post(preview, url.Values{"action": {"apply"}, "digest": {m[1]}}).mustStatus(t, http.StatusSeeOther)
	after := item("sc1")
	if after.Implicature != "Not every guest left before dessert." || after.Negation != before.Negation || item("sc2").Neutral == "" {
		t.Fatalf("after applying: sc1 %+v, sc2 neutral %q", after, item("sc2").Neutral)
	}

	// Cleared: ticked on the upload form, the preview lists the emptied
	// fields as changes, and applying empties them.
	preview = admin.upload(path+"/items/reimport?clear=1", "file", "fixed.jsonl", file).mustStatus(t, http.StatusSeeOther).location()
	if !strings.HasSuffix(preview, "?clear=1") {
		t.Fatalf("the preview %s forgets the box", preview)
	}
	p = admin.get(preview).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="reimport-cleared"`, "<li>sc1: negation</li>",
		`data-testid="field-negation"`, `data-testid="change-sc2"`, `name="clear" value="1"`)
	m = digest.FindStringSubmatch(p.Body)
	// Applying without the box is not what the preview showed: refused.
	admin.post(strings.TrimSuffix(preview, "?clear=1"), url.Values{"action": {"apply"}, "digest": {m[1]}}).mustStatus(t, http.StatusConflict)
	admin.post(preview, url.Values{"action": {"apply"}, "digest": {m[1]}, "clear": {"1"}}).mustStatus(t, http.StatusSeeOther)
	if n, neu := item("sc1").Negation, item("sc2").Neutral; n != "" || neu != "" {
		t.Fatalf("after clearing: sc1 negation %q, sc2 neutral %q", n, neu)
	}
}
