package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestExpertJoinsRoundOne: once round 1 has experts, an expert added to
// it joins the same batch (one is enough); a refusal is a sentence beside
// the round's form (studies/expert_rounds_test.go: another batch) (docs/studies.md#expert-rounds).
func TestExpertJoinsRoundOne(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, experts := expertStudy(t, e, admin)
	ctx := context.Background()
	path := fmt.Sprintf("/admin/studies/%d", s.ID)
	page := admin.get(path).mustStatus(t, 200)
	page.mustContain(t, "Round 1: batch #1, with Ada, Ben; add experts to it")
	admin.post(path+"/experts", url.Values{"name": {"Cy"}}).mustStatus(t, http.StatusSeeOther)
	all, _ := e.db.Annotators(ctx, s.ID)
	cy := all[len(all)-1]
	round1, _ := e.db.AnnotatorAssignments(ctx, experts[0].ID)
	admin.post(path+"/rounds/1", url.Values{"batch": {fmt.Sprint(round1[0].BatchID)}, "expert": {fmt.Sprint(cy.ID)}}).mustStatus(t, http.StatusSeeOther)
	got, _ := e.db.AnnotatorAssignments(ctx, cy.ID)
	if len(got) != 1 || got[0].BatchID != round1[0].BatchID || got[0].Round != 1 {
		t.Fatalf("Cy's assignments %+v, want round 1's batch %d", got, round1[0].BatchID)
	}
	admin.get(path).mustStatus(t, 200).mustContain(t, "Round 1: batch #1, with Ada, Ben, Cy; add experts to it")
	// Cy's landing page: the button reads "Start #1", one space.
	landing := e.newClient().get("/e/"+cy.Token).mustStatus(t, 200)
	landing.mustContain(t, `class="button">Start #1</a>`)
	if strings.Contains(landing.Body, "Start  #") {
		t.Error("the batch button has a double space")
	}
	// Nobody chosen: a sentence beside round 2's form, nothing assigned.
	refused := admin.post(path+"/rounds/2", url.Values{}).mustStatus(t, http.StatusBadRequest)
	refused.mustContain(t, `data-testid="round2-error">Choose at least one expert for round 2.</p>`)
	if strings.Contains(refused.Body, `data-testid="error"`) {
		t.Error("the round's refusal is also at the top of the page, away from its form")
	}
}
