package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"pragmalab/domain"
	"time"
	"unicode/utf8"
)

// Limits on job fields.
const (
	maxJobConfig = domain.MaxJobConfig
	maxJobError  = 2000
	// MaxJobPrompts bounds one job (31,822 passages × 1 fits; so do 271
	// items × 12).
	MaxJobPrompts = 200_000
)

// CreateJob stores a queued job with all its prompts in one transaction.
func (db *DB) CreateJob(ctx context.Context, j *domain.Job, prompts []domain.JobPrompt) error {
	if err := j.Validate(); err != nil {
		return err
	}
	if len(prompts) == 0 {
		return domain.Errorf(domain.EINVALID, "the job has no prompts (does the study have items of the kind the task needs?)")
	}
	if len(prompts) > MaxJobPrompts {
		return domain.Errorf(domain.EINVALID, "the job has %d prompts, more than %d", len(prompts), MaxJobPrompts)
	}
	return db.tx(ctx, func(tx *sql.Tx) error { return db.createJob(ctx, tx, j, prompts) })
}

// createJob is CreateJob inside the caller's transaction.
func (db *DB) createJob(ctx context.Context, tx *sql.Tx, j *domain.Job, prompts []domain.JobPrompt) error {
	j.Status, j.CreatedAt = domain.JobQueued, db.Now()
	var compare any
	if j.CompareStudyID != 0 {
		compare = j.CompareStudyID
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM studies WHERE id = ?`, j.StudyID).Scan(&n); err != nil {
		return fmt.Errorf("create job: %w", err)
	}
	if n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", j.StudyID)
	}
	res, err := tx.ExecContext(ctx, `
		INSERT INTO scoring_jobs (study_id, task, scorer, config, strategy, seed, compare_study_id, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.StudyID, j.Task, j.Scorer, string(j.Config), j.Strategy, j.Seed, compare, j.Status, j.CreatedAt.Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("create job: %w", err)
	}
	j.ID, _ = res.LastInsertId()
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO scoring_prompts (job_id, seq, key, item_key, condition, option_order, text)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("create job: %w", err)
	}
	defer stmt.Close()
	for i := range prompts {
		p := &prompts[i]
		p.Seq = i + 1
		if _, err := stmt.ExecContext(ctx, j.ID, p.Seq, p.Key, p.ItemKey, p.Condition, p.Order, p.Text); err != nil {
			return fmt.Errorf("create job: prompt %s: %w", p.Key, err)
		}
	}
	return nil
}

const jobColumns = `id, study_id, task, scorer, config, strategy, seed, COALESCE(compare_study_id, 0), status, error, created_at, started_at, finished_at`

func scanJob(sc interface{ Scan(...any) error }) (*domain.Job, error) {
	var j domain.Job
	var cfg, created, started, finished string
	if err := sc.Scan(&j.ID, &j.StudyID, &j.Task, &j.Scorer, &cfg, &j.Strategy, &j.Seed, &j.CompareStudyID,
		&j.Status, &j.Error, &created, &started, &finished); err != nil {
		return nil, err
	}
	j.Config = json.RawMessage(cfg)
	j.CreatedAt, j.StartedAt, j.FinishedAt = parseTime(created), parseTime(started), parseTime(finished)
	return &j, nil
}

