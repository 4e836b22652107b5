package runner

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"pragmalab/domain"
	"strings"
	"testing"
	"time"

	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
)

// refuseFalseFirst makes srv answer 400 to every prompt asked in the
// False-first order.
func refuseFalseFirst(srv *scoringtest.Server) {
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("A) False")) {
			http.Error(w, `{"error":"context length exceeded"}`, http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		inner.ServeHTTP(w, r)
	})
}

func stoppedURL() string {
	s := httptest.NewServer(http.NotFoundHandler())
	s.Close()
	return s.URL
}

// TestSomePromptsFailedIsPartial: a job with failed prompts never reads
// done; it says how many failed and why, and its metrics say on how many
// items they stand.
func TestSomePromptsFailedIsPartial(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 4)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	refuseFalseFirst(srv)
	job, err := Create(ctx, db, modelSpec(study, srv.URL, 2), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	r := New(db, nil, noEnv, nil)
	if err := r.RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	j, _ := db.Job(ctx, job.ID)
	p, _ := db.JobProgress(ctx, job.ID)
	if j.Status != domain.JobPartial || p.Failed != 24 || p.Answered != 24 {
		t.Fatalf("status %s, progress %+v; want partial with 24 failed", j.Status, p)
	}
	if !strings.Contains(j.Error, "24 of 48 prompts failed") {
		t.Errorf("message %q", j.Error)
	}
	reasons, _ := db.JobFailureReasons(ctx, job.ID, 5)
	if len(reasons) != 1 || reasons[0].Prompts != 24 || !strings.Contains(reasons[0].Error, "context length exceeded") {
		t.Errorf("reasons %+v", reasons)
	}
	res, err := LoadResults(ctx, db, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	// No item has both orders, so no item has a P(b): every measure is on
	// 0 of the 4 items, which the JSON tells by its counts.
	if m := res.TFMetrics[scoring.AllTypes]; m.Items != 4 || m.ImplicatureRecognition.N != 0 {
		t.Errorf("metrics %+v", m)
	}
	if res.Progress.Failed != 24 || res.JSON().(map[string]any)["status"] != domain.JobPartial {
		t.Errorf("results %+v", res.Progress)
	}
}

// TestAllEndpointsDeadFailsAtOnce: endpoints refusing connections are
// found by the start probe, and the job fails at once saying so.
func TestAllEndpointsDeadFailsAtOnce(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 4)
	spec := modelSpec(study, stoppedURL(), 2)
	spec.Config.BaseURLs = append(spec.Config.BaseURLs, stoppedURL())
	job, _ := Create(ctx, db, spec, noEnv)
	start := time.Now()
	if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	j, _ := db.Job(ctx, job.ID)
	if j.Status != domain.JobFailed || !strings.Contains(j.Error, "No endpoint accepts connections") || !strings.Contains(j.Error, "refused") {
		t.Fatalf("status %s: %q", j.Status, j.Error)
	}
}

// TestFailingEndpointStopsWithinBoundedTime: an endpoint that accepts
// connections but answers 500 to everything stops the job after
// GiveUpAfter failures in a row, with the real capped back-off, instead of
// spending every prompt's retries.
func TestFailingEndpointStopsWithinBoundedTime(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 50) // 600 prompts
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
	}))
	defer broken.Close()
	spec := modelSpec(study, broken.URL, 4)
	spec.Config.MaxRetries = 1
	job, _ := Create(ctx, db, spec, noEnv)
	r := New(db, nil, noEnv, nil)
	r.GiveUpAfter = 8
	r.ClientOptions = []scoring.ClientOption{scoring.WithBackoff(20*time.Millisecond, 50*time.Millisecond)}
	start := time.Now()
	if err := r.RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a job against a broken endpoint took %v", d)
	}
	j, _ := db.Job(ctx, job.ID)
	p, _ := db.JobProgress(ctx, job.ID)
	if j.Status != domain.JobFailed || !strings.Contains(j.Error, "Stopped early") || !strings.Contains(j.Error, "upstream exploded") || p.Unasked() < 500 {
		t.Fatalf("status %s (%q), progress %+v", j.Status, j.Error, p)
	}
}

// TestPromptErrorsDoNotStopTheJob: a 400 is the prompt's own problem, so a
// run of them does not stop the job early: every prompt is asked.
func TestPromptErrorsDoNotStopTheJob(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 5)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"unknown model"}`, http.StatusNotFound)
	}))
	defer refusing.Close()
	job, _ := Create(ctx, db, modelSpec(study, refusing.URL, 2), noEnv)
	r := New(db, nil, noEnv, nil)
	r.GiveUpAfter = 3
	if err := r.RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	j, _ := db.Job(ctx, job.ID)
	p, _ := db.JobProgress(ctx, job.ID)
	if j.Status != domain.JobFailed || p.Failed != 60 || p.Unasked() != 0 || strings.Contains(j.Error, "Stopped early") {
		t.Fatalf("status %s (%q), progress %+v; want every prompt asked", j.Status, j.Error, p)
	}
}

// TestOneDeadEndpointOfTwoAnswersEverything: the dead one is reported at
// start and every prompt is answered by the live one.
func TestOneDeadEndpointOfTwoAnswersEverything(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 10)
	live := scoringtest.NewServer(2 * time.Millisecond)
	defer live.Close()
	dead := stoppedURL()
	spec := modelSpec(study, dead, 4)
	spec.Config.BaseURLs = append(spec.Config.BaseURLs, live.URL)
	job, _ := Create(ctx, db, spec, noEnv)
	start := time.Now()
	if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	j, _ := db.Job(ctx, job.ID)
	p, _ := db.JobProgress(ctx, job.ID)
	if j.Status != domain.JobDone || p.Answered != 120 {
		t.Fatalf("status %s, progress %+v", j.Status, p)
	}
	if !strings.Contains(j.Error, dead) || !strings.Contains(j.Error, "benched") {
		t.Errorf("the dead endpoint should be reported: %q", j.Error)
	}
	if took > 3*time.Second {
		t.Errorf("took %v", took)
	}
}

// TestLeaseMessageSaysWhenTheJobFrees: a job whose runner crashed (its
// lease unexpired) is refused with the time the lease runs out.
func TestLeaseMessageSaysWhenTheJobFrees(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 2)
	job, _ := Create(ctx, db, Spec{StudyID: study, Task: scoring.TrueFalse, Scorer: "always-true"}, noEnv)
	if ok, _ := db.ClaimJob(ctx, job.ID, "crashed-runner", db.Now().Add(DefaultLease)); !ok {
		t.Fatal("claim")
	}
	err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil)
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(err.Error(), "frees the job at") || !strings.Contains(err.Error(), "in 10s") {
		t.Fatalf("err %v", err)
	}
	if DefaultLease > 15*time.Second {
		t.Errorf("lease %v: a crashed job should be resumable within seconds", DefaultLease)
	}
}
