package store

import (
	"context"
	"encoding/json"
	"pragmalab/domain"
	"strings"
	"testing"
	"time"
)

func TestPartialJobAndTheRebuiltTables(t *testing.T) {
	db, j := jobFixture(t)
	ctx := context.Background()
	var ddl string
	if err := db.read.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'scoring_prompts'`).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ddl, `"scoring_jobs"`) && !strings.Contains(ddl, "scoring_jobs (") {
		t.Fatalf("after migration 0130 the prompts must point at scoring_jobs: %s", ddl)
	}
	db.SaveJobResults(ctx, j.ID, []domain.JobResult{{Seq: 1, Answer: json.RawMessage(`{"p_true":0.7}`)}, {Seq: 2, Error: "POST http://a/v1: connection refused"}, {Seq: 3, Error: "POST http://a/v1: connection refused"}})
	p, _ := db.JobProgress(ctx, j.ID)
	if got := FinalStatus(p); got != domain.JobPartial {
		t.Fatalf("1 of 3 answered: %s, want partial", got)
	}
	if FinalStatus(domain.JobProgress{Total: 3}) != domain.JobFailed || FinalStatus(domain.JobProgress{Total: 3, Answered: 3}) != domain.JobDone {
		t.Error("none answered is failed; all answered is done")
	}
	if err := db.SetJobStatus(ctx, j.ID, domain.JobPartial, "2 of 3 prompts failed"); err != nil {
		t.Fatalf("the partial status must be storable: %v", err)
	}
	reasons, err := db.JobFailureReasons(ctx, j.ID, 5)
	if err != nil || len(reasons) != 1 || reasons[0].Prompts != 2 || reasons[0].First != "a|trigger|FT" {
		t.Fatalf("reasons %+v, %v", reasons, err)
	}
	page, n, err := db.JobPromptsPage(ctx, j.ID, domain.PromptsFailed, 1, 10)
	if err != nil || n != 2 || len(page) != 1 || page[0].Seq != 3 {
		t.Fatalf("failed prompts page from 1: %d rows of %d, %v", len(page), n, err)
	}
	if err := db.RequeueJob(ctx, j.ID); err != nil {
		t.Fatalf("a partial job can be asked again: %v", err)
	}
	// Deleting the study still cascades to the jobs and their prompts.
	if _, err := db.write.ExecContext(ctx, `DELETE FROM studies WHERE id = ?`, j.StudyID); err != nil {
		t.Fatal(err)
	}
	var left int
	db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM scoring_prompts`).Scan(&left)
	if left != 0 {
		t.Errorf("%d prompts left after their study was deleted", left)
	}
}

func TestConfigChangesOnlyWithoutALiveLease(t *testing.T) {
	db, j := jobFixture(t)
	ctx := context.Background()
	if ok, _ := db.ClaimJob(ctx, j.ID, "other", db.Now().Add(10*time.Second)); !ok {
		t.Fatal("claim")
	}
	owner, until, err := db.JobLease(ctx, j.ID)
	if err != nil || owner != "other" || !until.After(db.Now()) {
		t.Fatalf("lease %q %v %v", owner, until, err)
	}
	if err := db.UpdateJobConfig(ctx, j.ID, json.RawMessage(`{"model":"n"}`)); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("a job another process runs must keep its config: %v", err)
	}
	db.ReleaseJob(ctx, j.ID, "other")
	if err := db.UpdateJobConfig(ctx, j.ID, json.RawMessage(`{"model":"n"}`)); err != nil {
		t.Fatal(err)
	}
	got, _ := db.Job(ctx, j.ID)
	if string(got.Config) != `{"model":"n"}` {
		t.Errorf("config %s", got.Config)
	}
}
