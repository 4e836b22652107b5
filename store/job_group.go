package store

import (
	"context"
	"database/sql"
	"fmt"

	"pragmalab/domain"
)

// CreateJobGroup stores several queued jobs over the same prompts (one per
// model) as one group, all or nothing (migration 0261).
func (db *DB) CreateJobGroup(ctx context.Context, jobs []*domain.Job, prompts []domain.JobPrompt) error {
	if len(prompts) == 0 {
		return domain.Errorf(domain.EINVALID, "the job has no prompts (does the study have items of the kind the task needs?)")
	}
	if len(prompts) > MaxJobPrompts {
		return domain.Errorf(domain.EINVALID, "the job has %d prompts, more than %d", len(prompts), MaxJobPrompts)
	}
	for _, j := range jobs {
		if err := j.Validate(); err != nil {
			return err
		}
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		for _, j := range jobs {
			if err := db.createJob(ctx, tx, j, prompts); err != nil {
				return err
			}
			if len(jobs) < 2 {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO scoring_job_groups (job_id, group_id) VALUES (?, ?)`, j.ID, jobs[0].ID); err != nil {
				return fmt.Errorf("create job group: %w", err)
			}
		}
		return nil
	})
}

// JobGroup lists the ids of the jobs launched with jobID (itself
// included), in order; a job launched alone has none.
func (db *DB) JobGroup(ctx context.Context, jobID int64) ([]int64, error) {
	return queryRows(ctx, db, "job group", `
		SELECT job_id FROM scoring_job_groups
		WHERE group_id = (SELECT group_id FROM scoring_job_groups WHERE job_id = ?) ORDER BY job_id`,
		[]any{jobID}, func(rows *sql.Rows, id *int64) error { return rows.Scan(id) })
}
