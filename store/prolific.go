package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"strings"
	"time"
)

// ProlificLink returns the study's link; domain.ENOTFOUND when it has none.
func (db *DB) ProlificLink(ctx context.Context, studyID int64) (*domain.ProlificLink, error) {
	var l domain.ProlificLink
	var synced, hook string
	err := db.read.QueryRowContext(ctx, `SELECT study_id, prolific_study_id, synced_at, sync_error, prolific_status, hook_at FROM prolific_links WHERE study_id = ?`, studyID).
		Scan(&l.StudyID, &l.ProlificStudyID, &synced, &l.SyncError, &l.ProlificStatus, &hook)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "the study is not linked to a Prolific study")
	}
	if err != nil {
		return nil, fmt.Errorf("prolific link: %w", err)
	}
	l.SyncedAt, l.HookAt = parseTime(synced), parseTime(hook)
	return &l, nil
}

// ProlificLinks lists every linked study.
func (db *DB) ProlificLinks(ctx context.Context) ([]domain.ProlificLink, error) {
	return queryRows(ctx, db, "prolific links", `SELECT study_id, prolific_study_id, synced_at, sync_error, prolific_status, hook_at FROM prolific_links ORDER BY study_id`, nil,
		func(rows *sql.Rows, l *domain.ProlificLink) error {
			var synced, hook string
			err := rows.Scan(&l.StudyID, &l.ProlificStudyID, &synced, &l.SyncError, &l.ProlificStatus, &hook)
			l.SyncedAt, l.HookAt = parseTime(synced), parseTime(hook)
			return err
		})
}

// LinkProlific links a crowd study to a Prolific study id (24 hexadecimal
// characters); relinking to another id forgets the synced submissions.
func (db *DB) LinkProlific(ctx context.Context, studyID int64, prolificStudyID string) error {
	prolificStudyID = strings.ToLower(strings.TrimSpace(prolificStudyID))
	if !isHexID(prolificStudyID) {
		return domain.Errorf(domain.EINVALID, "the Prolific study id must be 24 hexadecimal characters (it is in the study's address on Prolific)")
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		var kind string
		if err := tx.QueryRowContext(ctx, `SELECT kind FROM studies WHERE id = ?`, studyID).Scan(&kind); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return domain.Errorf(domain.ENOTFOUND, "no study %d", studyID)
			}
			return err
		}
		if !domain.IsCrowdKind(kind) {
			return domain.Errorf(domain.EINVALID, "only a crowd or judgement study can be linked to Prolific")
		}
		var old string
		err := tx.QueryRowContext(ctx, `SELECT prolific_study_id FROM prolific_links WHERE study_id = ?`, studyID).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if old != "" && old != prolificStudyID {
			if _, err := tx.ExecContext(ctx, `DELETE FROM prolific_submissions WHERE study_id = ?`, studyID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO prolific_links (study_id, prolific_study_id) VALUES (?, ?)
			ON CONFLICT (study_id) DO UPDATE SET prolific_study_id = excluded.prolific_study_id, synced_at = '', sync_error = ''`, studyID, prolificStudyID)
		if err != nil {
			return fmt.Errorf("link prolific: %w", err)
		}
		return nil
	})
}

func isHexID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// ProlificSubmission is one submission of the linked Prolific study.
type ProlificSubmission struct {
	SubmissionID string
	PID          string // lower-cased
	Status       string
	StartedAt    string
	CompletedAt  string
	EnteredCode  string
}

// SyncResult is what a sync changed.
type SyncResult struct {
	Submissions int
	Freed       []string // PIDs whose batch slot was freed (returned or timed out)
}

// SaveProlificSync stores the submissions read from Prolific, replacing the
// earlier sync, and frees the batch slot of every active participant whose
// submission has left the study for good (freed: returned, timed out): the
// session ends as moved on, its answers kept. All in one transaction.
func (db *DB) SaveProlificSync(ctx context.Context, studyID int64, subs []ProlificSubmission, frees func(status string) bool) (SyncResult, error) {
	var res SyncResult
	now := db.now()
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM prolific_submissions WHERE study_id = ?`, studyID); err != nil {
			return err
		}
		for _, s := range subs {
			freed, err := db.saveSubmission(ctx, tx, studyID, s, frees, now)
			if err != nil {
				return err
			}
			if freed {
				res.Freed = append(res.Freed, strings.ToLower(s.PID))
			}
		}
		res.Submissions = len(subs)
		_, err := tx.ExecContext(ctx, `UPDATE prolific_links SET synced_at = ?, sync_error = '' WHERE study_id = ?`, now, studyID)
		return err
	})
	if err != nil {
		return SyncResult{}, err
	}
	return res, nil
}

