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

// ProlificEventSeen reports whether an event id was processed already.
func (db *DB) ProlificEventSeen(ctx context.Context, eventID string) (bool, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM prolific_events WHERE event_id = ?`, eventID).Scan(&n); err != nil {
		return false, fmt.Errorf("prolific event: %w", err)
	}
	return n > 0, nil
}

// ProlificLinkOf returns the link of a Prolific study id; domain.ENOTFOUND
// when no crowd study is linked to it.
func (db *DB) ProlificLinkOf(ctx context.Context, prolificStudyID string) (*domain.ProlificLink, error) {
	var id int64
	err := db.read.QueryRowContext(ctx, `SELECT study_id FROM prolific_links WHERE prolific_study_id = ?`,
		strings.ToLower(prolificStudyID)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "no study is linked to Prolific study %s", prolificStudyID)
	}
	if err != nil {
		return nil, fmt.Errorf("prolific link: %w", err)
	}
	return db.ProlificLink(ctx, id)
}

// ProlificEventChange is what a delivery changes once Prolific's own
// answer has been read back: the submission as Prolific now has it, or the
// study's status.
type ProlificEventChange struct {
	Submission  *ProlificSubmission
	StudyStatus string
}

// HookSeen is a signed webhook delivery as it is remembered: the digest
// of what its signature covers, and until when its signature is accepted;
// Now prunes the rows past theirs.
type HookSeen struct {
	Digest       string
	Expires, Now time.Time
}

// ProlificDeliverySeen reports whether a signed delivery with this digest
// was applied within its window (HookSeen).
func (db *DB) ProlificDeliverySeen(ctx context.Context, digest string) (bool, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM prolific_hook_deliveries WHERE digest = ?`, digest).Scan(&n); err != nil {
		return false, fmt.Errorf("prolific delivery: %w", err)
	}
	return n > 0, nil
}

// HookDeliveriesKept is how many signed deliveries are remembered.
func (db *DB) HookDeliveriesKept(ctx context.Context) (int, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM prolific_hook_deliveries`).Scan(&n); err != nil {
		return 0, fmt.Errorf("prolific deliveries: %w", err)
	}
	return n, nil
}

// ApplyProlificEvent records an event and the signed delivery that
// brought it, and applies its change in one transaction, so an event id,
// and a signed delivery however many ids it is replayed under, is applied
// once: a second delivery (even one racing the first, even after a
// restart) changes nothing and reports applied false. Deliveries past
// their window are forgotten. A change to a linked study also marks the
// delivery's time on the link.
func (db *DB) ApplyProlificEvent(ctx context.Context, ev domain.ProlificEvent, seen HookSeen, ch ProlificEventChange, frees func(string) bool) (applied, freed bool, err error) {
	now := db.now()
	err = db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM prolific_hook_deliveries WHERE expires_at < ?`, seen.Now.Unix()); err != nil {
			return fmt.Errorf("prune prolific deliveries: %w", err)
		}
		r, err := tx.ExecContext(ctx, `INSERT INTO prolific_hook_deliveries (digest, event_id, expires_at)
			VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING`, seen.Digest, ev.EventID, seen.Expires.Unix())
		if err != nil {
			return fmt.Errorf("record prolific delivery: %w", err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return nil
		}
		r, err = tx.ExecContext(ctx, `INSERT INTO prolific_events (event_id, event_type, resource_id, study_id, outcome, received_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`, ev.EventID, ev.EventType, ev.ResourceID, ev.StudyID, ev.Outcome, now)
		if err != nil {
			return fmt.Errorf("record prolific event: %w", err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return nil
		}
		applied = true
		if ev.StudyID == 0 {
			return nil
		}
		if ch.Submission != nil {
			if freed, err = db.saveSubmission(ctx, tx, ev.StudyID, *ch.Submission, frees, now); err != nil {
				return err
			}
		}
		if ch.StudyStatus != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE prolific_links SET prolific_status = ? WHERE study_id = ?`, ch.StudyStatus, ev.StudyID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE prolific_links SET hook_at = ? WHERE study_id = ?`, now, ev.StudyID)
		return err
	})
	return applied, freed, err
}

// LastProlificEvent returns the last delivery about a study, nil if none.
func (db *DB) LastProlificEvent(ctx context.Context, studyID int64) (*domain.ProlificEvent, error) {
	evs, err := queryRows(ctx, db, "prolific events", `SELECT event_id, event_type, resource_id, study_id, outcome, received_at
		FROM prolific_events WHERE study_id = ? ORDER BY received_at DESC, rowid DESC LIMIT 1`, []any{studyID},
		func(rows *sql.Rows, e *domain.ProlificEvent) error {
			var at string
			err := rows.Scan(&e.EventID, &e.EventType, &e.ResourceID, &e.StudyID, &e.Outcome, &at)
			e.ReceivedAt = parseTime(at)
			return err
		})
	if err != nil || len(evs) == 0 {
		return nil, err
	}
	return &evs[0], nil
}

// SetProlificStatus records the study's status on Prolific as a check or
// a transition read it.
func (db *DB) SetProlificStatus(ctx context.Context, studyID int64, status string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE prolific_links SET prolific_status = ? WHERE study_id = ?`, status, studyID)
		return err
	})
}

// SaveHookSubscription keeps a subscription created on Prolific.
func (db *DB) SaveHookSubscription(ctx context.Context, studyID int64, s domain.HookSubscription) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO prolific_hook_subscriptions (id, study_id, workspace_id, event_type, target_url, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, s.ID, studyID, s.WorkspaceID, s.EventType, s.TargetURL, db.now())
		return err
	})
}

// DeleteHookSubscription forgets a subscription removed on Prolific.
func (db *DB) DeleteHookSubscription(ctx context.Context, id string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM prolific_hook_subscriptions WHERE id = ?`, id)
		return err
	})
}

// HookSubscriptions lists the subscriptions made for a study.
func (db *DB) HookSubscriptions(ctx context.Context, studyID int64) ([]domain.HookSubscription, error) {
	return queryRows(ctx, db, "hook subscriptions", `SELECT id, workspace_id, event_type, target_url, created_at
		FROM prolific_hook_subscriptions WHERE study_id = ? ORDER BY created_at, id`, []any{studyID},
		func(rows *sql.Rows, s *domain.HookSubscription) error {
			var at string
			err := rows.Scan(&s.ID, &s.WorkspaceID, &s.EventType, &s.TargetURL, &at)
			s.CreatedAt = parseTime(at)
			return err
		})
}

// RecordProlificScreenOut records that a person who never became a
// participant (they declined consent) was sent back with the screen-out
// code; recording the same person again changes nothing.
func (db *DB) RecordProlificScreenOut(ctx context.Context, studyID int64, pid, reason string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO prolific_screen_outs (study_id, participant_id, reason, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, studyID, strings.ToLower(pid), reason, db.now())
		return err
	})
}

// ProlificScreenOuts returns, by lower-cased PID, why each person recorded
// by RecordProlificScreenOut was screened out.
func (db *DB) ProlificScreenOuts(ctx context.Context, studyID int64) (map[string]string, error) {
	type row struct{ pid, reason string }
	rows, err := queryRows(ctx, db, "screen-outs", `SELECT participant_id, reason FROM prolific_screen_outs WHERE study_id = ?`, []any{studyID},
		func(rows *sql.Rows, r *row) error { return rows.Scan(&r.pid, &r.reason) })
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.pid] = r.reason
	}
	return out, nil
}
