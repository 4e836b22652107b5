package store

import (
	"context"
	"encoding/json"
	"pragmalab/domain"
	"testing"
	"time"
)

func jobFixture(t *testing.T) (*DB, *domain.Job) {
	t.Helper()
	db := mustOpenDB(t)
	ctx := context.Background()
	s := &domain.Study{Kind: domain.KindExpert, Name: "s", Lang: "en"}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	j := &domain.Job{StudyID: s.ID, Task: "truefalse", Scorer: "model", Config: json.RawMessage(`{"model":"m","api_key_env":"KEY"}`)}
	ps := []domain.JobPrompt{{Key: "a|trigger|TF", ItemKey: "a", Text: "one"}, {Key: "a|trigger|FT", ItemKey: "a", Text: "two"}, {Key: "b|trigger|TF", ItemKey: "b", Text: "three"}}
	if err := db.CreateJob(ctx, j, ps); err != nil {
		t.Fatal(err)
	}
	return db, j
}

func TestJobResultsKeepTheFirstAnswer(t *testing.T) {
	db, j := jobFixture(t)
	ctx := context.Background()
	if err := db.SaveJobResults(ctx, j.ID, []domain.JobResult{{Seq: 1, Answer: json.RawMessage(`{"p_true":0.7}`)}, {Seq: 2, Error: "503 Service Unavailable"}}); err != nil {
		t.Fatal(err)
	}
	// A late duplicate must not replace the recorded answer; an answer
	// after an error clears the error.
	if err := db.SaveJobResults(ctx, j.ID, []domain.JobResult{{Seq: 1, Answer: json.RawMessage(`{"p_true":0.1}`)}}); err != nil {
		t.Fatal(err)
	}
	p, _ := db.JobProgress(ctx, j.ID)
	if p != (domain.JobProgress{Total: 3, Answered: 1, Failed: 1}) {
		t.Fatalf("progress %+v", p)
	}
	// The job list reads every job's figures in one query: the same ones.
	j2 := &domain.Job{StudyID: j.StudyID, Task: "truefalse", Scorer: "model", Config: j.Config}
	if err := db.CreateJob(ctx, j2, []domain.JobPrompt{{Key: "c|trigger|TF", ItemKey: "c", Text: "four"}}); err != nil {
		t.Fatal(err)
	}
	all, err := db.StudyJobProgress(ctx, j.StudyID)
	if err != nil || len(all) != 2 || all[j.ID] != p || all[j2.ID] != (domain.JobProgress{Total: 1}) {
		t.Fatalf("study job progress %+v, err %v", all, err)
	}
	pending, _ := db.PendingPrompts(ctx, j.ID, 0, 10)
	if len(pending) != 2 || pending[0].Seq != 2 || pending[1].Text != "three" {
		t.Fatalf("pending %+v: the failed and the unasked prompt, in order", pending)
	}
	if page, _ := db.PendingPrompts(ctx, j.ID, 2, 1); len(page) != 1 || page[0].Seq != 3 {
		t.Fatalf("second page %+v", page)
	}
	db.SaveJobResults(ctx, j.ID, []domain.JobResult{{Seq: 2, Answer: json.RawMessage(`{"p_true":0.2}`)}})
	rows, _ := db.JobPrompts(ctx, j.ID)
	if string(rows[0].Answer) != `{"p_true":0.7}` || rows[1].Error != "" || rows[1].Attempts != 2 {
		t.Fatalf("rows %+v", rows[:2])
	}
}

func TestJobLease(t *testing.T) {
	db, j := jobFixture(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	if ok, _ := db.ClaimJob(ctx, j.ID, "server", now.Add(30*time.Second)); !ok {
		t.Fatal("a free job can be claimed")
	}
	if ok, _ := db.ClaimJob(ctx, j.ID, "cli", now.Add(30*time.Second)); ok {
		t.Fatal("a job under another runner's lease cannot be claimed")
	}
	if ok, _ := db.ClaimJob(ctx, j.ID, "server", now.Add(60*time.Second)); !ok {
		t.Fatal("the holder renews its lease")
	}
	now = now.Add(61 * time.Second) // the holder crashed
	if ok, _ := db.ClaimJob(ctx, j.ID, "cli", now.Add(30*time.Second)); !ok {
		t.Fatal("an expired lease can be taken over")
	}
	db.ReleaseJob(ctx, j.ID, "cli")
	if ok, _ := db.ClaimJob(ctx, j.ID, "server", now.Add(30*time.Second)); !ok {
		t.Fatal("a released job can be claimed at once")
	}
	if err := db.CancelJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := db.ClaimJob(ctx, j.ID, "server", now.Add(30*time.Second)); ok {
		t.Fatal("a cancelled job cannot be claimed")
	}
	if err := db.CancelJob(ctx, j.ID); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("cancelling twice: %v", err)
	}
	if err := db.SetJobStatus(ctx, j.ID, domain.JobDone, ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Job(ctx, j.ID); got.Status != domain.JobCancelled {
		t.Fatalf("a cancelled job became %s", got.Status)
	}
	if err := db.RequeueJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Job(ctx, j.ID); got.Status != domain.JobQueued || got.Config == nil {
		t.Fatalf("requeued job: %+v", got)
	}
}

func TestJobValidate(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	for _, j := range []*domain.Job{
		{StudyID: 1, Task: "essay", Scorer: "x"},
		{StudyID: 1, Task: "truefalse", Scorer: ""},
		{StudyID: 1, Task: "truefalse", Scorer: "x", Config: json.RawMessage(`{`)},
	} {
		if err := db.CreateJob(ctx, j, []domain.JobPrompt{{Key: "k", Text: "t"}}); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("%+v: %v", j, err)
		}
	}
	if err := db.CreateJob(ctx, &domain.Job{StudyID: 99, Task: "truefalse", Scorer: "x"}, []domain.JobPrompt{{Key: "k", Text: "t"}}); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("unknown study: %v", err)
	}
}
