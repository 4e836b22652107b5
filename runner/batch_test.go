package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
)

func batchSpec(study int64, url string) Spec {
	s := modelSpec(study, url, 4)
	s.Config.Engine = scoring.EngineBatch
	return s
}

// batchRunner polls at once, so the tests wait for states, not seconds.
func batchRunner(db *store.DB) *Runner {
	r := New(db, nil, noEnv, nil)
	r.BatchPoll, r.BatchPollMax = time.Millisecond, 5*time.Millisecond
	return r
}

// batchFixture is the set-up every batch test shares: a database, a study
// (of True/False items, 12 prompts each, unless made otherwise), and the fake model server with
// its Batch API, closed when the test ends.
type batchFixture struct {
	ctx   context.Context
	db    *store.DB
	study int64
	srv   *scoringtest.Server
}

// newBatchFixture sets up a study of items items; opts, if given, set the
// fake's Batch API.
func newBatchFixture(t *testing.T, items int, opts ...scoringtest.BatchOptions) *batchFixture {
	t.Helper()
	return batchFixtureOf(t, func(db *store.DB) int64 { return itemStudy(t, db, items) }, opts...)
}

// batchFixtureOf sets up the study that study makes (a human-task study,
// say).
func batchFixtureOf(t *testing.T, study func(*store.DB) int64, opts ...scoringtest.BatchOptions) *batchFixture {
	t.Helper()
	db := openDB(t)
	f := &batchFixture{ctx: context.Background(), db: db, study: study(db), srv: scoringtest.NewServer(0)}
	t.Cleanup(f.srv.Close)
	for _, o := range opts {
		f.srv.SetBatchOptions(o)
	}
	return f
}

