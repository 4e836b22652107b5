package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"pragmalab/domain"
)

// A job's batches (docs/scoring.md#openai-batch-api; migration 0260). Each
// step of sending a batch is recorded as it completes, so the next start
// knows where a killed run stopped.

const batchColumns = `id, job_id, base_url, state, input_file_id, batch_id, remote_status, prompts, answered, failed, message, created_at, updated_at`

func scanBatch(sc interface{ Scan(...any) error }) (domain.JobBatch, error) {
	var b domain.JobBatch
	var created, updated string
	err := sc.Scan(&b.ID, &b.JobID, &b.BaseURL, &b.State, &b.InputFileID, &b.BatchID, &b.RemoteStatus,
		&b.Prompts, &b.Answered, &b.Failed, &b.Message, &created, &updated)
	b.CreatedAt, b.UpdatedAt = parseTime(created), parseTime(updated)
	return b, err
}

// OpenBatch records a new batch of the job's prompts seqs, going to
// baseURL, before anything is sent. A prompt already in an open batch or
// answered is refused (ECONFLICT): it would be asked twice.
func (db *DB) OpenBatch(ctx context.Context, jobID int64, baseURL string, seqs []int) (int64, error) {
	if len(seqs) == 0 {
		return 0, domain.Errorf(domain.EINVALID, "a batch needs prompts")
	}
	now := db.now()
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			INSERT INTO scoring_batches (job_id, base_url, state, prompts, created_at, updated_at)
			VALUES (?, ?, 'preparing', ?, ?, ?)`, jobID, baseURL, len(seqs), now, now)
		if err != nil {
			return fmt.Errorf("open batch: %w", err)
		}
		id, _ = res.LastInsertId()
		check, err := tx.PrepareContext(ctx, `
			SELECT (SELECT answer IS NULL FROM scoring_prompts WHERE job_id = ? AND seq = ?),
			       EXISTS (SELECT 1 FROM scoring_batch_prompts bp JOIN scoring_batches b ON b.id = bp.batch
			               WHERE b.job_id = ? AND b.state <> 'collected' AND bp.seq = ? AND b.id <> ?)`)
		if err != nil {
			return fmt.Errorf("open batch: %w", err)
		}
		defer check.Close()
		ins, err := tx.PrepareContext(ctx, `INSERT INTO scoring_batch_prompts (batch, seq) VALUES (?, ?)`)
		if err != nil {
			return fmt.Errorf("open batch: %w", err)
		}
		defer ins.Close()
		for _, seq := range seqs {
			var pending sql.NullBool
			var inOpen bool
			if err := check.QueryRowContext(ctx, jobID, seq, jobID, seq, id).Scan(&pending, &inOpen); err != nil {
				return fmt.Errorf("open batch: prompt %d: %w", seq, err)
			}
			if !pending.Valid {
				return domain.Errorf(domain.ENOTFOUND, "job %d has no prompt %d", jobID, seq)
			}
			if !pending.Bool || inOpen {
				return domain.Errorf(domain.ECONFLICT, "prompt %d of job %d is answered or in an open batch already", seq, jobID)
			}
			if _, err := ins.ExecContext(ctx, id, seq); err != nil {
				return fmt.Errorf("open batch: prompt %d: %w", seq, err)
			}
		}
		return nil
	})
	return id, err
}

// BatchUploaded records the id of a batch's uploaded input file.
func (db *DB) BatchUploaded(ctx context.Context, id int64, fileID string) error {
	return db.updateBatch(ctx, `UPDATE scoring_batches SET state = 'uploaded', input_file_id = ?, updated_at = ? WHERE id = ? AND state = 'preparing'`, fileID, db.now(), id)
}

// BatchSubmitted records the engine's id and status of a created batch.
func (db *DB) BatchSubmitted(ctx context.Context, id int64, batchID, status string) error {
	return db.updateBatch(ctx, `UPDATE scoring_batches SET state = 'submitted', batch_id = ?, remote_status = ?, updated_at = ? WHERE id = ? AND state IN ('preparing', 'uploaded')`, batchID, status, db.now(), id)
}

// BatchPolled records the engine's latest status of a batch and a
// message (its progress, or why it failed).
func (db *DB) BatchPolled(ctx context.Context, id int64, status, msg string) error {
	return db.updateBatch(ctx, `UPDATE scoring_batches SET remote_status = ?, message = ?, updated_at = ? WHERE id = ? AND state = 'submitted'`, status, clipRunes(msg, maxJobError), db.now(), id)
}

func (db *DB) updateBatch(ctx context.Context, q string, args ...any) error {
	res, err := db.exec(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("update batch: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ECONFLICT, "batch %v changed meanwhile (collected by another process?)", args[len(args)-1])
	}
	return nil
}

// CollectBatch stores a batch's results and marks it collected, in one
// transaction: results (answers or errors, by prompt seq; an answered
// prompt is never overwritten), and for each prompt of the batch with no
// result, missing as its error. Collecting a collected batch changes
// nothing.
func (db *DB) CollectBatch(ctx context.Context, id int64, status, msg string, results []domain.JobResult, missing string) error {
	now := db.now()
	return db.tx(ctx, func(tx *sql.Tx) error {
		var jobID int64
		var state string
		err := tx.QueryRowContext(ctx, `SELECT job_id, state FROM scoring_batches WHERE id = ?`, id).Scan(&jobID, &state)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "batch %d not found", id)
		}
		if err != nil {
			return fmt.Errorf("collect batch: %w", err)
		}
		if state == domain.BatchCollected {
			return nil
		}
		if err := saveJobResults(ctx, tx, jobID, results, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `
			UPDATE scoring_prompts SET error = ?, attempts = attempts + 1
			WHERE job_id = ? AND answer IS NULL AND error = ''
			  AND seq IN (SELECT seq FROM scoring_batch_prompts WHERE batch = ?)`, clipRunes(domain.CleanOutside(missing), maxJobError), jobID, id); err != nil {
			return fmt.Errorf("collect batch: %w", err)
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE scoring_batches SET state = 'collected', remote_status = ?, message = ?, updated_at = ?,
				answered = (SELECT COUNT(*) FROM scoring_prompts p JOIN scoring_batch_prompts bp ON bp.seq = p.seq
				            WHERE bp.batch = ? AND p.job_id = ? AND p.answer IS NOT NULL),
				failed = (SELECT COUNT(*) FROM scoring_prompts p JOIN scoring_batch_prompts bp ON bp.seq = p.seq
				          WHERE bp.batch = ? AND p.job_id = ? AND p.answer IS NULL)
			WHERE id = ?`, status, clipRunes(domain.CleanOutside(msg), maxJobError), now, id, jobID, id, jobID, id)
		if err != nil {
			return fmt.Errorf("collect batch: %w", err)
		}
		return nil
	})
}

