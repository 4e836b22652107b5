package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/runner"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
)

// newJobsEnv is a test server whose job runner runs, as under Serve.
func newJobsEnv(t *testing.T, getenv func(string) string) (*testEnv, *Server) {
	t.Helper()
	return startJobsEnv(t, getenv, nil)
}

// startJobsEnv is newJobsEnv with the server's settings changed by tune
// (when not nil) before its job runner starts.
func startJobsEnv(t *testing.T, getenv func(string) string, tune func(*Server)) (*testEnv, *Server) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := New(ctx, Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if tune != nil {
		tune(s)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { s.Jobs.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return &testEnv{t: t, db: db, srv: ts}, s
}

func itemsStudy(t *testing.T, db *store.DB, n int) int64 {
	t.Helper()
	s := &domain.Study{Kind: domain.KindExpert, Name: "ImplicatureX", Lang: "en"}
	if err := db.CreateStudy(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(context.Background(), s.ID, runner.SyntheticItems(n)); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func waitJob(t *testing.T, db *store.DB, id int64, status string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := db.Job(context.Background(), id)
		if err == nil && j.Status == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: status %v, want %s", id, j, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBuiltinJobFromAdmin(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	study := itemsStudy(t, env.db, 6)
	base := "/admin/studies/" + strconv.FormatInt(study, 10)

	p := c.get(base + "/jobs")
	if p.StatusCode != 200 || !strings.Contains(p.Body, `data-testid="job-form"`) || !strings.Contains(p.Body, "6 implicature items") {
		t.Fatalf("jobs page %d:\n%s", p.StatusCode, p.Body)
	}
	form := url.Values{"task": {"truefalse"}, "scorer": {"always-true"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}}
	p = c.post(base+"/jobs", form)
	if p.StatusCode != http.StatusSeeOther || !strings.HasPrefix(p.location(), base+"/jobs/") {
		t.Fatalf("launch: %d %s\n%s", p.StatusCode, p.location(), p.Body)
	}
	jobURL := p.location()
	id, _ := strconv.ParseInt(jobURL[strings.LastIndex(jobURL, "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobDone)

	p = c.get(jobURL)
	for _, want := range []string{`data-testid="comparison"`, `data-testid="no-humans"`, "Implicature recognition", `data-testid="bars-belief_update"`, `data-testid="job-answered">72<`} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("job page lacks %s", want)
		}
	}
	var prog map[string]any
	if err := json.Unmarshal([]byte(c.get(jobURL+"/progress.json").Body), &prog); err != nil || prog["status"] != "done" || prog["answered"] != float64(72) {
		t.Errorf("progress.json: %v %v", prog, err)
	}
	csv := c.get(jobURL + "/results.csv")
	if lines := strings.Split(strings.TrimSpace(csv.Body), "\n"); len(lines) != 7 || !strings.HasPrefix(lines[1], "always-true,x001,") || !strings.Contains(lines[1], "1.000000") {
		t.Errorf("results.csv:\n%s", csv.Body)
	}
	svg := c.get(jobURL + "/bars/implicature_recognition.svg")
	if svg.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(svg.Body, "<svg") {
		t.Errorf("bars: %s %.100s", svg.Header.Get("Content-Type"), svg.Body)
	}
	if pdf := c.get(jobURL + "/bars/implicature_recognition.pdf"); pdf.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf.Body, "%PDF-") {
		t.Errorf("bars as PDF: %s %.20q", pdf.Header.Get("Content-Type"), pdf.Body)
	}
	// The always-true model recognises all 6 implicatures: 1.00 with its
	// Wilson interval over the 6 items.
	if !strings.Contains(p.Body, "1.00 [0.61, 1.00]") {
		t.Error("the comparison lacks the model's interval 1.00 [0.61, 1.00]")
	}
	if c.get(jobURL+"/bars/nonsense.svg").StatusCode != 404 {
		t.Error("an unknown measure should be 404")
	}

	// A bad form keeps the values and names the field.
	bad := url.Values{"task": {"truefalse"}, "scorer": {"model"}, "base_urls": {"not a url"}, "model": {"m"}, "api": {"chat"}, "mode": {"logprobs"},
		"concurrency": {"4"}, "timeout": {"60"}, "retries": {"5"}, "samples": {"5"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}}
	p = c.post(base+"/jobs", bad)
	if p.StatusCode != 400 || !strings.Contains(p.Body, "base_urls") || !strings.Contains(p.Body, "not a url") {
		t.Errorf("bad form: %d\n%s", p.StatusCode, p.Body)
	}
}

func TestModelJobCancelAndKey(t *testing.T) {
	const key = "sk-web-secret-777"
	env, _ := newJobsEnv(t, func(n string) string {
		if n == "PRAGMALAB_KEY_WEB_TEST" {
			return key
		}
		return ""
	})
	c := env.adminClient()
	study := itemsStudy(t, env.db, 20)
	base := "/admin/studies/" + strconv.FormatInt(study, 10)
	srv := scoringtest.NewServer(30 * time.Millisecond)
	defer srv.Close()
	form := url.Values{"task": {"truefalse"}, "scorer": {"model"}, "base_urls": {srv.URL + "/v1"}, "model": {"fake-web"},
		"api_key_env": {"PRAGMALAB_KEY_WEB_TEST"}, "api": {"chat"}, "mode": {"logprobs"},
		"concurrency": {"1"}, "timeout": {"10"}, "retries": {"1"}, "samples": {"5"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}}
	p := c.post(base+"/jobs", form)
	if p.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %d\n%s", p.StatusCode, p.Body)
	}
	jobURL := p.location()
	id, _ := strconv.ParseInt(jobURL[strings.LastIndex(jobURL, "/")+1:], 10, 64)
	waitJob(t, env.db, id, domain.JobRunning)
	page := c.get(jobURL)
	if !strings.Contains(page.Body, `data-live="true"`) || !strings.Contains(page.Body, `http-equiv="refresh"`) || !strings.Contains(page.Body, "PRAGMALAB_KEY_WEB_TEST") {
		t.Errorf("a running job's page should update itself and show the key's variable name")
	}
	if strings.Contains(page.Body, key) {
		t.Error("the API key is on the page")
	}
	// Cancel only once the model has been asked something: "running" is
	// set before the first request leaves, and a loaded machine may cancel
	// in between.
	for deadline := time.Now().Add(10 * time.Second); !srv.SawAuthorization("Bearer "+key) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if !srv.SawAuthorization("Bearer " + key) {
		t.Fatal("the key was not sent")
	}
	if p := c.post(jobURL+"/cancel", nil); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", p.StatusCode)
	}
	waitJob(t, env.db, id, domain.JobCancelled)
	prog, _ := env.db.JobProgress(context.Background(), id)
	if prog.Answered == prog.Total {
		t.Errorf("cancel came too late to test: %+v", prog)
	}
	if p := c.get(jobURL); !strings.Contains(p.Body, `data-testid="job-retry"`) {
		t.Error("a cancelled job with unanswered prompts offers a retry")
	}

	// Launching with the key variable unset is refused at once.
	form.Set("api_key_env", "PRAGMALAB_KEY_NOT_SET_ANYWHERE")
	if p := c.post(base+"/jobs", form); p.StatusCode != 400 || !strings.Contains(p.Body, "PRAGMALAB_KEY_NOT_SET_ANYWHERE") {
		t.Errorf("unset key variable: %d", p.StatusCode)
	}
}

func TestPromptTemplatesEditable(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	study := itemsStudy(t, env.db, 1)
	base := "/admin/studies/" + strconv.FormatInt(study, 10)
	p := c.get(base + "/prompts")
	if !strings.Contains(p.Body, "general knowledge") || !strings.Contains(p.Body, "uses the defaults") {
		t.Fatalf("prompts page should show our defaults:\n%s", p.Body)
	}
	form := url.Values{"truefalse": {"Is it true that {{.Belief}}? A) {{.OptionA}} B) {{.OptionB}}"}, "prior": {"{{.Belif}}"}}
	if p := c.post(base+"/prompts", form); p.StatusCode != 400 || !strings.Contains(p.Body, "template prior") || !strings.Contains(p.Body, "Is it true that") {
		t.Fatalf("a broken template should be refused, keeping the text: %d\n%s", p.StatusCode, p.Body)
	}
	form.Set("prior", "Prior: {{.Belief}} A) {{.OptionA}} B) {{.OptionB}}")
	if p := c.post(base+"/prompts", form); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", p.StatusCode)
	}
	p = c.post(base+"/jobs", url.Values{"task": {"truefalse"}, "scorer": {"constant-0.5"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	id, _ := strconv.ParseInt(p.location()[strings.LastIndex(p.location(), "/")+1:], 10, 64)
	rows, _ := env.db.JobPrompts(context.Background(), id)
	if len(rows) != 12 || !strings.HasPrefix(rows[0].Text, "Is it true that You can help") || !strings.HasPrefix(rows[11].Text, "Prior: ") {
		t.Errorf("the job should use the saved templates: %q … %q", rows[0].Text, rows[len(rows)-1].Text)
	}
	if p := c.post(base+"/prompts", url.Values{"reset": {"1"}}); p.StatusCode != http.StatusSeeOther {
		t.Fatal("reset")
	}
	if p := c.get(base + "/prompts"); !strings.Contains(p.Body, "uses the defaults") {
		t.Error("reset should restore the defaults")
	}
}

func TestPassageJobsAndOutputs(t *testing.T) {
	env, _ := newJobsEnv(t, func(string) string { return "" })
	c := env.adminClient()
	ctx := context.Background()
	ps := samplePassages(t)
	s := &domain.Study{Kind: domain.KindExplain, Name: "IMPAQTS explanations", Lang: "it"}
	if err := env.db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := env.db.ImportPassages(ctx, s.ID, ps); err != nil {
		t.Fatal(err)
	}
	base := "/admin/studies/" + strconv.FormatInt(s.ID, 10)
	launch := func(form url.Values) (string, int64) {
		t.Helper()
		p := c.post(base+"/jobs", form)
		if p.StatusCode != http.StatusSeeOther {
			t.Fatalf("launch %v: %d\n%s", form, p.StatusCode, p.Body)
		}
		id, _ := strconv.ParseInt(p.location()[strings.LastIndex(p.location(), "/")+1:], 10, 64)
		waitJob(t, env.db, id, domain.JobDone)
		return p.location(), id
	}
	mcURL, _ := launch(url.Values{"task": {"multiplechoice"}, "scorer": {"bleu4"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"zero-shot"}})
	p := c.get(mcURL)
	if !strings.Contains(p.Body, `data-testid="mc-metrics"`) || !strings.Contains(p.Body, `data-testid="mc-confusion"`) {
		t.Fatalf("multiple-choice results missing:\n%s", p.Body)
	}
	// The BLEU-4 baseline on the published sample: the paper reports 64%
	// on the full data; on this sample it scores about 0.6.
	i := strings.Index(p.Body, "<td>all</td>")
	if i < 0 || !strings.Contains(p.Body[i:i+200], "0.6") {
		t.Errorf("BLEU-4 accuracy row: %.200s", p.Body[max(i, 0):])
	}

	genURL, genID := launch(url.Values{"task": {"generation"}, "scorer": {"copy-target"}, "seed": {"1"}, "compare": {"0"}, "strategy": {"few-shot"}})
	p = c.get(genURL)
	if !strings.Contains(p.Body, `data-testid="job-import-outputs"`) {
		t.Fatal("a finished generation job of an explain study offers to add its outputs")
	}
	if p := c.post(genURL+"/outputs", nil); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("outputs: %d\n%s", p.StatusCode, p.Body)
	}
	var buf bytes.Buffer
	res, _ := runner.LoadResults(ctx, env.db, genID)
	if len(res.Gen) != len(ps) {
		t.Fatalf("%d outputs for %d passages", len(res.Gen), len(ps))
	}
	res.WriteCSV(&buf)
	outs, err := itemfiles.ParseOutputsCSV(&buf)
	if err != nil || len(outs) != len(ps) || outs[0].Strategy != "few-shot" || outs[0].Model != "copy-target" {
		t.Errorf("the CSV export should be an outputs file: %v %+v", err, outs[:1])
	}
	// Adding them twice is refused, nothing half-added.
	if p := c.post(genURL+"/outputs", nil); p.StatusCode != http.StatusConflict {
		t.Errorf("second import: %d", p.StatusCode)
	}
}
