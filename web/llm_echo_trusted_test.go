package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"pragmalab/comparisons"
)

// TestLLMEchoTrustedParticipants: without trusted participants the
// participants table's LLM-echo sentence carries the pool caveat; once
// two participants a batch are marked trusted (the Trust control), the
// check compares the others with them
// (docs/statistics.md#llm-echo-against-a-reference): the sentence says
// so, the copier is flagged with the reference rule's evidence, the
// trusted are labelled and never flagged; a bad value is refused, and
// Untrust puts the pool rule back.
func TestLLMEchoTrustedParticipants(t *testing.T) {
	env, c, studyID, base := benchCrowdStudy(t)
	ctx := context.Background()
	_, copier := likertCopier(t, env, c, studyID)
	c.get(base).mustContain(t, comparisons.PoolCaveat)

	_, set, err := env.db.CrowdStudy(ctx, studyID)
	if err != nil {
		t.Fatal(err)
	}
	reps, err := env.db.CrowdParticipants(ctx, studyID, set)
	if err != nil {
		t.Fatal(err)
	}
	perBatch := map[int]int{}
	trusted := map[string]int64{}
	for _, r := range reps {
		if r.PID == copier || r.AutoExcluded || r.Status != "completed" || perBatch[r.BatchNumber] == 2 {
			continue
		}
		perBatch[r.BatchNumber]++
		trusted[r.PID] = r.ID
		c.post(fmt.Sprintf("%s/crowd/participants/%d/trusted", base, r.ID), url.Values{"trusted": {"1"}}).mustStatus(t, http.StatusSeeOther)
	}
	if len(trusted) < 4 {
		t.Fatalf("only %d participants to trust", len(trusted))
	}
	body := c.get(base).Body
	want := fmt.Sprintf("and the ratings of %d trusted participants; ", len(trusted))
	if !strings.Contains(body, want) || strings.Contains(body, comparisons.PoolCaveat) {
		t.Fatalf("the page does not say the check used the %d trusted participants:\n%.1500s", len(trusted), body[strings.Index(body, `data-testid="llm-echo-status"`):])
	}
	for _, row := range strings.Split(body, `<tr data-testid="participant-`)[1:] {
		pid := row[:strings.Index(row, `"`)]
		_, isTrusted := trusted[pid]
		if got := strings.Contains(row, `data-testid="trusted"`); got != isTrusted {
			t.Errorf("%s: labelled trusted %v, want %v", pid, got, isTrusted)
		}
		flagged := strings.Contains(row, `data-testid="flag-llm_echo"`)
		if flagged != (pid == copier) {
			t.Errorf("%s: llm_echo shown %v (the copier is %s)", pid, flagged, copier)
		}
		if flagged && !strings.Contains(row, "beyond the trusted humans") {
			t.Errorf("the copier's llm_echo lacks the reference rule's evidence:\n%.600s", row)
		}
	}

	var first int64
	for _, id := range trusted {
		first = id
		break
	}
	c.post(fmt.Sprintf("%s/crowd/participants/%d/trusted", base, first), url.Values{"trusted": {"yes"}}).mustStatus(t, http.StatusBadRequest)
	for _, id := range trusted {
		c.post(fmt.Sprintf("%s/crowd/participants/%d/trusted", base, id), url.Values{"trusted": {"0"}}).mustStatus(t, http.StatusSeeOther)
	}
	c.get(base).mustContain(t, comparisons.PoolCaveat)
}
