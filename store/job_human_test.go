package store

import (
	"context"
	"encoding/json"
	"testing"

	"pragmalab/domain"
)

// Migration 0290 rebuilds the scoring tables: run again over a database
// holding a job with answers, a batch and a group, it keeps every row and
// every link (deleting the job still takes its prompts, batches and group
// row with it), admits the new tasks, and fills the distribution column
// from a human-task answer.
func TestHumanTasksMigrationKeepsTheScoringData(t *testing.T) {
	db, j := jobFixture(t)
	ctx := context.Background()
	if err := db.SaveJobResults(ctx, j.ID, []domain.JobResult{{Seq: 1, Answer: json.RawMessage(`{"p_true":0.7}`)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.OpenBatch(ctx, j.ID, "http://x", []int{2, 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `INSERT INTO scoring_job_groups (job_id, group_id) VALUES (?, ?)`, j.ID, j.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = 290`); err != nil {
		t.Fatal(err)
	}
	if err := db.migrate(ctx); err != nil {
		t.Fatalf("migration 0290 over existing data: %v", err)
	}
	count := func(q string) int {
		var n int
		if err := db.write.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if p, _ := db.JobProgress(ctx, j.ID); p.Total != 3 || p.Answered != 1 {
		t.Fatalf("prompts after the migration: %+v", p)
	}
	if b, _ := db.JobBatches(ctx, j.ID); len(b) != 1 || count(`SELECT COUNT(*) FROM scoring_batch_prompts`) != 2 || count(`SELECT COUNT(*) FROM scoring_job_groups`) != 1 {
		t.Fatalf("batches %+v, batch prompts and group rows lost", b)
	}
	h := &domain.Job{StudyID: j.StudyID, Task: "likert", Scorer: "uniform", Strategy: "7-point"}
	if err := db.CreateJob(ctx, h, []domain.JobPrompt{{Key: "a|trigger|fwd", ItemKey: "a", Condition: "trigger", Order: "fwd", Text: "t"}}); err != nil {
		t.Fatalf("a likert job: %v", err)
	}
	if err := db.SaveJobResults(ctx, h.ID, []domain.JobResult{{Seq: 1, Answer: json.RawMessage(`{"p_true":0,"dist":[0.5,0.5,0,0,0,0,0],"choice":1}`)}}); err != nil {
		t.Fatal(err)
	}
	if d, err := db.JobDistributions(ctx, h.ID); err != nil || d["a|trigger|fwd"] != "[0.5,0.5,0,0,0,0,0]" {
		t.Fatalf("distribution column: %v %v", d, err)
	}
	if err := db.CancelJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteJob(ctx, j.StudyID, j.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT COUNT(*) FROM scoring_prompts WHERE job_id = 1`) + count(`SELECT COUNT(*) FROM scoring_batches`) + count(`SELECT COUNT(*) FROM scoring_batch_prompts`) + count(`SELECT COUNT(*) FROM scoring_job_groups`); n != 0 {
		t.Errorf("deleting the job left %d rows behind: the references were not rewritten", n)
	}
}
