package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
)

func jobsOf(t *testing.T, path string, study int64) []*domain.Job {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	js, err := db.StudyJobs(context.Background(), study)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func TestScoreBatchEngine(t *testing.T) {
	path, study := scoreDB(t)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	env := map[string]string{"PRAGMALAB_KEY_CLI": "sk-batch-secret-0123"}
	code, out, errOut := runCLI(t, "", env, "score", "--db", path, "--study", strconv.FormatInt(study, 10),
		"--base-url", srv.URL, "--model", "fake-1b", "--api-key-env", "PRAGMALAB_KEY_CLI", "--batch", "--batch-poll", "1ms", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Prompts struct{ Total, Answered int }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Prompts.Answered != 96 {
		t.Fatalf("results %+v (%v):\n%s", res, err, out)
	}
	if srv.BatchCreates() != 1 || srv.Requests() < 4 || !srv.SawAuthorization("Bearer sk-batch-secret-0123") {
		t.Errorf("%d batches created, %d requests", srv.BatchCreates(), srv.Requests())
	}
	if strings.Contains(out+errOut, "sk-batch-secret") {
		t.Error("the key was printed")
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "sk-batch-secret") {
		t.Error("the key is in the database")
	}
}

// The export writes the job's requests for an offline runner; its output
// comes back through --import-batch, and a file with a foreign line is
// refused whole, naming the line.
func TestScoreExportImport(t *testing.T) {
	path, study := scoreDB(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	code, _, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", strconv.FormatInt(study, 10), "--model", "fake-1b", "--export-batch", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(in)
	if err != nil || strings.Count(string(data), "\n") != 96 || !strings.Contains(errOut, "--import-batch") {
		t.Fatalf("exported %d lines (%v); stderr %s", strings.Count(string(data), "\n"), err, errOut)
	}
	js := jobsOf(t, path, study)
	if len(js) != 1 || js[0].Status != domain.JobQueued {
		t.Fatalf("jobs %+v", js)
	}
	job := strconv.FormatInt(js[0].ID, 10)

	// The offline runner: the fake's Batch API over the file.
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	c, _ := scoring.NewClient(scoring.Config{BaseURLs: []string{srv.URL}, Model: "fake-1b"}, func(string) string { return "" })
	api := c.BatchAPI()
	ctx := context.Background()
	fid, _ := api.UploadFile(ctx, "in.jsonl", data)
	st, err := api.CreateBatch(ctx, fid, "/v1/chat/completions", nil)
	for err == nil && !scoring.BatchFinal(st.Status) {
		st, err = api.Batch(ctx, st.ID)
	}
	if err != nil {
		t.Fatal(err)
	}
	outData, _ := api.FileContent(ctx, st.OutputFileID)

	bad := filepath.Join(dir, "bad.jsonl")
	lines := strings.SplitAfter(string(outData), "\n")
	lines[2] = strings.Replace(lines[2], `"custom_id":"`, `"custom_id":"zz`, 1)
	os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o600)
	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--job", job, "--import-batch", bad)
	if code != 1 || !strings.Contains(errOut, "line 3: custom_id \"zz") || !strings.Contains(errOut, "nothing was imported") {
		t.Fatalf("a foreign line: exit %d, %s", code, errOut)
	}
	good := filepath.Join(dir, "out.jsonl")
	os.WriteFile(good, outData, 0o600)
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--job", job, "--import-batch", good)
	if code != 0 || !strings.Contains(errOut, "96 of 96 prompts answered") || !strings.Contains(out, "Implicature recognition") {
		t.Fatalf("import: exit %d\n%s\n%s", code, errOut, out)
	}
}

func TestScoreDryRun(t *testing.T) {
	path, study := scoreDB(t)
	env := map[string]string{"PRAGMALAB_PRICES": "fake-b=10/20"}
	code, out, errOut := runCLI(t, "", env, "score", "--db", path, "--study", strconv.FormatInt(study, 10),
		"--base-url", "http://127.0.0.1:9", "--model", "fake-a", "--model", "fake-b", "--mode", "sampling", "--price", "fake-a=1/2", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Log(out)
	// 96 prompts, 5 samples of at most 16 tokens each.
	if !lineHasInOrder(out, "fake-a", "live", "96", "96", "7680") || !lineHasInOrder(out, "fake-b", "96") || !strings.Contains(out, "estimated") {
		t.Errorf("dry run:\n%s", out)
	}
	if !strings.Contains(out, "$") || strings.Contains(out, "no price") {
		t.Errorf("both models are priced (flag and environment):\n%s", out)
	}
	if js := jobsOf(t, path, study); len(js) != 0 {
		t.Errorf("a dry run created %d jobs", len(js))
	}
	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--study", strconv.FormatInt(study, 10), "--model", "m", "--price", "m=cheap", "--dry-run")
	if code != 2 || !strings.Contains(errOut, "--price") {
		t.Errorf("a bad price: exit %d, %s", code, errOut)
	}
}

// Two models in one go: one job each over the same prompts, printed side
// by side with intervals.
func TestScoreManyModels(t *testing.T) {
	path, study := scoreDB(t)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", strconv.FormatInt(study, 10),
		"--base-url", srv.URL, "--model", "fake-a", "--model", "fake-b", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Log(out)
	js := jobsOf(t, path, study)
	if len(js) != 2 {
		t.Fatalf("%d jobs", len(js))
	}
	if !strings.Contains(out, "2 models on the same 96 prompts") || !lineHasInOrder(out, "measure", "type", "fake-a", "fake-b") ||
		!lineHasInOrder(out, "Implicature recognition", "all", "[", "]", "[", "]") {
		t.Errorf("side by side:\n%s", out)
	}
}

// With humans, the side-by-side table has their column first, each model
// with its Wilson interval.
func TestSideBySideWithHumans(t *testing.T) {
	var b strings.Builder
	b.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check\n")
	for _, p := range []string{"p1", "p2"} {
		for i := 1; i <= 8; i++ {
			fmt.Fprintf(&b, "%s,1,k%02d,scalar,trigger,7,\n%s,1,k%02d,scalar,cancel,1,\n", p, i, p, i)
		}
	}
	rs, err := toplines.ReadRatingsWith(strings.NewReader(b.String()), toplines.ReadOptions{WithinParticipant: true})
	if err != nil {
		t.Fatal(err)
	}
	human := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	mk := func(id int64, name string, p float64) *runner.Results {
		res := &runner.Results{Job: &domain.Job{ID: id, Task: string(scoring.TrueFalse)}, Scorer: name}
		for i := 1; i <= 8; i++ {
			res.TF = append(res.TF, scoring.TFItemResult{Key: fmt.Sprintf("k%02d", i), Type: "scalar",
				P: map[scoring.Condition]float64{scoring.Trigger: p, scoring.Cancel: 0.3}})
		}
		res.TFMetrics = scoring.ComputeTF(res.TF)
		return res
	}
	a, bb := mk(1, "model-a", 0.9), mk(2, "model-b", 0.2)
	var out strings.Builder
	printSideBySide(&out, []*runner.Results{a, bb}, runner.Compare(human, a, bb))
	// Humans 8 of 8 recognise; model-a 8 of 8, model-b 0 of 8.
	if !lineHasInOrder(out.String(), "Implicature recognition", "scalar", "1.00", "[0.68,", "1.00", "[0.68,", "0.00", "[0.00,") {
		t.Errorf("humans, then each model, with intervals:\n%s", out.String())
	}
	if !lineHasInOrder(out.String(), "measure", "type", "humans", "model-a", "model-b") {
		t.Errorf("header:\n%s", out.String())
	}
}

// A live job whose prompts failed is finished in a new batch: --job with
// --batch switches its engine and asks only what is unanswered.
func TestScoreResumeInABatch(t *testing.T) {
	path, study := scoreDB(t)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	code, _, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", strconv.FormatInt(study, 10),
		"--base-url", srv.URL+"/missing", "--model", "fake-1b", "--retries", "0", "--quiet")
	if code != 1 || !strings.Contains(errOut, "96 failed") {
		t.Fatalf("the first run should fail every prompt: exit %d\n%s", code, errOut)
	}
	job := strconv.FormatInt(jobsOf(t, path, study)[0].ID, 10)
	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--job", job, "--base-url", srv.URL, "--batch", "--batch-poll", "1ms", "--quiet")
	if code != 0 || !strings.Contains(errOut, "batch engine") || !strings.Contains(errOut, "96 of 96 prompts answered") {
		t.Fatalf("resumed in a batch: exit %d\n%s", code, errOut)
	}
	if srv.BatchCreates() != 1 || srv.BatchSizes()[0] != 96 {
		t.Errorf("batches %v", srv.BatchSizes())
	}
	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--job", job, "--batch", "--live")
	if code != 2 || !strings.Contains(errOut, "--batch and --live") {
		t.Errorf("both engines: exit %d, %s", code, errOut)
	}
}
