package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store/storetest"
)

// TestJudgementStudyLikertJob: a judgement study's Jobs page offers the
// likert task alone — its items as its participants saw them, no
// passages, no True/False, no crowd study to compare with — and a likert
// job launched from it runs and appears beside the humans on the
// Analysis page (docs/scoring.md#the-humans-own-questions).
func TestJudgementStudyLikertJob(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	f := storetest.JudgementFixtureOn(t, env.db, 32)
	for p := range 6 {
		f.CompleteAttentive(t, func(n int, cond string) int {
			if cond == "kontrolle" {
				return 3 + (n+p)%3
			}
			return 1 + (n*7+p)%3
		})
	}
	base := "/admin/studies/" + strconv.FormatInt(f.ID, 10)
	jobs := c.get(base+"/jobs").mustStatus(t, http.StatusOK)
	jobs.mustContain(t, `value="likert"`, "this study&#39;s 32 items")
	for _, not := range []string{`value="multiplechoice"`, `value="truefalse"`, `value="generation"`, "passages"} {
		if strings.Contains(jobs.Body, not) {
			t.Errorf("a judgement study's Jobs page offers %s", not)
		}
	}
	p := c.post(base+"/jobs", url.Values{"task": {"likert"}, "scorer": {"random"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %d\n%s", p.StatusCode, p.Body)
	}
	job := p.location()
	id, _ := strconv.ParseInt(job[strings.LastIndex(job, "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)
	c.get(job).mustContain(t, `data-testid="alt-verdict"`, `data-testid="dist-ceiling"`)
	an := c.get(base+"/analysis").mustStatus(t, http.StatusOK)
	an.mustContain(t, `data-testid="analysis-models"`, `data-testid="model-skill"`, "#"+strconv.FormatInt(id, 10))
	if p := c.post(base+"/jobs", url.Values{"task": {"multiplechoice"}, "scorer": {"random"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}}); p.StatusCode == http.StatusSeeOther {
		t.Error("a multiple-choice job was launched on a judgement study")
	}
}
