package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	env, c, _, base := benchCrowdStudy(t)
	p := c.post(base+"/jobs", url.Values{"task": {"likert"}, "scorer": {"random"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %d\n%s", p.StatusCode, p.Body)
	}
	job := p.location()
	id, _ := strconv.ParseInt(job[strings.LastIndex(job, "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)
	page := c.get(job).Body
	for _, want := range []string{`data-testid="alt-verdict"`, `value="0.1"`, "ε = 0.1 for crowd workers", `data-testid="alt-latin-square"`,
		`data-testid="dist-ceiling"`, "<td>jsd</td>", `data-testid="dist-skill"`, "Skill against chance (JSD): -", ">Sampling floor<", `data-testid="human-correlation"`, "/human-figures/distance_ceiling_jsd.svg",
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
	// The Analysis page's headline of the distributions is the skill
	// against chance: a random scorer's is below 0.
	an := c.get(base + "/analysis").Body
	if i := strings.Index(an, `data-testid="model-skill"><strong>`); i < 0 || !strings.HasPrefix(an[i+len(`data-testid="model-skill"><strong>`):], "-") {
		t.Errorf("the Analysis page's models lack a random scorer's negative skill")
	}
	js := c.get(job + "/results.json").Body
	for _, want := range []string{`"alt_test"`, `"winning_rate"`, `"distributions"`, `"epsilon_source"`, `"skill_ci95"`, `"mean_sampling_floor"`, `"marginal_distribution"`, "alternative annotator test", "test dell'annotatore alternativo"} {
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

// launchHumanJob starts a random-scorer job of the study's own human task
// and returns its page's path once it is done.
func launchHumanJob(t *testing.T, env *testEnv, c *client, studyID int64, task string) string {
	t.Helper()
	base := "/admin/studies/" + strconv.FormatInt(studyID, 10)
	p := c.post(base+"/jobs", url.Values{"task": {task}, "scorer": {"random"}, "seed": {"3"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch %s: %d\n%s", task, p.StatusCode, p.Body)
	}
	job := p.location()
	id, _ := strconv.ParseInt(job[strings.LastIndex(job, "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)
	return job
}

// altJSON reads a job's results.json comparison with the humans.
type altJSON struct {
	Humans struct {
		AltTest struct {
			Scoring string  `json:"scoring"`
			Epsilon float64 `json:"epsilon"`
			Source  string  `json:"epsilon_source"`
			Humans  int     `json:"humans"`
			Error   string  `json:"error"`
			Result  *struct {
				Humans   int `json:"humans"`
				Items    int `json:"items"`
				PerHuman []struct {
					Items int `json:"items"`
				} `json:"per_human"`
			} `json:"result"`
		} `json:"alt_test"`
	} `json:"humans"`
}

// A context job of a survey three experts answered (42 passages each)
// shows the alt-test by accuracy with ε 0.15 and its source, against all
// three experts on the 42 passages, without the crowd's Latin-square
// note; the JSON says the same, and the study's Analysis page lists the
// job beside the humans.
func TestContextJobAgainstHumans(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	admin := env.adminClient()
	ctx := context.Background()
	_, aid, qs, s, _ := contextSetup(t, env, admin)
	as, err := env.db.ContextAssignments(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var surveyID, firstID int64
	for _, a := range as {
		if a.ID == aid {
			surveyID, firstID = a.SurveyID, a.AnnotatorID
		}
	}
	type rater struct{ annotator, assignment int64 }
	raters := []rater{{firstID, aid}}
	for _, name := range []string{"Marco", "Luca"} {
		a, err := env.db.CreateAnnotator(ctx, s.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		asg, err := env.db.AssignContextSurvey(ctx, s.ID, a.ID, surveyID)
		if err != nil {
			t.Fatal(err)
		}
		raters = append(raters, rater{a.ID, asg})
	}
	for k, r := range raters {
		for _, q := range qs {
			if q.Position%3 == k {
				if _, err := env.db.ContextAct(ctx, r.annotator, r.assignment, q.Position, 0, domain.ContextMore, 5, 0, domain.Integrity{}); err != nil {
					t.Fatal(err)
				}
				if _, err := env.db.ContextAct(ctx, r.annotator, r.assignment, q.Position, 1, domain.ContextSufficient, 5, 0, domain.Integrity{}); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if _, err := env.db.ContextAct(ctx, r.annotator, r.assignment, q.Position, 0, domain.ContextSufficient, 5, 0, domain.Integrity{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	job := launchHumanJob(t, env, admin, s.ID, "context")
	page := admin.get(job).mustStatus(t, http.StatusOK).Body
	for _, want := range []string{`data-testid="human-compare"`, "accuracy: the share of the other humans", `value="0.15"`,
		"ε = 0.15 for skilled annotators", `data-testid="alt-verdict"`, `data-testid="alt-methods"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the context job page lacks %s", want)
		}
	}
	if strings.Contains(page, `data-testid="alt-latin-square"`) {
		t.Error("a context survey has no Latin-square batches")
	}
	var res altJSON
	if err := json.Unmarshal([]byte(admin.get(job+"/results.json").Body), &res); err != nil {
		t.Fatal(err)
	}
	at := res.Humans.AltTest
	if at.Scoring != "accuracy" || at.Epsilon != 0.15 || at.Humans != 3 || at.Result == nil || at.Result.Humans != 3 || at.Result.Items != len(qs) {
		t.Errorf("context alt-test JSON: %+v (result %+v), want 3 humans on %d passages", at, at.Result, len(qs))
	}
	an := admin.get("/admin/studies/"+strconv.FormatInt(s.ID, 10)+"/analysis").mustStatus(t, http.StatusOK).Body
	for _, want := range []string{`data-testid="analysis-models"`, ">context<", ">0.15<", `data-testid="r-companion"`} {
		if want == `data-testid="r-companion"` {
			// The web package's test server has no R companion writer (cli sets it).
			if strings.Contains(an, want) {
				t.Error("the R companion is offered without a writer")
			}
			continue
		}
		if !strings.Contains(an, want) {
			t.Errorf("the context study's Analysis page lacks %s", want)
		}
	}
}

// An explanation-rating job of a study whose two experts rated the same
// ten explanations shows the alt-test by accuracy with ε 0.2 and its
// source over those ten outputs, and says the design is too thin (two
// humans, ten items each); the JSON says the same.
func TestExplanationRatingJobAgainstHumans(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	admin := env.adminClient()
	ctx := context.Background()
	s, path := newImpaqtsStudy(t, env, admin, domain.KindExplain)
	admin.upload(path+"/items", "file", "impaqts.tsv", readPassageSample(t)).mustStatus(t, http.StatusSeeOther)
	ps, _ := env.db.ListPassages(ctx, s.ID)
	var b strings.Builder
	b.WriteString("item_id,strategy,model,output\n")
	for _, p := range ps[:10] {
		fmt.Fprintf(&b, "%s,zero-shot,gemma,Spiegazione\n", p.Key)
	}
	admin.upload(path+"/outputs", "file", "outputs.csv", []byte(b.String())).mustStatus(t, http.StatusSeeOther)
	admin.post(path+"/explain/settings", url.Values{"per_expert": {"10"}, "overlap": {"2"}}).mustStatus(t, http.StatusSeeOther)
	for _, name := range []string{"Anna", "Bea"} {
		admin.post(path+"/explain/experts", url.Values{"name": {name}}).mustStatus(t, http.StatusSeeOther)
	}
	as, _ := env.db.Annotators(ctx, s.ID)
	if len(as) != 2 {
		t.Fatalf("%d experts", len(as))
	}
	for k, a := range as {
		screens, err := env.db.ExplainScreens(ctx, a.ID)
		if err != nil || len(screens) == 0 {
			t.Fatalf("%s's screens: %d, %v", a.Name, len(screens), err)
		}
		for _, sc := range screens {
			j := []string{"totally_correct", "partially_correct", "answer_not_given"}[(sc.Position+k)%3]
			if err := env.db.SaveExplainRating(ctx, a.ID, sc.Position, j, 0, domain.Integrity{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	job := launchHumanJob(t, env, admin, s.ID, "explanation-rating")
	page := admin.get(job).mustStatus(t, http.StatusOK).Body
	for _, want := range []string{`data-testid="human-compare"`, "accuracy: the share of the other humans", `value="0.2"`,
		"ε = 0.2 for expert annotators", `data-testid="alt-thin"`, "only 2 humans answered", "2 of 2 humans answered fewer than 30 items"} {
		if !strings.Contains(page, want) {
			t.Errorf("the explanation-rating job page lacks %s", want)
		}
	}
	var res altJSON
	if err := json.Unmarshal([]byte(admin.get(job+"/results.json").Body), &res); err != nil {
		t.Fatal(err)
	}
	at := res.Humans.AltTest
	if at.Scoring != "accuracy" || at.Epsilon != 0.2 || at.Humans != 2 || !strings.Contains(at.Source, "expert annotators") {
		t.Errorf("explanation-rating alt-test JSON: %+v", at)
	}
	// Ten items each is below --min-items 30: no human can be tested, and
	// the comparison says why rather than inventing a verdict.
	if at.Result != nil && at.Result.Humans != 0 {
		t.Errorf("humans with 10 items were tested: %+v", at.Result)
	}
	if at.Result == nil && at.Error == "" {
		t.Error("no result and no reason")
	}
}
