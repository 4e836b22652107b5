package recruit

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"pragmalab/domain"
)

func TestScreeningMapsNamesToChoiceIDsAndCreateSendsThem(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	plan, err := p.SaveScreening(ctx, cs.ID, ScreeningChange{Add: []string{"first-language=Italian"}, Range: []string{"age=18:40"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Before) != 0 || len(plan.After) != 2 {
		t.Fatalf("plan %+v", plan)
	}
	saved, err := db.ProlificScreening(ctx, cs.ID)
	if err != nil || len(saved) != 2 || saved[0].FilterID != "first-language" || strings.Join(saved[0].Values, ",") != "1" ||
		!saved[1].Range || saved[1].Lower != 18 || saved[1].Upper != 40 {
		t.Fatalf("saved %+v (%v)", saved, err)
	}
	if _, err := p.CreateDraft(ctx, cs.ID, "alice", DraftInput{StudyURL: "https://lab.example/s/1", RewardCents: 150, Minutes: 12}); err != nil {
		t.Fatal(err)
	}
	fs, _ := srv.Created()[0]["filters"].([]any)
	if len(fs) != 2 {
		t.Fatalf("created with filters %v", srv.Created()[0]["filters"])
	}
	first := fs[0].(map[string]any)
	if first["filter_id"] != "first-language" || first["selected_values"].([]any)[0] != "1" {
		t.Errorf("first filter sent %v", first)
	}
	if rg := fs[1].(map[string]any)["selected_range"].(map[string]any); rg["lower"] != 18.0 || rg["upper"] != 40.0 {
		t.Errorf("range sent %v", rg)
	}
	// Removing a filter keeps the others.
	if _, err := p.SaveScreening(ctx, cs.ID, ScreeningChange{Remove: []string{"age"}}); err != nil {
		t.Fatal(err)
	}
	if saved, _ := db.ProlificScreening(ctx, cs.ID); len(saved) != 1 || saved[0].FilterID != "first-language" {
		t.Errorf("after removing age: %+v", saved)
	}
}

func TestScreeningRefusesUnknownNamesWithCloseMatches(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	_, err := p.SaveScreening(ctx, cs.ID, ScreeningChange{Add: []string{"first-langauge=Italian"}})
	if domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "did you mean first-language") {
		t.Errorf("unknown filter: %v", err)
	}
	_, err = p.SaveScreening(ctx, cs.ID, ScreeningChange{Add: []string{"first-language=Italain"}})
	if domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "did you mean Italian") {
		t.Errorf("value Prolific does not list: %v", err)
	}
	calls := srv.Calls("GET filters")
	_, err = p.SaveScreening(ctx, cs.ID, ScreeningChange{Range: []string{"age=40:18"}})
	if domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "above the upper bound") {
		t.Errorf("LO > HI: %v", err)
	}
	if srv.Calls("GET filters") != calls {
		t.Error("a range with LO > HI was sent to Prolific")
	}
	if saved, _ := db.ProlificScreening(ctx, cs.ID); len(saved) != 0 {
		t.Errorf("a refused change saved %+v", saved)
	}
}

func TestScreeningUnchangedWhenProlificFailsMidway(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if _, err := p.SaveScreening(ctx, cs.ID, ScreeningChange{Add: []string{"first-language=English"}}); err != nil {
		t.Fatal(err)
	}
	srv.Fail("GET filters", http.StatusBadGateway, "upstream")
	_, err := p.SaveScreening(ctx, cs.ID, ScreeningChange{Add: []string{"first-language=Italian"}, Remove: []string{"first-language"}, Range: []string{"age=18:30"}})
	if err == nil {
		t.Fatal("saved while Prolific failed")
	}
	saved, _ := db.ProlificScreening(ctx, cs.ID)
	if len(saved) != 1 || strings.Join(saved[0].Labels, ",") != "English" {
		t.Errorf("half-saved: %+v", saved)
	}
	// The store's write is all or nothing too: a bad range rolls back the
	// deletion of the old screening.
	err = db.SaveProlificScreening(ctx, cs.ID, []domain.ScreeningFilter{{FilterID: "x", Values: []string{"1"}}, {FilterID: "age", Range: true, Lower: 50, Upper: 10}})
	if err == nil {
		t.Fatal("the store saved a range with lower > upper")
	}
	if saved, _ := db.ProlificScreening(ctx, cs.ID); len(saved) != 1 || saved[0].FilterID != "first-language" {
		t.Errorf("half-saved by the store: %+v", saved)
	}
}

func TestEligibleCountAndItsWarning(t *testing.T) {
	_, cs, _, p := prolificFixture(t)
	ctx := context.Background()
	e, err := p.EligibleCount(ctx, cs.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Count != 1000 || e.Text() != "1000" || e.Warning() != "" {
		t.Errorf("everybody: %+v %q", e, e.Warning())
	}
	if _, err := p.SaveScreening(ctx, cs.ID, ScreeningChange{Add: []string{"first-language=Italian"}, Range: []string{"age=18:20"}}); err != nil {
		t.Fatal(err)
	}
	e, err = p.EligibleCount(ctx, cs.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Count != 0 || e.Text() != "fewer than 25" || !strings.Contains(e.Warning(), "fewer than three per place") {
		t.Errorf("a narrow screening: %+v %q %q", e, e.Text(), e.Warning())
	}
}

func TestScreeningProposesTheStudysLanguage(t *testing.T) {
	db, cs, _, p := prolificFixture(t)
	ctx := context.Background()
	cs.Lang = "it"
	if err := db.UpdateStudy(ctx, cs); err != nil {
		t.Fatal(err)
	}
	sc, err := p.Screening(ctx, cs.ID)
	if err != nil || sc.Proposed != "first-language=Italian" {
		t.Fatalf("proposed %+v (%v)", sc, err)
	}
	if _, err := p.SaveScreening(ctx, cs.ID, ScreeningChange{Add: []string{sc.Proposed}}); err != nil {
		t.Fatal(err)
	}
	if sc, _ := p.Screening(ctx, cs.ID); sc.Proposed != "" || len(sc.Filters) != 1 {
		t.Errorf("after confirming: %+v", sc)
	}
}