// JobBatches lists a job's batches, oldest first.
func (db *DB) JobBatches(ctx context.Context, jobID int64) ([]domain.JobBatch, error) {
	return queryRows(ctx, db, "job batches", `SELECT `+batchColumns+` FROM scoring_batches WHERE job_id = ? ORDER BY id`,
		[]any{jobID}, func(rows *sql.Rows, b *domain.JobBatch) error {
			v, err := scanBatch(rows)
			*b = v
			return err
		})
}

// BatchPrompts returns the prompts of a batch, in order.
func (db *DB) BatchPrompts(ctx context.Context, id int64) ([]domain.JobPrompt, error) {
	return queryRows(ctx, db, "batch prompts", `
		SELECT p.seq, p.key, p.item_key, p.condition, p.option_order, p.text
		FROM scoring_batch_prompts bp JOIN scoring_batches b ON b.id = bp.batch
		JOIN scoring_prompts p ON p.job_id = b.job_id AND p.seq = bp.seq
		WHERE bp.batch = ? ORDER BY p.seq`, []any{id}, func(rows *sql.Rows, p *domain.JobPrompt) error {
		return rows.Scan(&p.Seq, &p.Key, &p.ItemKey, &p.Condition, &p.Order, &p.Text)
	})
}

// UnbatchedPrompts is PendingPrompts without the prompts waiting in an
// open batch: what a new batch (or a live run beside open batches) asks.
func (db *DB) UnbatchedPrompts(ctx context.Context, jobID int64, afterSeq, limit int) ([]domain.JobPrompt, error) {
	return queryRows(ctx, db, "unbatched prompts", `
		SELECT p.seq, p.key, p.item_key, p.condition, p.option_order, p.text
		FROM scoring_prompts p
		WHERE p.job_id = ? AND p.seq > ? AND p.answer IS NULL
		  AND NOT EXISTS (SELECT 1 FROM scoring_batches b JOIN scoring_batch_prompts bp ON bp.batch = b.id
		                  WHERE b.job_id = p.job_id AND b.state <> 'collected' AND bp.seq = p.seq)
		ORDER BY p.seq LIMIT ?`, []any{jobID, afterSeq, limit}, func(rows *sql.Rows, p *domain.JobPrompt) error {
		return rows.Scan(&p.Seq, &p.Key, &p.ItemKey, &p.Condition, &p.Order, &p.Text)
	})
}

// JobPromptsByKey returns every prompt of a job by key, without its text
// (a large job holds a hundred megabytes of them), its Answer non-nil when
// it has one: what an imported result file is checked against.
func (db *DB) JobPromptsByKey(ctx context.Context, jobID int64) (map[string]domain.JobPromptRow, error) {
	rows, err := queryRows(ctx, db, "job prompts by key", `
		SELECT seq, key, item_key, condition, option_order, answer IS NOT NULL
		FROM scoring_prompts WHERE job_id = ? ORDER BY seq`, []any{jobID}, func(rows *sql.Rows, p *domain.JobPromptRow) error {
		var answered bool
		err := rows.Scan(&p.Seq, &p.Key, &p.ItemKey, &p.Condition, &p.Order, &answered)
		if answered {
			p.Answer = []byte("{}")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]domain.JobPromptRow, len(rows))
	for _, r := range rows {
		out[r.Key] = r
	}
	return out, nil
}
