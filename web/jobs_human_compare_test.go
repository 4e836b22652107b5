package web

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"pragmalab/cli/seed"
	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// A likert job of a crowd study with human ratings shows the alt-test's
// verdict with ε 0.1 and its source, the Latin-square note, the
// distributions against the human ceiling with their figures and the
// correlation against the split-half ceiling; changing ε on the page's GET
// form changes the verdict; a refused ε says so.
func TestLikertJobAgainstHumans(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	ctx := context.Background()
	b, err := seed.New(env.db).SeedBenchCrowd(ctx, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	base := "/admin/studies/" + strconv.FormatInt(b.StudyID, 10)
	p := c.post(base+"/jobs", url.Values{"task": {"likert"}, "scorer": {"random"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %d\n%s", p.StatusCode, p.Body)
	}
	job := p.location()
	id, _ := strconv.ParseInt(job[strings.LastIndex(job, "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)
	page := c.get(job).Body
	for _, want := range []string{`data-testid="alt-verdict"`, `value="0.1"`, "ε = 0.1 for crowd workers", `data-testid="alt-latin-square"`,
		`data-testid="dist-ceiling"`, "<td>jsd</td>", `data-testid="human-correlation"`, "/human-figures/distance_ceiling_jsd.svg",
		"/human-figures/distribution_panel.svg"} {
		if !strings.Contains(page, want) {
			t.Errorf("the likert job page lacks %s", want)
		}
	}
	for _, fig := range []string{"distance_ceiling_jsd.svg", "distribution_panel.svg", "distance_ceiling_wasserstein.png"} {
		if r := c.get(job + "/human-figures/" + fig); r.StatusCode != http.StatusOK || len(r.Body) < 100 {
			t.Errorf("figure %s: %d, %d bytes", fig, r.StatusCode, len(r.Body))
		}
	}
	verdict := func(eps string) string {
		body := c.get(job + "?epsilon=" + eps).Body
		i := strings.Index(body, `data-testid="alt-verdict"`)
		if i < 0 {
			t.Fatalf("no verdict at ε %s", eps)
		}
		return body[i : i+strings.Index(body[i:], "</p>")]
	}
	low, high := verdict("0"), verdict("0.95")
	if !strings.Contains(low, "does not pass") || !strings.Contains(high, "passes at ε = 0.95") {
		t.Errorf("ε 0 should fail a random model and ε 0.95 pass it:\n%s\n%s", low, high)
	}
	if body := c.get(job + "?epsilon=2").Body; !strings.Contains(body, `data-testid="alt-epsilon-error"`) {
		t.Error("ε 2 should be refused beside the form")
	}
	js := c.get(job + "/results.json").Body
	for _, want := range []string{`"alt_test"`, `"winning_rate"`, `"distributions"`, `"epsilon_source"`, "alternative annotator test", "test dell'annotatore alternativo"} {
		if !strings.Contains(js, want) {
			t.Errorf("the JSON lacks %s", want)
		}
	}
}

// An expert job of a study whose two experts judged the demo items shows
// the alt-test by accuracy with ε 0.2 and its source, and warns that two
// experts on a few items are too thin a design for the test.
func TestExpertJobAgainstHumans(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	ctx := context.Background()
	data, err := os.ReadFile("../cli/demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	items, err := itemfiles.ParseItemsJSONL(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	st := &domain.Study{Kind: domain.KindExpert, Name: "Experts", Lang: "en", Seed: 7}
	d, err := seed.New(env.db).SeedExpertDemo(ctx, st, items, domain.ExpertSettings{BatchSize: 20}, []string{"Ada", "Ben"})
	if err != nil {
		t.Fatal(err)
	}
	var experts []domain.Annotator
	for _, a := range d.Experts {
		experts = append(experts, *a)
	}
	answerExperts(t, env, experts)
	base := "/admin/studies/" + strconv.FormatInt(st.ID, 10)
	p := c.post(base+"/jobs", url.Values{"task": {"expert"}, "scorer": {"random"}, "seed": {"2"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %d\n%s", p.StatusCode, p.Body)
	}
	job := p.location()
	id, _ := strconv.ParseInt(job[strings.LastIndex(job, "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)
	page := c.get(job).Body
	for _, want := range []string{`data-testid="human-compare"`, "accuracy: the share of the other humans", `value="0.2"`,
		"ε = 0.2 for expert annotators", `data-testid="alt-thin"`, "only 2 humans answered", `data-testid="human-replacement"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the expert job page lacks %s", want)
		}
	}
	if strings.Contains(page, `data-testid="alt-latin-square"`) {
		t.Error("an expert study has no Latin-square batches")
	}
}
