package web

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"pragmalab/domain"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
)

func jobIDOf(loc string) int64 {
	id, _ := strconv.ParseInt(loc[strings.LastIndex(loc, "/")+1:], 10, 64)
	return id
}

var tagRe = regexp.MustCompile(`<[^>]+>`)

// text is a page's text without tags, spaces collapsed.
func text(html string) string {
	return strings.Join(strings.Fields(tagRe.ReplaceAllString(html, " ")), " ")
}

// TestPartialJobPage: a model job whose False-first prompts fail reads
// partial, groups the failures with their counts, shows every share on
// fewer items as "n of N", the time-out in seconds, the paged prompt list
// and the option-order bias.
func TestPartialJobPage(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	study := itemsStudy(t, env.db, 6)
	base := "/admin/studies/" + strconv.FormatInt(study, 10)
	model := scoringtest.NewServer(0)
	defer model.Close()
	inner := model.Config.Handler
	model.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("task x001 for C")) && bytes.Contains(b, []byte("A) False")) {
			http.Error(w, "prompt too long for this model", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		inner.ServeHTTP(w, r)
	})

	jobs := c.get(base + "/jobs")
	if strings.Contains(jobs.Body, `value="bleu4"`) || strings.Contains(jobs.Body, `value="copy-target"`) || !strings.Contains(jobs.Body, `value="always-true"`) {
		t.Error("the scorers offered for a study of items must be the True/False ones")
	}
	p := c.post(base+"/jobs", url.Values{"task": {"truefalse"}, "scorer": {"model"}, "base_urls": {model.URL + "/v1"}, "model": {"fake-web"},
		"api": {"chat"}, "mode": {"logprobs"}, "concurrency": {"2"}, "timeout": {"10"}, "retries": {"0"}, "samples": {"5"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch %d\n%s", p.StatusCode, p.Body)
	}
	jobURL := p.location()
	waitJob(t, env.db, jobIDOf(jobURL), domain.JobPartial)

	page := c.get(jobURL)
	txt := text(page.Body)
	for _, want := range []string{
		`data-testid="job-state" class="error">partial<`,
		`data-testid="job-reasons"`,
		`data-testid="order-bias"`,
		`data-testid="job-config"`,
	} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("job page lacks %s", want)
		}
	}
	for _, want := range []string{
		"6 of 72 prompts failed",
		"6 POST " + model.URL + "/v1/chat/completions: 400 Bad Request: prompt too long for this model",
		"1.00 [0.57, 1.00] (5 of 6)", // always-true-ish measures on 5 of the 6 items, with their Wilson interval
		"Time-out per request 10 s",
		"Prompts 1–6 of 6", // the failed ones first
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("job page text lacks %q", want)
		}
	}
	if strings.Contains(page.Body, "10000000000") {
		t.Error("the time-out is shown in nanoseconds")
	}
	// The whole list is paged, 50 at a time.
	all := c.get(jobURL + "?prompts=all")
	if !strings.Contains(text(all.Body), "Prompts 1–50 of 72, page 1 of 2") || !strings.Contains(all.Body, `data-testid="prompts-next"`) {
		t.Fatalf("paged prompt list:\n%.3000s", text(all.Body))
	}
	second := c.get(jobURL + "?prompts=all&page=2")
	if !strings.Contains(text(second.Body), "Prompts 51–72 of 72, page 2 of 2") || !strings.Contains(second.Body, `data-testid="prompt-72"`) || strings.Contains(second.Body, `data-testid="prompt-50"`) {
		t.Error("page 2 should list prompts 51–72")
	}
}

// TestGenerationOutputsToAnotherStudy: a generation job's page offers the
// explanation-rating studies, and the button sends the outputs there.
func TestGenerationOutputsToAnotherStudy(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	ctx := context.Background()
	ps := samplePassages(t)
	var ids []int64
	for _, name := range []string{"scoring", "experts rate"} {
		s := &domain.Study{Kind: domain.KindExplain, Name: name, Lang: "it"}
		if err := env.db.CreateStudy(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := env.db.ImportPassages(ctx, s.ID, ps); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	base := "/admin/studies/" + strconv.FormatInt(ids[0], 10)
	jobs := c.get(base + "/jobs")
	if strings.Contains(jobs.Body, `value="always-true"`) || !strings.Contains(jobs.Body, `value="bleu4"`) {
		t.Error("a study of passages offers the multiple-choice and generation scorers only")
	}
	p := c.post(base+"/jobs", url.Values{"task": {"generation"}, "scorer": {"copy-target"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	jobURL := p.location()
	waitJob(t, env.db, jobIDOf(jobURL), domain.JobDone)
	page := c.get(jobURL)
	if !strings.Contains(page.Body, `data-testid="job-outputs-to"`) || !strings.Contains(page.Body, ">#"+strconv.FormatInt(ids[1], 10)+" experts rate<") {
		t.Fatalf("the page should offer the other explanation-rating study:\n%s", page.Body)
	}
	p = c.post(jobURL+"/outputs", url.Values{"to": {strconv.FormatInt(ids[1], 10)}})
	if p.StatusCode != http.StatusSeeOther || p.location() != "/admin/studies/"+strconv.FormatInt(ids[1], 10) {
		t.Fatalf("send: %d %s\n%s", p.StatusCode, p.location(), p.Body)
	}
	// They are in the target study: a second send there is refused, and
	// the job's own study still has none.
	if p := c.post(jobURL+"/outputs", url.Values{"to": {strconv.FormatInt(ids[1], 10)}}); p.StatusCode != http.StatusConflict {
		t.Errorf("second send to the same study: %d", p.StatusCode)
	}
	if p := c.post(jobURL+"/outputs", url.Values{"to": {strconv.FormatInt(ids[0], 10)}}); p.StatusCode != http.StatusSeeOther {
		t.Errorf("send to the job's own study: %d", p.StatusCode)
	}
}

// TestPublicEndpointsOnly: with the serve flag, a job pointing at this
// machine is refused with the reason; link-local is refused always.
func TestPublicEndpointsOnly(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := New(ctx, Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicEndpointsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	env := &testEnv{t: t, db: db, srv: ts}
	c := env.adminClient()
	study := itemsStudy(t, db, 2)
	base := "/admin/studies/" + strconv.FormatInt(study, 10)
	form := url.Values{"task": {"truefalse"}, "scorer": {"model"}, "model": {"m"}, "api": {"chat"}, "mode": {"logprobs"},
		"concurrency": {"2"}, "timeout": {"10"}, "retries": {"0"}, "samples": {"5"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}}
	for u, want := range map[string]string{
		"http://127.0.0.1:8000/v1":        "--public-endpoints-only",
		"http://localhost:11434":          "--public-endpoints-only",
		"http://169.254.169.254/latest":   "link-local",
		"http://metadata.google.internal": "cloud metadata",
	} {
		form.Set("base_urls", u)
		p := c.post(base+"/jobs", form)
		if p.StatusCode != 400 || !strings.Contains(p.Body, want) {
			t.Errorf("%s: %d, want 400 naming %q", u, p.StatusCode, want)
		}
	}
}
