package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/runner"
)

// An expert study's page offers the expert task; a job of the built-in
// random scorer shows the model's answers to the form's two questions,
// with the form's rule and the order bias, with no model server.
func TestHumanTaskJobPage(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	study := itemsStudy(t, env.db, 4)
	base := "/admin/studies/" + strconv.FormatInt(study, 10)
	if p := c.get(base + "/jobs"); !strings.Contains(p.Body, `value="expert"`) || !strings.Contains(p.Body, `value="uniform"`) {
		t.Fatalf("the launch form of an expert study should offer the expert task and the uniform baseline:\n%s", p.Body)
	}
	p := c.post(base+"/jobs", url.Values{"task": {"expert"}, "scorer": {"random"}, "seed": {"2"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %d\n%s", p.StatusCode, p.Body)
	}
	id, _ := strconv.ParseInt(p.location()[strings.LastIndex(p.location(), "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)
	page := c.get(p.location())
	for _, want := range []string{`data-testid="human-counts"`, `data-testid="human-items"`, `data-testid="human-order-bias"`,
		"Implicature judged plausible", "<td>plausible</td>"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the job page lacks %s", want)
		}
	}
	rows, _ := env.db.JobPrompts(context.Background(), id)
	if len(rows) != 4*2*2 {
		t.Errorf("%d prompts, want 16", len(rows))
	}
	csv := c.get(p.location() + "/results.csv")
	if !strings.HasPrefix(csv.Body, "model,item_id,item_type,condition,label,number,mean,not_asked,p_1,p_2,number_fwd,number_rev") {
		t.Errorf("CSV: %.200s", csv.Body)
	}
}

// A crowd study's likert job shows the model's distribution over the
// seven points of the scale and cancellation recognition.
func TestLikertJobPage(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	s := &domain.Study{Kind: domain.KindCrowd, Name: "crowd", Lang: "it"}
	ctx := context.Background()
	if err := env.db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := env.db.ImportItems(ctx, s.ID, runner.SyntheticItems(3)); err != nil {
		t.Fatal(err)
	}
	base := "/admin/studies/" + strconv.FormatInt(s.ID, 10)
	p := c.post(base+"/jobs", url.Values{"task": {"likert"}, "scorer": {"uniform"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %d\n%s", p.StatusCode, p.Body)
	}
	id, _ := strconv.ParseInt(p.location()[strings.LastIndex(p.location(), "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)
	page := c.get(p.location())
	for _, want := range []string{"likert 7-point", "<th class=\"num\">P(7)</th>", "Cancellation recognition", "<td>trigger</td>", "0.143"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the likert job page lacks %s", want)
		}
	}
}
