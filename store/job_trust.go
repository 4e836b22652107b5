package store

import (
	"context"
	"encoding/json"
	"fmt"
	"pragmalab/domain"
	"time"
)

// FinalStatus is the status a job ends with once the runner has asked what
// it could: done when every prompt has an answer, failed when none has,
// partial otherwise (some failed, or were not asked).
func FinalStatus(p domain.JobProgress) string {
	switch {
	case p.Total > 0 && p.Answered == p.Total:
		return domain.JobDone
	case p.Answered == 0:
		return domain.JobFailed
	}
	return domain.JobPartial
}

// JobLease returns who holds a job's lease and until when (zero when
// nobody does).
func (db *DB) JobLease(ctx context.Context, id int64) (owner string, until time.Time, err error) {
	var ms int64
	err = db.read.QueryRowContext(ctx, `SELECT lease_owner, lease_until FROM scoring_jobs WHERE id = ?`, id).Scan(&owner, &ms)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("job lease: %w", err)
	}
	if ms > 0 {
		until = time.UnixMilli(ms).UTC()
	}
	return owner, until, nil
}

// UpdateJobConfig replaces the endpoint configuration of a job nobody is
// running (no unexpired lease): resuming a job against other endpoints, or
// with another concurrency or time-out. The caller validates cfg.
func (db *DB) UpdateJobConfig(ctx context.Context, id int64, cfg json.RawMessage) error {
	if len(cfg) > maxJobConfig || !json.Valid(cfg) {
		return domain.Errorf(domain.EINVALID, "the scorer configuration must be JSON of at most %d bytes", maxJobConfig)
	}
	res, err := db.exec(ctx, `
		UPDATE scoring_jobs SET config = ? WHERE id = ? AND (lease_owner = '' OR lease_until < ?)`,
		string(cfg), id, db.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("update job config: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := db.Job(ctx, id); err != nil {
			return err
		}
		return domain.Errorf(domain.ECONFLICT, "job %d is being run by another pragmalab process; its configuration cannot change now", id)
	}
	return nil
}

// JobFailureReasons groups a job's failed prompts by their error, most
// frequent first, at most limit reasons.
func (db *DB) JobFailureReasons(ctx context.Context, jobID int64, limit int) ([]domain.FailureReason, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT error, COUNT(*), MIN(key) FROM scoring_prompts
		WHERE job_id = ? AND answer IS NULL AND error <> ''
		GROUP BY error ORDER BY COUNT(*) DESC, MIN(seq) LIMIT ?`, jobID, limit)
	if err != nil {
		return nil, fmt.Errorf("job failure reasons: %w", err)
	}
	defer rows.Close()
	var out []domain.FailureReason
	for rows.Next() {
		var f domain.FailureReason
		if err := rows.Scan(&f.Error, &f.Prompts, &f.First); err != nil {
			return nil, fmt.Errorf("job failure reasons: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// JobPromptsPage returns up to limit of a job's prompts from offset (in
// order), with their answers or errors, keeping those the filter names, and
// how many prompts the filter keeps in all.
func (db *DB) JobPromptsPage(ctx context.Context, jobID int64, filter string, offset, limit int) ([]domain.JobPromptRow, int, error) {
	where := map[string]string{
		domain.PromptsAll:      ``,
		domain.PromptsAnswered: ` AND answer IS NOT NULL`,
		domain.PromptsFailed:   ` AND answer IS NULL AND error <> ''`,
		domain.PromptsPending:  ` AND answer IS NULL AND error = ''`,
	}[filter]
	var total int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM scoring_prompts WHERE job_id = ?`+where, jobID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("job prompts: %w", err)
	}
	rows, err := db.read.QueryContext(ctx, `
		SELECT seq, key, item_key, condition, option_order, text, answer, error, attempts, answered_at
		FROM scoring_prompts WHERE job_id = ?`+where+` ORDER BY seq LIMIT ? OFFSET ?`, jobID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("job prompts: %w", err)
	}
	defer rows.Close()
	var out []domain.JobPromptRow
	for rows.Next() {
		var p domain.JobPromptRow
		var answer *string
		var at string
		if err := rows.Scan(&p.Seq, &p.Key, &p.ItemKey, &p.Condition, &p.Order, &p.Text, &answer, &p.Error, &p.Attempts, &at); err != nil {
			return nil, 0, fmt.Errorf("job prompts: %w", err)
		}
		if answer != nil {
			p.Answer = json.RawMessage(*answer)
		}
		p.AnsweredAt = parseTime(at)
		out = append(out, p)
	}
	return out, total, rows.Err()
}
