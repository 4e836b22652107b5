package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
)

// newFastBatchEnv is newJobsEnv with a runner that polls batches at once.
func newFastBatchEnv(t *testing.T, getenv func(string) string) *testEnv {
	t.Helper()
	env, _ := startJobsEnv(t, getenv, func(s *Server) {
		s.Jobs.BatchPoll, s.Jobs.BatchPollMax = time.Millisecond, 5*time.Millisecond
	})
	return env
}

func modelForm(srvURL, models, engine string) url.Values {
	return url.Values{"task": {"truefalse"}, "scorer": {"model"}, "base_urls": {srvURL}, "model": {models}, "engine": {engine},
		"api": {"chat"}, "mode": {"logprobs"}, "concurrency": {"4"}, "timeout": {"60"}, "retries": {"1"}, "samples": {"5"},
		"max_tokens": {"16"}, "gen_max_tokens": {"1024"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}}
}

// The launch form estimates size and cost without creating anything, then
// launches one job per model; the job page puts them side by side.
func TestEstimateAndManyModelsFromAdmin(t *testing.T) {
	env := newFastBatchEnv(t, func(k string) string {
		if k == "PRAGMALAB_PRICES" {
			return "fake-a=1/2"
		}
		return ""
	})
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	c := env.adminClient()
	study := itemsStudy(t, env.db, 6) // 72 prompts
	base := "/admin/studies/" + strconv.FormatInt(study, 10)

	form := modelForm(srv.URL, "fake-a\nfake-b", "live")
	form.Set("estimate", "1")
	p := c.post(base+"/jobs", form)
	if p.StatusCode != 200 || !strings.Contains(p.Body, `data-testid="estimate-table"`) {
		t.Fatalf("estimate: %d\n%s", p.StatusCode, p.Body)
	}
	for _, want := range []string{"<td>fake-a</td>", "<td>fake-b</td>", ">72<", "no price given", "≤ $", "estimated: 1 token per 4 bytes"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the estimate lacks %q", want)
		}
	}
	if !strings.Contains(p.Body, "fake-a\nfake-b</textarea>") {
		t.Error("the form lost the models typed")
	}
	if js, _ := env.db.StudyJobs(context.Background(), study); len(js) != 0 {
		t.Fatalf("an estimate created %d jobs", len(js))
	}
	if log := c.get(base).Body; strings.Contains(log, "start scoring job") {
		t.Error("an estimate was audited as a job start")
	}

	form.Del("estimate")
	p = c.post(base+"/jobs", form)
	if p.StatusCode != http.StatusSeeOther || p.location() != base+"/jobs" {
		t.Fatalf("launch: %d %s\n%s", p.StatusCode, p.location(), p.Body)
	}
	js, _ := env.db.StudyJobs(context.Background(), study)
	if len(js) != 2 {
		t.Fatalf("%d jobs, want one per model", len(js))
	}
	if log := c.get(base).Body; !strings.Contains(log, "start scoring job") || !strings.Contains(log, "fake-b") {
		t.Error("the launch of two models is not in the study's audit log")
	}
	for _, j := range js {
		waitJob(t, env.db, j.ID, domain.JobDone)
	}
	page := c.get(base + "/jobs/" + strconv.FormatInt(js[1].ID, 10)).Body
	if !strings.Contains(page, `<th class="num">fake-a</th>`) || !strings.Contains(page, `<th class="num">fake-b</th>`) {
		t.Errorf("the comparison does not put both models side by side")
	}
}

// A batch job launched from the page: its batches, and for an expired
// batch the job is partial and the page prices what is left.
func TestBatchJobFromAdmin(t *testing.T) {
	env := newFastBatchEnv(t, func(string) string { return "" })
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	srv.SetBatchOptions(scoringtest.BatchOptions{Expire: true})
	c := env.adminClient()
	study := itemsStudy(t, env.db, 6)
	base := "/admin/studies/" + strconv.FormatInt(study, 10)
	p := c.post(base+"/jobs", modelForm(srv.URL, "fake-7b", "batch"))
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %d\n%s", p.StatusCode, p.Body)
	}
	jobURL := p.location()
	id, _ := strconv.ParseInt(jobURL[strings.LastIndex(jobURL, "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobPartial)
	page := c.get(jobURL).Body
	for _, want := range []string{`data-testid="job-batches"`, "collected, expired", "batch_", `data-testid="job-estimate-table"`, ">36<", "<dd>batch</dd>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the job page lacks %q", want)
		}
	}
}

// A job waiting for an offline runner says how to feed it.
func TestOfflineJobPage(t *testing.T) {
	env := newFastBatchEnv(t, func(string) string { return "" })
	c := env.adminClient()
	study := itemsStudy(t, env.db, 2)
	spec := runner.Spec{StudyID: study, Task: scoring.TrueFalse, Scorer: runner.ModelScorer,
		Config: scoring.Config{Model: "llama-8b", Engine: scoring.EngineOffline}}
	j, err := runner.Create(context.Background(), env.db, spec, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	page := c.get("/admin/studies/" + strconv.FormatInt(study, 10) + "/jobs/" + strconv.FormatInt(j.ID, 10)).Body
	for _, want := range []string{`data-testid="job-offline"`, "--export-batch in.jsonl", "--model llama-8b", "--import-batch out.jsonl", "<dd>offline</dd>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the offline job's page lacks %q", want)
		}
	}
}
