package web

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"pragmalab/cli/seed"
	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// TestCountsAgree: the dashboard, the study page and the go-live
// checklist give an expert and a crowd study of the demo items the same
// number of items (16, the 4 + 2 attention checks counted apart), and the
// crowd page counts the 6 practice items the build drew from the items,
// not 0.
func TestCountsAgree(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	svc := seed.New(e.db)
	var items, checks []domain.Item
	for f, dst := range map[string]*[]domain.Item{"../cli/demo/items.jsonl": &items, "../cli/demo/crowd_checks.jsonl": &checks} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if *dst, err = itemfiles.ParseItemsJSONL(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	ex := &domain.Study{Kind: domain.KindExpert, Name: "Experts", Lang: "en", Seed: 7}
	if _, err := svc.SeedExpertDemo(ctx, ex, items, domain.ExpertSettings{BatchSize: 20, Checks: 4}, []string{"Ada", "Ben"}); err != nil {
		t.Fatal(err)
	}
	cr := &domain.Study{Kind: domain.KindCrowd, Name: "Crowd", Lang: "en", Seed: 11}
	set := domain.DefaultCrowdSettings()
	set.BatchSize, set.CompletionCode = 10, "COUNTS1"
	b, err := svc.SeedCrowdStudy(ctx, cr, append(append([]domain.Item(nil), items...), checks...), set)
	if err != nil {
		t.Fatal(err)
	}
	training, _ := e.db.CrowdTraining(ctx, cr.ID)
	if len(training) != 6 || b.Training != 6 {
		t.Fatalf("%d training screens drawn, the build says %d; want 6", len(training), b.Training)
	}

	dash := admin.get("/admin/").Body
	cell := func(id int64) string {
		m := regexp.MustCompile(fmt.Sprintf(`(?s)data-testid="study-%d".*?data-testid="items">(\d+)<`, id)).FindStringSubmatch(dash)
		if m == nil {
			t.Fatalf("no items cell for study %d", id)
		}
		return m[1]
	}
	for _, c := range []struct {
		s       *domain.Study
		summary string
	}{
		{ex, "16 items, 4 attention checks, 0 dropped"},
		{cr, "16 items, 6 attention checks (2 high, 4 low), 6 training items drawn from the items, 0 dropped"},
	} {
		if got := cell(c.s.ID); got != "16" {
			t.Errorf("%s: the dashboard says %s items, want 16", c.s.Name, got)
		}
		counts, err := e.db.StudyCounts(ctx, c.s.ID)
		if err != nil || counts.Items != 16 {
			t.Errorf("%s: the checklist counts %d items (%v), want 16", c.s.Name, counts.Items, err)
		}
		page := admin.get(fmt.Sprintf("/admin/studies/%d", c.s.ID)).Body
		if !strings.Contains(page, c.summary) {
			i := strings.Index(page, `data-testid="summary"`)
			t.Errorf("%s: the study page does not say %q:\n%.300s", c.s.Name, c.summary, page[max(i, 0):])
		}
	}
}