// saveSubmission stores one submission as Prolific gave it and, when its
// status has left the study for good, frees the participant's batch slot;
// it reports whether a slot was freed.
func (db *DB) saveSubmission(ctx context.Context, tx *sql.Tx, studyID int64, s ProlificSubmission, frees func(string) bool, now string) (bool, error) {
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO prolific_submissions
		(study_id, submission_id, participant_id, status, started_at, completed_at, entered_code, synced_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, studyID, s.SubmissionID, strings.ToLower(s.PID), s.Status,
		s.StartedAt, s.CompletedAt, s.EnteredCode, now); err != nil {
		return false, fmt.Errorf("save prolific submission: %w", err)
	}
	if !frees(s.Status) {
		return false, nil
	}
	freed, err := moveOnByPID(ctx, tx, studyID, s.PID)
	if err != nil {
		return false, err
	}
	for _, batchID := range freed {
		if err := db.freeSlot(ctx, tx, batchID); err != nil {
			return false, err
		}
	}
	return len(freed) > 0, nil
}

// moveOnByPID ends the active session of a PROLIFIC_PID as moved on and
// returns the batches whose place it held.
func moveOnByPID(ctx context.Context, tx *sql.Tx, studyID int64, pid string) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `UPDATE crowd_participants SET status = ?
		WHERE study_id = ? AND lower(prolific_pid) = ? AND status = ? RETURNING batch_id`,
		CrowdMovedOn, studyID, strings.ToLower(pid), CrowdActive)
	if err != nil {
		return nil, fmt.Errorf("free slot: %w", err)
	}
	defer rows.Close()
	var batches []int64
	for rows.Next() {
		var b int64
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("free slot: %w", err)
		}
		batches = append(batches, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("free slot: %w", err)
	}
	return batches, nil
}

// SetProlificSyncError records why the last sync failed.
func (db *DB) SetProlificSyncError(ctx context.Context, studyID int64, msg string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE prolific_links SET sync_error = ? WHERE study_id = ?`, msg, studyID)
		return err
	})
}

// ProlificSubmissions lists the synced submissions of a study by PID.
func (db *DB) ProlificSubmissions(ctx context.Context, studyID int64) ([]ProlificSubmission, error) {
	return queryRows(ctx, db, "prolific submissions", `
		SELECT submission_id, participant_id, status, started_at, completed_at, entered_code
		FROM prolific_submissions WHERE study_id = ? ORDER BY started_at, submission_id`, []any{studyID},
		func(rows *sql.Rows, s *ProlificSubmission) error {
			return rows.Scan(&s.SubmissionID, &s.PID, &s.Status, &s.StartedAt, &s.CompletedAt, &s.EnteredCode)
		})
}

// ErrCallRecorded: a call with this key is recorded already, so it is not
// recorded (nor sent) again; the error carries the earlier call.
type ErrCallRecorded struct{ Call domain.ProlificCall }

func (e *ErrCallRecorded) Error() string {
	return fmt.Sprintf("%s %s was already recorded on %s (%s)", e.Call.Kind, e.Call.Target, e.Call.CreatedAt.Format(time.RFC3339), e.Call.State)
}

// RecordProlificCall records a call before it is sent. When a call with
// the same key exists it returns *ErrCallRecorded and records nothing,
// except that a call that failed (Prolific refused it, so nothing was done)
// may be recorded again: it is reset to pending and returned.
func (db *DB) RecordProlificCall(ctx context.Context, c *domain.ProlificCall) error {
	if c.Actor == "" {
		return domain.Errorf(domain.EINVALID, "a Prolific call needs the researcher who makes it")
	}
	now := db.now()
	return db.tx(ctx, func(tx *sql.Tx) error {
		old, err := scanCall(tx.QueryRowContext(ctx, `SELECT `+callColumns+` FROM prolific_calls WHERE idem_key = ?`, c.Key))
		switch {
		case err == nil && old.State == domain.CallFailed:
			if _, err := tx.ExecContext(ctx, `UPDATE prolific_calls SET state = ?, request = ?, response = '', actor = ?, updated_at = ? WHERE id = ?`,
				domain.CallPending, c.Request, c.Actor, now, old.ID); err != nil {
				return err
			}
			c.ID, c.State, c.CreatedAt = old.ID, domain.CallPending, old.CreatedAt
			return nil
		case err == nil:
			return &ErrCallRecorded{Call: *old}
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("record prolific call: %w", err)
		}
		r, err := tx.ExecContext(ctx, `INSERT INTO prolific_calls (study_id, kind, idem_key, target, request, state, actor, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.StudyID, c.Kind, c.Key, c.Target, c.Request, domain.CallPending, c.Actor, now, now)
		if err != nil {
			return fmt.Errorf("record prolific call: %w", err)
		}
		c.ID, _ = r.LastInsertId()
		c.State = domain.CallPending
		c.CreatedAt = parseTime(now)
		return nil
	})
}

