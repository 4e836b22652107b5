package runner

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"pragmalab/domain"
	"strings"
	"sync"
	"testing"
	"time"

	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
)

func openDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func itemStudy(t testing.TB, db *store.DB, n int) int64 {
	t.Helper()
	s := &domain.Study{Kind: domain.KindExpert, Name: "items", Lang: "en"}
	if err := db.CreateStudy(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(context.Background(), s.ID, SyntheticItems(n)); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func modelSpec(study int64, url string, conc int) Spec {
	return Spec{StudyID: study, Task: scoring.TrueFalse, Scorer: ModelScorer,
		Config: scoring.Config{BaseURLs: []string{url}, Model: "fake-7b", Concurrency: conc}}
}

func noEnv(string) string { return "" }

// answered returns the keys of a job's answered prompts.
func answered(t *testing.T, db *store.DB, job int64) map[string]string {
	t.Helper()
	rows, err := db.JobPrompts(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		if r.Answer != nil {
			out[r.Text] = string(r.Answer)
		}
	}
	return out
}

func TestRestartResumesWithoutReasking(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 20) // 20 items × 6 conditions × 2 orders = 240 prompts
	srv := scoringtest.NewServer(2 * time.Millisecond)
	defer srv.Close()

	job, err := Create(ctx, db, modelSpec(study, srv.URL, 4), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	// First run: stopped (as by a server shutdown) once a third is answered.
	r1 := New(db, nil, noEnv, nil)
	r1.FlushEvery = 8
	runCtx, stop := context.WithCancel(ctx)
	var once sync.Once
	err = r1.RunJob(runCtx, job.ID, func(p domain.JobProgress) {
		if p.Answered >= p.Total/3 {
			once.Do(stop)
		}
	})
	if err == nil {
		t.Fatal("the stopped run should report its context's end")
	}
	before := answered(t, db, job.ID)
	p, _ := db.JobProgress(ctx, job.ID)
	if len(before) < 80 || len(before) >= 240 || p.Failed != 0 {
		t.Fatalf("after the stop: %d answered, %d failed; want a part answered and none failed", len(before), p.Failed)
	}
	if j, _ := db.Job(ctx, job.ID); j.Status != domain.JobRunning {
		t.Fatalf("a stopped job should stay running (to resume), is %s", j.Status)
	}

	// Second run, a new runner as after a restart.
	r2 := New(db, nil, noEnv, nil)
	if err := r2.RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	asked := srv.Asked()
	for text := range before {
		if asked[text] != 1 {
			t.Errorf("a prompt answered before the restart was asked %d times", asked[text])
		}
	}
	after := answered(t, db, job.ID)
	for text, a := range before {
		if after[text] != a {
			t.Errorf("an answer given before the restart changed")
		}
	}
	if len(after) != 240 {
		t.Fatalf("%d of 240 prompts answered after the resume", len(after))
	}
	if j, _ := db.Job(ctx, job.ID); j.Status != domain.JobDone {
		t.Errorf("status %s, want done", j.Status)
	}

	// An uninterrupted run of the same job gives the same results.
	job2, err := Create(ctx, db, modelSpec(study, srv.URL, 8), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := New(db, nil, noEnv, nil).RunJob(ctx, job2.ID, nil); err != nil {
		t.Fatal(err)
	}
	res1, err := LoadResults(ctx, db, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	res2, _ := LoadResults(ctx, db, job2.ID)
	var b1, b2 bytes.Buffer
	res1.WriteCSV(&b1)
	res2.WriteCSV(&b2)
	if b1.String() != b2.String() {
		t.Errorf("resumed and uninterrupted runs differ:\n%s\nvs\n%s", b1.String(), b2.String())
	}
	if res1.Progress.Answered != 240 || len(res1.TF) != 20 || len(res1.TF[0].P) != 6 {
		t.Errorf("results: %+v items %d", res1.Progress, len(res1.TF))
	}
	// P(b) is the mean of the orders of the fake's deterministic P(True).
	all := res1.TFMetrics[scoring.AllTypes]
	if all.Items != 20 || all.ImplicatureRecognition.N != 20 {
		t.Errorf("metrics over all items: %+v", all)
	}
}

func TestBackgroundRunnerAndCancel(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 10)
	srv := scoringtest.NewServer(20 * time.Millisecond)
	defer srv.Close()
	r := New(db, nil, noEnv, nil)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { r.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()

	quick, err := Create(ctx, db, Spec{StudyID: study, Task: scoring.TrueFalse, Scorer: "always-true"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := Create(ctx, db, modelSpec(study, srv.URL, 1), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	r.Wake()
	waitFor(t, func() bool { j, _ := db.Job(ctx, quick.ID); return j.Status == domain.JobDone })
	waitFor(t, func() bool { p, _ := db.JobProgress(ctx, slow.ID); return p.Answered > 0 })
	if err := r.Cancel(ctx, slow.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	p1, _ := db.JobProgress(ctx, slow.ID)
	time.Sleep(200 * time.Millisecond)
	p2, _ := db.JobProgress(ctx, slow.ID)
	if p2.Answered != p1.Answered || p2.Answered == p2.Total {
		t.Errorf("a cancelled job kept answering: %d then %d of %d", p1.Answered, p2.Answered, p2.Total)
	}
	if j, _ := db.Job(ctx, slow.ID); j.Status != domain.JobCancelled {
		t.Errorf("status %s, want cancelled", j.Status)
	}
	res, _ := LoadResults(ctx, db, quick.ID)
	if v, _ := res.TFMetrics["all"].ImplicatureRecognition.Value(); v != 1 {
		t.Errorf("always-true implicature recognition %v, want 1", v)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAPIKeyNeverStoredOrLogged(t *testing.T) {
	const key = "sk-runner-secret-31337"
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	study := itemStudy(t, db, 3)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	getenv := func(n string) string {
		if n == "PRAGMALAB_KEY_FAKE_MODEL" {
			return key
		}
		return ""
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	spec := modelSpec(study, srv.URL, 2)
	spec.Config.APIKeyEnv = "PRAGMALAB_KEY_FAKE_MODEL"
	job, err := Create(ctx, db, spec, getenv)
	if err != nil {
		t.Fatal(err)
	}
	// A second job whose endpoint rejects every prompt, echoing the key.
	bad := spec
	bad.Config.BaseURLs = []string{srv.URL + "/nothing-here"}
	badJob, err := Create(ctx, db, bad, getenv)
	if err != nil {
		t.Fatal(err)
	}
	r := New(db, log, getenv, nil)
	for _, id := range []int64{job.ID, badJob.ID} {
		if err := r.RunJob(ctx, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !srv.SawAuthorization("Bearer " + key) {
		t.Fatal("the key was not sent to the server")
	}
	errs, _ := db.JobErrors(ctx, badJob.ID, 5)
	if len(errs) == 0 || errs[0].Text == "" {
		t.Fatal("the failing prompts should be kept with their errors")
	}
	db.Close()
	var all []byte
	for _, f := range []string{"k.db", "k.db-wal"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte("PRAGMALAB_KEY_FAKE_MODEL")) {
		t.Fatal("the job's configuration (with the variable's name) should be in the database files")
	}
	if bytes.Contains(all, []byte(key)) {
		t.Error("the API key is in the database files")
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("the API key is in the logs:\n%s", logs.String())
	}
	if _, err := Create(ctx, openDB(t), spec, noEnv); err == nil || !strings.Contains(err.Error(), "PRAGMALAB_KEY_FAKE_MODEL") {
		t.Errorf("launching without the key set should name the variable: %v", err)
	}
}

func TestFailedPromptsKeptAndRetried(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 2)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	spec := modelSpec(study, srv.URL+"/missing", 2)
	job, _ := Create(ctx, db, spec, noEnv)
	r := New(db, nil, noEnv, nil)
	if err := r.RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	j, _ := db.Job(ctx, job.ID)
	p, _ := db.JobProgress(ctx, job.ID)
	if j.Status != domain.JobFailed || p.Failed != 24 || !strings.Contains(j.Error, "24 of 24 prompts failed") {
		t.Fatalf("status %s (%q), progress %+v", j.Status, j.Error, p)
	}
	errs, _ := db.JobErrors(ctx, job.ID, 3)
	if len(errs) != 3 || !strings.Contains(errs[0].Error, "404") || !strings.Contains(errs[0].Text, "Statement:") {
		t.Fatalf("errors should carry the status and the prompt: %+v", errs)
	}
}

// TestRunResumesRunningJob is the server restart: a job left running by a
// stopped runner is picked up by the next runner's Run loop.
func TestRunResumesRunningJob(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 10)
	srv := scoringtest.NewServer(5 * time.Millisecond)
	defer srv.Close()
	job, _ := Create(ctx, db, modelSpec(study, srv.URL, 2), noEnv)
	first, stopFirst := context.WithCancel(ctx)
	r1 := New(db, nil, noEnv, nil)
	r1.FlushEvery = 4
	done := make(chan struct{})
	go func() { r1.Run(first); close(done) }()
	waitFor(t, func() bool { p, _ := db.JobProgress(ctx, job.ID); return p.Answered >= 30 })
	stopFirst()
	<-done
	before := answered(t, db, job.ID)
	if len(before) >= 120 {
		t.Fatal("the first runner finished before the stop; nothing to resume")
	}

	second, stopSecond := context.WithCancel(ctx)
	defer stopSecond()
	r2 := New(db, nil, noEnv, nil)
	go r2.Run(second)
	waitFor(t, func() bool { j, _ := db.Job(ctx, job.ID); return j.Status == domain.JobDone })
	asked := srv.Asked()
	for text := range before {
		if asked[text] != 1 {
			t.Errorf("asked again after the restart: %d times", asked[text])
		}
	}
	if p, _ := db.JobProgress(ctx, job.ID); p.Answered != 120 {
		t.Errorf("progress %+v", p)
	}
}
