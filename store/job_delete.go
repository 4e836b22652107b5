package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
)

// DeleteJob deletes a scoring job of a study with its prompts and answers.
// A queued or running job must be cancelled first, so no runner is left
// writing into a job that is gone.
func (db *DB) DeleteJob(ctx context.Context, studyID, jobID int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM scoring_jobs WHERE id = ? AND study_id = ?`, jobID, studyID).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "job %d not found in this study", jobID)
		}
		if err != nil {
			return fmt.Errorf("delete job: %w", err)
		}
		if status == domain.JobQueued || status == domain.JobRunning {
			return domain.Errorf(domain.ECONFLICT, "job %d is %s: cancel it before deleting it", jobID, status)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM scoring_jobs WHERE id = ?`, jobID); err != nil {
			return fmt.Errorf("delete job: %w", err)
		}
		return nil
	})
}