// Job returns one job.
func (db *DB) Job(ctx context.Context, id int64) (*domain.Job, error) {
	j, err := scanJob(db.read.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM scoring_jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "job %d not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	return j, nil
}

// StudyJobs lists a study's jobs, newest first.
func (db *DB) StudyJobs(ctx context.Context, studyID int64) ([]*domain.Job, error) {
	return db.jobs(ctx, `SELECT `+jobColumns+` FROM scoring_jobs WHERE study_id = ? ORDER BY id DESC`, studyID)
}

// ActiveJobs lists the queued and running jobs, oldest first: what the
// runner has to do, also after a restart. A job waiting for an offline
// runner's output (engine "offline") is left out: nothing here runs it.
func (db *DB) ActiveJobs(ctx context.Context) ([]*domain.Job, error) {
	return db.jobs(ctx, `SELECT `+jobColumns+` FROM scoring_jobs WHERE status IN ('queued', 'running')
		AND COALESCE(json_extract(config, '$.engine'), '') <> 'offline' ORDER BY id`)
}

func (db *DB) jobs(ctx context.Context, q string, args ...any) ([]*domain.Job, error) {
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	defer rows.Close()
	var out []*domain.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// JobProgress counts a job's prompts, answered ones and failed ones.
func (db *DB) JobProgress(ctx context.Context, id int64) (domain.JobProgress, error) {
	var p domain.JobProgress
	err := db.read.QueryRowContext(ctx, `
		SELECT COUNT(*), COUNT(answer), COALESCE(SUM(answer IS NULL AND error <> ''), 0)
		FROM scoring_prompts WHERE job_id = ?`, id).Scan(&p.Total, &p.Answered, &p.Failed)
	if err != nil {
		return p, fmt.Errorf("job progress: %w", err)
	}
	return p, nil
}

// StudyJobProgress counts the prompts of every job of a study in one
// query, by job id: the job list's figures without a query per job.
func (db *DB) StudyJobProgress(ctx context.Context, studyID int64) (map[int64]domain.JobProgress, error) {
	rows, err := queryRows(ctx, db, "study job progress", `
		SELECT p.job_id, COUNT(*), COUNT(p.answer), COALESCE(SUM(p.answer IS NULL AND p.error <> ''), 0)
		FROM scoring_prompts p JOIN scoring_jobs j ON j.id = p.job_id
		WHERE j.study_id = ? GROUP BY p.job_id`, []any{studyID}, func(rows *sql.Rows, v *struct {
		id int64
		p  domain.JobProgress
	}) error {
		return rows.Scan(&v.id, &v.p.Total, &v.p.Answered, &v.p.Failed)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]domain.JobProgress, len(rows))
	for _, r := range rows {
		out[r.id] = r.p
	}
	return out, nil
}

// PendingPrompts returns up to limit of a job's prompts that have no answer
// yet and come after seq afterSeq, in order (a runner pages through a large
// job instead of holding every prompt text). Prompts that failed before are
// included, so a resumed job tries them again.
func (db *DB) PendingPrompts(ctx context.Context, jobID int64, afterSeq, limit int) ([]domain.JobPrompt, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT seq, key, item_key, condition, option_order, text
		FROM scoring_prompts WHERE job_id = ? AND seq > ? AND answer IS NULL ORDER BY seq LIMIT ?`, jobID, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("pending prompts: %w", err)
	}
	defer rows.Close()
	var out []domain.JobPrompt
	for rows.Next() {
		var p domain.JobPrompt
		if err := rows.Scan(&p.Seq, &p.Key, &p.ItemKey, &p.Condition, &p.Order, &p.Text); err != nil {
			return nil, fmt.Errorf("pending prompts: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// JobPrompts returns every prompt of a job with its answer or error.
func (db *DB) JobPrompts(ctx context.Context, jobID int64) ([]domain.JobPromptRow, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT seq, key, item_key, condition, option_order, text, answer, error, attempts, answered_at
		FROM scoring_prompts WHERE job_id = ? ORDER BY seq`, jobID)
	if err != nil {
		return nil, fmt.Errorf("job prompts: %w", err)
	}
	defer rows.Close()
	var out []domain.JobPromptRow
	for rows.Next() {
		var p domain.JobPromptRow
		var answer sql.NullString
		var at string
		if err := rows.Scan(&p.Seq, &p.Key, &p.ItemKey, &p.Condition, &p.Order, &p.Text, &answer, &p.Error, &p.Attempts, &at); err != nil {
			return nil, fmt.Errorf("job prompts: %w", err)
		}
		if answer.Valid {
			p.Answer = json.RawMessage(answer.String)
		}
		p.AnsweredAt = parseTime(at)
		out = append(out, p)
	}
	return out, rows.Err()
}

// JobErrors returns up to limit unanswered prompts whose last attempt
// failed, with their errors.
func (db *DB) JobErrors(ctx context.Context, jobID int64, limit int) ([]domain.JobPromptRow, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT seq, key, item_key, condition, option_order, text, error, attempts
		FROM scoring_prompts WHERE job_id = ? AND answer IS NULL AND error <> '' ORDER BY seq LIMIT ?`, jobID, limit)
	if err != nil {
		return nil, fmt.Errorf("job errors: %w", err)
	}
	defer rows.Close()
	var out []domain.JobPromptRow
	for rows.Next() {
		var p domain.JobPromptRow
		if err := rows.Scan(&p.Seq, &p.Key, &p.ItemKey, &p.Condition, &p.Order, &p.Text, &p.Error, &p.Attempts); err != nil {
			return nil, fmt.Errorf("job errors: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SaveJobResults stores a batch of answers and errors in one transaction.
// An answered prompt is never overwritten, so a result arriving twice (a
// retry racing a restart) cannot change what was recorded first.
func (db *DB) SaveJobResults(ctx context.Context, jobID int64, rs []domain.JobResult) error {
	if len(rs) == 0 {
		return nil
	}
	now := db.now()
	return db.txKeeping(ctx, func(tx *sql.Tx) error { return saveJobResults(ctx, tx, jobID, rs, now) })
}

// saveJobResults is SaveJobResults inside the caller's transaction.
func saveJobResults(ctx context.Context, tx *sql.Tx, jobID int64, rs []domain.JobResult, now string) error {
	ans, err := tx.PrepareContext(ctx, `
		UPDATE scoring_prompts SET answer = ?1, error = '', attempts = attempts + 1, answered_at = ?2,
			distribution = json_extract(?1, '$.dist')
		WHERE job_id = ?3 AND seq = ?4 AND answer IS NULL`)
	if err != nil {
		return fmt.Errorf("save job results: %w", err)
	}
	defer ans.Close()
	fail, err := tx.PrepareContext(ctx, `
		UPDATE scoring_prompts SET error = ?, attempts = attempts + 1
		WHERE job_id = ? AND seq = ? AND answer IS NULL`)
	if err != nil {
		return fmt.Errorf("save job results: %w", err)
	}
	defer fail.Close()
	for _, r := range rs {
		if r.Answer != nil {
			_, err = ans.ExecContext(ctx, string(domain.CleanOutsideJSON(r.Answer)), now, jobID, r.Seq)
		} else {
			_, err = fail.ExecContext(ctx, clipRunes(domain.CleanOutside(r.Error), maxJobError), jobID, r.Seq)
		}
		if err != nil {
			return fmt.Errorf("save job results: prompt %d: %w", r.Seq, err)
		}
	}
	return nil
}

// SetJobStatus moves a job to running or a final status (with a job-level
// error message, or ""); RequeueJob puts one back in the queue.
// Running stamps started_at the first time; the final statuses stamp
// finished_at. A cancelled job stays cancelled.
func (db *DB) SetJobStatus(ctx context.Context, id int64, status, msg string) error {
	now := db.now()
	var q string
	switch status {
	case domain.JobRunning:
		q = `UPDATE scoring_jobs SET status = ?, error = ?, started_at = CASE started_at WHEN '' THEN ? ELSE started_at END
			WHERE id = ? AND status <> 'cancelled'`
	case domain.JobDone, domain.JobPartial, domain.JobFailed, domain.JobCancelled:
		q = `UPDATE scoring_jobs SET status = ?, error = ?, finished_at = ? WHERE id = ? AND status <> 'cancelled'`
	default:
		return domain.Errorf(domain.EINVALID, "unknown job status %q", status)
	}
	res, err := db.execKeeping(ctx, q, status, clipRunes(domain.CleanOutside(msg), maxJobError), now, id)
	if err != nil {
		return fmt.Errorf("set job status: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := db.Job(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// CancelJob cancels a queued or running job.
func (db *DB) CancelJob(ctx context.Context, id int64) error {
	res, err := db.exec(ctx, `
		UPDATE scoring_jobs SET status = 'cancelled', finished_at = ? WHERE id = ? AND status IN ('queued', 'running')`, db.now(), id)
	if err != nil {
		return fmt.Errorf("cancel job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		j, err := db.Job(ctx, id)
		if err != nil {
			return err
		}
		return domain.Errorf(domain.ECONFLICT, "job %d is %s; only a queued or running job can be cancelled", id, j.Status)
	}
	return nil
}

// RequeueJob puts a finished, partial, failed or cancelled job back in the
// queue to ask its unanswered prompts again.
func (db *DB) RequeueJob(ctx context.Context, id int64) error {
	res, err := db.exec(ctx, `
		UPDATE scoring_jobs SET status = 'queued', error = '', finished_at = '' WHERE id = ? AND status IN ('done', 'partial', 'failed', 'cancelled')`, id)
	if err != nil {
		return fmt.Errorf("requeue job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		j, err := db.Job(ctx, id)
		if err != nil {
			return err
		}
		return domain.Errorf(domain.ECONFLICT, "job %d is %s already", id, j.Status)
	}
	return nil
}

// ScoringTemplates returns a study's prompt templates as JSON, and false
// when the study uses the defaults.
func (db *DB) ScoringTemplates(ctx context.Context, studyID int64) (json.RawMessage, bool, error) {
	var s string
	err := db.read.QueryRowContext(ctx, `SELECT templates FROM scoring_templates WHERE study_id = ?`, studyID).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("scoring templates: %w", err)
	}
	return json.RawMessage(s), true, nil
}

// SaveScoringTemplates stores a study's prompt templates (JSON, validated
// by the caller); nil restores the defaults.
func (db *DB) SaveScoringTemplates(ctx context.Context, studyID int64, t json.RawMessage) error {
	if t == nil {
		_, err := db.exec(ctx, `DELETE FROM scoring_templates WHERE study_id = ?`, studyID)
		if err != nil {
			return fmt.Errorf("scoring templates: %w", err)
		}
		return nil
	}
	if len(t) > 256<<10 || !json.Valid(t) {
		return domain.Errorf(domain.EINVALID, "templates must be JSON of at most 256 KiB")
	}
	_, err := db.exec(ctx, `
		INSERT INTO scoring_templates (study_id, templates, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (study_id) DO UPDATE SET templates = excluded.templates, updated_at = excluded.updated_at`,
		studyID, string(t), db.now())
	if err != nil {
		return fmt.Errorf("scoring templates: %w", err)
	}
	return nil
}

// clipRunes cuts s to at most n characters.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// ClaimJob gives owner the job's lease until the given time if nobody else
// holds an unexpired one; it reports whether owner now holds it.
func (db *DB) ClaimJob(ctx context.Context, id int64, owner string, until time.Time) (bool, error) {
	now := db.Now().UnixMilli()
	res, err := db.exec(ctx, `
		UPDATE scoring_jobs SET lease_owner = ?, lease_until = ?
		WHERE id = ? AND status IN ('queued', 'running') AND (lease_owner = ? OR lease_until < ?)`,
		owner, until.UnixMilli(), id, owner, now)
	if err != nil {
		return false, fmt.Errorf("claim job: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ReleaseJob gives up owner's lease, so another runner may resume the job
// at once (a graceful stop).
func (db *DB) ReleaseJob(ctx context.Context, id int64, owner string) error {
	_, err := db.exec(ctx, `
		UPDATE scoring_jobs SET lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?`, id, owner)
	if err != nil {
		return fmt.Errorf("release job: %w", err)
	}
	return nil
}

// JobAnswer is one prompt's key with its answer (nil until answered) and
// last error, without the prompt's text.
type JobAnswer struct {
	Key    string
	Answer json.RawMessage
	Error  string
}

// JobAnswers returns every prompt's answer or error, in order, leaving out
// the prompt texts (a few-shot job over the full IMPAQTS-PID holds over a
// hundred megabytes of them).
func (db *DB) JobAnswers(ctx context.Context, jobID int64) ([]JobAnswer, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT key, answer, error FROM scoring_prompts WHERE job_id = ? ORDER BY seq`, jobID)
	if err != nil {
		return nil, fmt.Errorf("job answers: %w", err)
	}
	defer rows.Close()
	var out []JobAnswer
	for rows.Next() {
		var a JobAnswer
		var answer sql.NullString
		if err := rows.Scan(&a.Key, &answer, &a.Error); err != nil {
			return nil, fmt.Errorf("job answers: %w", err)
		}
		if answer.Valid {
			a.Answer = json.RawMessage(answer.String)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// JobDistributions returns the distribution column of a job's answered
// human-task prompts by prompt key (migration 0290): each a JSON array
// over the task's options in their canonical order.
func (db *DB) JobDistributions(ctx context.Context, jobID int64) (map[string]string, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT key, distribution FROM scoring_prompts WHERE job_id = ? AND distribution IS NOT NULL ORDER BY seq`, jobID)
	if err != nil {
		return nil, fmt.Errorf("job distributions: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, d string
		if err := rows.Scan(&k, &d); err != nil {
			return nil, fmt.Errorf("job distributions: %w", err)
		}
		out[k] = d
	}
	return out, rows.Err()
}