// job creates a job of spec over the fixture's study.
func (f *batchFixture) job(t *testing.T, spec Spec) *domain.Job {
	t.Helper()
	j, err := Create(f.ctx, f.db, spec, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// batchJob creates a job on the batch engine of the fake.
func (f *batchFixture) batchJob(t *testing.T) *domain.Job {
	t.Helper()
	return f.job(t, batchSpec(f.study, f.srv.URL))
}

// runner is a runner polling at once.
func (f *batchFixture) runner() *Runner { return batchRunner(f.db) }

// run runs a job to its end with a runner polling at once.
func (f *batchFixture) run(t *testing.T, job int64) {
	t.Helper()
	if err := f.runner().RunJob(f.ctx, job, nil); err != nil {
		t.Fatal(err)
	}
}

// answersByKey are a job's stored answers by prompt key.
func answersByKey(t *testing.T, db *store.DB, job int64) map[string]string {
	t.Helper()
	rows, err := db.JobPrompts(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		if r.Answer != nil {
			out[r.Key] = string(r.Answer)
		}
	}
	return out
}

func setEngine(t *testing.T, db *store.DB, job int64, e scoring.Engine) {
	t.Helper()
	ctx := context.Background()
	j, _ := db.Job(ctx, job)
	cfg, _ := JobConfig(j)
	cfg.Engine = e
	b, _ := json.Marshal(cfg)
	if err := db.UpdateJobConfig(ctx, job, b); err != nil {
		t.Fatal(err)
	}
	if err := db.RequeueJob(ctx, job); err != nil {
		t.Fatal(err)
	}
}

// A batch job stores exactly what a live job stores: the same answers by
// key, though the output comes back in reverse order and split over files.
func TestBatchJobStoresWhatLiveStores(t *testing.T) {
	f := newBatchFixture(t, 20) // 240 prompts
	ctx, db, srv := f.ctx, f.db, f.srv

	live := f.job(t, modelSpec(f.study, srv.URL, 8))
	if err := New(db, nil, noEnv, nil).RunJob(ctx, live.ID, nil); err != nil {
		t.Fatal(err)
	}
	batch := f.batchJob(t)
	r := f.runner()
	r.BatchMaxLines = 100
	if err := r.RunJob(ctx, batch.ID, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.BatchSizes(); len(got) != 3 || got[0] != 100 || got[1] != 100 || got[2] != 40 {
		t.Errorf("batch files of %v prompts; want 100, 100, 40 (split at the line limit)", got)
	}
	a, b := answersByKey(t, db, live.ID), answersByKey(t, db, batch.ID)
	if len(a) != 240 || len(b) != 240 {
		t.Fatalf("answered live %d, batch %d of 240", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Fatalf("prompt %s: live %s, batch %s", k, v, b[k])
		}
	}
	j, _ := db.Job(ctx, batch.ID)
	if j.Status != domain.JobDone {
		t.Errorf("status %s (%s), want done", j.Status, j.Error)
	}
	res1, _ := LoadResults(ctx, db, live.ID)
	res2, _ := LoadResults(ctx, db, batch.ID)
	var c1, c2 bytes.Buffer
	res1.WriteCSV(&c1)
	res2.WriteCSV(&c2)
	if c1.String() != c2.String() {
		t.Error("the batch job's per-item results differ from the live job's")
	}
	bs, _ := db.JobBatches(ctx, batch.ID)
	for _, b := range bs {
		if b.State != domain.BatchCollected || b.RemoteStatus != "completed" || b.BatchID == "" || b.Answered != b.Prompts {
			t.Errorf("batch row %+v", b)
		}
	}
}

// The byte limit splits files too.
func TestBatchFilesSplitAtTheByteLimit(t *testing.T) {
	f := newBatchFixture(t, 2) // 24 prompts
	ctx, db, srv := f.ctx, f.db, f.srv
	job := f.batchJob(t)
	r := f.runner()
	r.BatchMaxBytes = 4000 // a line is about 700 bytes
	if err := r.RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	sizes := srv.BatchSizes()
	total := 0
	for _, n := range sizes {
		total += n
	}
	if len(sizes) < 4 || total != 24 {
		t.Errorf("files of %v lines; want several adding up to 24", sizes)
	}
	if p, _ := db.JobProgress(ctx, job.ID); p.Answered != 24 {
		t.Errorf("progress %+v", p)
	}
}

// Lines of the error file fail their prompts (partial); they are asked
// again live, each once, and nothing answered is asked again.
func TestBatchErrorFileThenLive(t *testing.T) {
	f := newBatchFixture(t, 5, scoringtest.BatchOptions{FailEvery: 6, Polls: 2}) // 60 prompts
	ctx, db, srv := f.ctx, f.db, f.srv
	job := f.batchJob(t)
	f.run(t, job.ID)
	j, _ := db.Job(ctx, job.ID)
	p, _ := db.JobProgress(ctx, job.ID)
	if j.Status != domain.JobPartial || p.Answered != 50 || p.Failed != 10 {
		t.Fatalf("status %s, progress %+v; want partial, 50 answered, 10 failed", j.Status, p)
	}
	if !strings.Contains(j.Error, "--live") || !strings.Contains(j.Error, "--batch") {
		t.Errorf("the message should say how to ask the failed prompts again: %s", j.Error)
	}
	errs, _ := db.JobErrors(ctx, job.ID, 1)
	if len(errs) != 1 || !strings.Contains(errs[0].Error, "status 400") || !strings.Contains(errs[0].Error, "prompt refused by the fake") {
		t.Errorf("a failed line's error: %+v", errs)
	}
	before := answersByKey(t, db, job.ID)

	setEngine(t, db, job.ID, scoring.EngineLive)
	if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	after := answersByKey(t, db, job.ID)
	if len(after) != 60 {
		t.Fatalf("%d of 60 answered after the live run", len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("answer of %s changed", k)
		}
	}
	for text, n := range srv.Asked() {
		if n != 1 {
			t.Errorf("a prompt was asked %d times: %.40q", n, text)
		}
	}
	if j, _ := db.Job(ctx, job.ID); j.Status != domain.JobDone {
		t.Errorf("status %s", j.Status)
	}
}

// An expired batch leaves the job partial; a new batch asks only the
// prompts it did not answer.
func TestExpiredBatchThenNewBatch(t *testing.T) {
	f := newBatchFixture(t, 5, scoringtest.BatchOptions{Expire: true}) // 60 prompts
	ctx, db, srv := f.ctx, f.db, f.srv
	job := f.batchJob(t)
	f.run(t, job.ID)
	j, _ := db.Job(ctx, job.ID)
	p, _ := db.JobProgress(ctx, job.ID)
	if j.Status != domain.JobPartial || p.Answered != 30 || p.Failed != 30 || !strings.Contains(j.Error, "expired") {
		t.Fatalf("status %s (%s), progress %+v", j.Status, j.Error, p)
	}
	errs, _ := db.JobErrors(ctx, job.ID, 1)
	if !strings.Contains(errs[0].Error, "batch_expired") {
		t.Errorf("an expired prompt's error: %s", errs[0].Error)
	}
	srv.SetBatchOptions(scoringtest.BatchOptions{})
	setEngine(t, db, job.ID, scoring.EngineBatch)
	f.run(t, job.ID)
	if got := srv.BatchSizes(); len(got) != 2 || got[1] != 30 {
		t.Errorf("batches %v; the second should hold the 30 unanswered prompts", got)
	}
	if p, _ := db.JobProgress(ctx, job.ID); p.Answered != 60 {
		t.Errorf("progress %+v", p)
	}
}

// Killed after the engine created the batch but before its id was
// recorded, then killed again while waiting: each next start finds the
// batch (by its recorded file, then by its recorded id) and collects it.
// Nothing is uploaded, created or asked twice.
func TestKilledBatchRunIsCollectedNextStart(t *testing.T) {
	f := newBatchFixture(t, 5) // 60 prompts
	ctx, db, srv := f.ctx, f.db, f.srv
	job := f.batchJob(t)

	// 1: killed inside the create call.
	kill1, stop1 := context.WithCancel(ctx)
	srv.SetBatchOptions(scoringtest.BatchOptions{Polls: 1000, OnCreate: stop1})
	if err := f.runner().RunJob(kill1, job.ID, nil); err == nil {
		t.Fatal("the killed run should report its end")
	}
	bs, _ := db.JobBatches(ctx, job.ID)
	if len(bs) != 1 || bs[0].State != domain.BatchUploaded || bs[0].BatchID != "" || srv.BatchCreates() != 1 {
		t.Fatalf("after the first kill: %+v, %d batches created", bs, srv.BatchCreates())
	}

	// 2: finds the batch by its file, records its id, is killed while
	// the batch is in progress.
	kill2, stop2 := context.WithCancel(ctx)
	srv.SetBatchOptions(scoringtest.BatchOptions{Polls: 1000})
	done := make(chan error, 1)
	go func() { done <- f.runner().RunJob(kill2, job.ID, nil) }()
	for {
		bs, _ = db.JobBatches(ctx, job.ID)
		if bs[0].State == domain.BatchSubmitted && bs[0].RemoteStatus == "in_progress" {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the second run ended before the batch was in progress: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	stop2()
	<-done
	if srv.BatchCreates() != 1 || len(srv.Asked()) != 0 {
		t.Fatalf("after the second kill: %d batches created, %d prompts asked", srv.BatchCreates(), len(srv.Asked()))
	}

	// 3: the batch ends; the next start collects it.
	srv.SetBatchOptions(scoringtest.BatchOptions{Polls: 1})
	f.run(t, job.ID)
	if srv.BatchUploads() != 1 || srv.BatchCreates() != 1 {
		t.Errorf("%d uploads, %d batches; want 1 and 1", srv.BatchUploads(), srv.BatchCreates())
	}
	p, _ := db.JobProgress(ctx, job.ID)
	j, _ := db.Job(ctx, job.ID)
	if p.Answered != 60 || j.Status != domain.JobDone {
		t.Fatalf("status %s (%s), progress %+v", j.Status, j.Error, p)
	}
	for text, n := range srv.Asked() {
		if n != 1 {
			t.Errorf("asked %d times: %.40q", n, text)
		}
	}
}

// The export writes what a batch run sends; an offline runner's output (the
// fake's, out of order) imports as the batch engine stores it. Bad files
// are refused whole, naming the line.
func TestExportImportRoundTrip(t *testing.T) {
	f := newBatchFixture(t, 3) // 36 prompts
	ctx, db, srv := f.ctx, f.db, f.srv

	spec := modelSpec(f.study, "", 1)
	spec.Config.BaseURLs, spec.Config.Engine = nil, scoring.EngineOffline
	job := f.job(t, spec)
	if active, _ := db.ActiveJobs(ctx); len(active) != 0 {
		t.Errorf("an offline job is not for the runner: %d active", len(active))
	}
	var file bytes.Buffer
	n, err := ExportBatch(ctx, db, job.ID, &file)
	if err != nil || n != 36 || strings.Count(file.String(), "\n") != 36 {
		t.Fatalf("export: %d lines, %v", n, err)
	}
	// The offline runner: the fake's batch engine over the exported file.
	api := fakeRunner(t, srv, file.Bytes())

	// Refused: a line of another job's model, a foreign key, a duplicate.
	otherModel := strings.Replace(string(api), `"model":"fake-7b"`, `"model":"other-13b"`, 1)
	for name, bad := range map[string]string{
		"model":     otherModel,
		"custom_id": string(api) + `{"custom_id":"nope|trigger|TF","response":{"status_code":200,"body":{}}}` + "\n",
		"duplicate": string(api) + strings.SplitAfter(string(api), "\n")[0],
		"not json":  "{oops\n" + string(api),
	} {
		_, err := ImportBatch(ctx, db, job.ID, []byte(bad), noEnv)
		if err == nil || domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: %v", name, err)
		}
		if p, _ := db.JobProgress(ctx, job.ID); p.Answered != 0 {
			t.Fatalf("%s: a refused file stored %d answers", name, p.Answered)
		}
	}
	rep, err := ImportBatch(ctx, db, job.ID, api, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Answered != 36 || rep.Progress.Answered != 36 {
		t.Fatalf("import %+v", rep)
	}
	if j, _ := db.Job(ctx, job.ID); j.Status != domain.JobDone {
		t.Errorf("status %s", j.Status)
	}
	// The same prompts through the batch engine store the same answers.
	bjob := f.batchJob(t)
	f.run(t, bjob.ID)
	a, b := answersByKey(t, db, job.ID), answersByKey(t, db, bjob.ID)
	for k, v := range b {
		if a[k] != v {
			t.Fatalf("prompt %s: imported %s, batch engine %s", k, a[k], v)
		}
	}
	// Importing again keeps every answer.
	rep, err = ImportBatch(ctx, db, job.ID, api, noEnv)
	if err != nil || rep.Kept != 36 || rep.Answered != 0 {
		t.Errorf("second import: %+v, %v", rep, err)
	}
}

// fakeRunner runs a batch input file through the fake's Batch API, as
// `vllm run-batch` would, and returns the output file.
func fakeRunner(t *testing.T, srv *scoringtest.Server, input []byte) []byte {
	t.Helper()
	ctx := context.Background()
	c, err := scoring.NewClient(scoring.Config{BaseURLs: []string{srv.URL}, Model: "fake-7b"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	api := c.BatchAPI()
	fid, err := api.UploadFile(ctx, "in.jsonl", input)
	if err != nil {
		t.Fatal(err)
	}
	st, err := api.CreateBatch(ctx, fid, "/v1/chat/completions", nil)
	if err != nil {
		t.Fatal(err)
	}
	for !scoring.BatchFinal(st.Status) {
		if st, err = api.Batch(ctx, st.ID); err != nil {
			t.Fatal(err)
		}
	}
	out, err := api.FileContent(ctx, st.OutputFileID)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// waitBatchInProgress waits until the job's first batch is in progress at
// the engine.
func waitBatchInProgress(t *testing.T, db *store.DB, job int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		bs, _ := db.JobBatches(context.Background(), job)
		if len(bs) > 0 && bs[0].RemoteStatus == "in_progress" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: no batch in progress: %+v", job, bs)
		}
		time.Sleep(time.Millisecond)
	}
}

// Cancelling a batch job asks the engine to cancel its open batch, so it
// costs nothing more.
func TestCancelledBatchJobCancelsTheBatch(t *testing.T) {
	f := newBatchFixture(t, 2, scoringtest.BatchOptions{Polls: 1 << 30})
	ctx, db, srv := f.ctx, f.db, f.srv
	job := f.batchJob(t)
	r := f.runner()
	done := make(chan error, 1)
	go func() { done <- r.RunJob(ctx, job.ID, nil) }()
	waitBatchInProgress(t, db, job.ID)
	if err := r.Cancel(ctx, job.ID); err != nil {
		t.Fatal(err)
	}
	<-done
	if st := srv.BatchStatuses(); len(st) != 1 || st[0] != "cancelled" {
		t.Errorf("engine's batches %v; want the one cancelled", st)
	}
	if j, _ := db.Job(ctx, job.ID); j.Status != domain.JobCancelled {
		t.Errorf("status %s", j.Status)
	}
}

// A batch job waiting for its engine does not hold back live jobs: with
// one place for jobs, a live job runs to the end beside it.
func TestWaitingBatchJobLeavesLiveJobsRunning(t *testing.T) {
	f := newBatchFixture(t, 2, scoringtest.BatchOptions{Polls: 1 << 30})
	ctx, db := f.ctx, f.db
	batch := f.batchJob(t)
	live := f.job(t, modelSpec(f.study, f.srv.URL, 2))
	r := f.runner()
	r.MaxJobs = 1
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { r.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()
	waitBatchInProgress(t, db, batch.ID)
	deadline := time.Now().Add(20 * time.Second)
	for {
		j, _ := db.Job(ctx, live.ID)
		if j.Status == domain.JobDone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the live job is %s while the batch job waits", j.Status)
		}
		r.Wake()
		time.Sleep(5 * time.Millisecond)
	}
	if j, _ := db.Job(ctx, batch.ID); j.Status != domain.JobRunning {
		t.Errorf("the batch job is %s, want still running", j.Status)
	}
}