// FinishProlificCall records Prolific's answer to a call: done or failed,
// with the answer (never the token).
func (db *DB) FinishProlificCall(ctx context.Context, id int64, state, response string) error {
	if state != domain.CallDone && state != domain.CallFailed {
		return domain.Errorf(domain.EINVALID, "call state %q", state)
	}
	if r := []rune(response); len(r) > 2000 {
		response = string(r[:2000])
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE prolific_calls SET state = ?, response = ?, updated_at = ? WHERE id = ?`, state, response, db.now(), id)
		return err
	})
}

const callColumns = `id, study_id, kind, idem_key, target, request, state, response, actor, created_at, updated_at`

func scanCall(row interface{ Scan(...any) error }) (*domain.ProlificCall, error) {
	var c domain.ProlificCall
	var created, updated string
	if err := row.Scan(&c.ID, &c.StudyID, &c.Kind, &c.Key, &c.Target, &c.Request, &c.State, &c.Response, &c.Actor, &created, &updated); err != nil {
		return nil, err
	}
	c.CreatedAt, c.UpdatedAt = parseTime(created), parseTime(updated)
	return &c, nil
}

// ProlificCalls lists a study's recorded calls, newest first.
func (db *DB) ProlificCalls(ctx context.Context, studyID int64) ([]domain.ProlificCall, error) {
	return queryRows(ctx, db, "prolific calls", `SELECT `+callColumns+` FROM prolific_calls WHERE study_id = ? ORDER BY id DESC`, []any{studyID},
		func(rows *sql.Rows, c *domain.ProlificCall) error {
			v, err := scanCall(rows)
			if err == nil {
				*c = *v
			}
			return err
		})
}

// ProlificCallByKey returns the call recorded under key; domain.ENOTFOUND if none.
func (db *DB) ProlificCallByKey(ctx context.Context, key string) (*domain.ProlificCall, error) {
	c, err := scanCall(db.read.QueryRowContext(ctx, `SELECT `+callColumns+` FROM prolific_calls WHERE idem_key = ?`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "no call %s", key)
	}
	return c, err
}

// ProlificBonus is one participant's bonus in a batch.
type ProlificBonus struct {
	PID         string
	AmountCents int
}

// SaveProlificBonuses records the lines of a bonus batch under its setup
// call.
func (db *DB) SaveProlificBonuses(ctx context.Context, callID int64, lines []ProlificBonus) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		for _, l := range lines {
			if _, err := tx.ExecContext(ctx, `INSERT INTO prolific_bonuses (call_id, participant_id, amount_cents) VALUES (?, ?, ?)`,
				callID, strings.ToLower(l.PID), l.AmountCents); err != nil {
				return fmt.Errorf("save bonuses: %w", err)
			}
		}
		return nil
	})
}

// BonusedBefore returns, per PID, the bonus already set up for a study's
// participants in batches that were not refused (in cents).
func (db *DB) BonusedBefore(ctx context.Context, studyID int64) (map[string]int, error) {
	rows, err := queryRows(ctx, db, "bonuses", `
		SELECT b.participant_id, SUM(b.amount_cents) FROM prolific_bonuses b
		JOIN prolific_calls c ON c.id = b.call_id
		WHERE c.study_id = ? AND c.state != 'failed' GROUP BY b.participant_id`, []any{studyID},
		func(rows *sql.Rows, b *ProlificBonus) error { return rows.Scan(&b.PID, &b.AmountCents) })
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(rows))
	for _, b := range rows {
		out[b.PID] = b.AmountCents
	}
	return out, nil
}
