package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"pragmalab/domain"
)

// No hoarding (docs/studies.md#no-hoarding): a consented place waits for
// its first answer only the study's hold time, and one client address
// holds at most places_per_address consented, unfinished places.

// cutoffs are the times before which a place is free for a newcomer: a
// place not answered since consent (hold) and an idle one (time-out).
func (db *DB) cutoffs(s domain.CrowdSettings) (hold, idle string) {
	now := db.Now()
	return now.Add(-s.Hold()).UTC().Format(time.RFC3339Nano), now.Add(-s.Timeout()).UTC().Format(time.RFC3339Nano)
}

// freePlace returns the participant whose place a newcomer may take when
// every batch is at its quota: first the participant idle the longest
// past the time-out, then the oldest consented place that got no answer
// within the hold time, counted from consent (started_at: consent is when
// the place is taken), never from a page view, so reloading the entry link
// renews nothing; 0 when there is none. Both are index lookups
// (crowd_participants_idle, crowd_participants_unheld).
func (db *DB) freePlace(ctx context.Context, q querier, studyID int64, s domain.CrowdSettings) (id, batchID int64, err error) {
	hold, idle := db.cutoffs(s)
	err = q.QueryRowContext(ctx, `
		SELECT id, batch_id FROM crowd_participants
		WHERE study_id = ? AND status = 'active' AND last_seen_at < ? AND pilot = 0
		ORDER BY last_seen_at LIMIT 1`, studyID, idle).Scan(&id, &batchID)
	if errors.Is(err, sql.ErrNoRows) {
		err = q.QueryRowContext(ctx, `
			SELECT id, batch_id FROM crowd_participants
			WHERE study_id = ? AND status = 'active' AND answered = 0 AND training_done = 0 AND training_wrong = 0 AND pilot = 0
				AND started_at < ?
			ORDER BY started_at LIMIT 1`, studyID, hold).Scan(&id, &batchID)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("free crowd place: %w", err)
	}
	return id, batchID, nil
}

// placesHeld counts the places the client key holds in the study: active,
// consented sessions that are neither past their hold without an answer
// nor idle past the time-out (those places are free for a newcomer). The
// hold counts from consent, as in freePlace.
func (db *DB) placesHeld(ctx context.Context, q querier, studyID int64, key string, s domain.CrowdSettings) (int, error) {
	hold, idle := db.cutoffs(s)
	var n int
	err := q.QueryRowContext(ctx, `
		SELECT COUNT(*) FROM crowd_participants
		WHERE study_id = ? AND client_key = ? AND client_key != '' AND status = 'active' AND pilot = 0
			AND consented_at IS NOT NULL AND last_seen_at >= ?
			AND NOT (answered = 0 AND training_done = 0 AND training_wrong = 0 AND started_at < ?)`,
		studyID, key, idle, hold).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("places held by an address: %w", err)
	}
	return n, nil
}

// checkAddress refuses a newcomer whose address holds the study's limit
// of places already (ErrAddressLimit); key "" (address unknown) or a limit
// of 0 lets everyone in.
func (db *DB) checkAddress(ctx context.Context, q querier, studyID int64, key string, s domain.CrowdSettings) error {
	if key == "" || s.PlacesPerAddress <= 0 {
		return nil
	}
	n, err := db.placesHeld(ctx, q, studyID, key, s)
	if err != nil {
		return err
	}
	if n >= s.PlacesPerAddress {
		return domain.ErrAddressLimit
	}
	return nil
}

// CrowdCanStart tells, before the consent form is shown, whether a
// newcomer from the client key could take a place now: nil, or
// ErrNoBatches, ErrStudyFull or ErrAddressLimit — the refusals
// ConsentCrowd would give. It reads only; ConsentCrowd decides again in
// its transaction.
func (db *DB) CrowdCanStart(ctx context.Context, studyID int64, key string, s domain.CrowdSettings) error {
	q := db.q(nil)
	if err := db.checkAddress(ctx, q, studyID, key, s); err != nil {
		return err
	}
	var taken int
	err := q.QueryRowContext(ctx, `SELECT slots_taken FROM batches WHERE study_id = ? AND retired = 0 ORDER BY slots_taken, number LIMIT 1`,
		studyID).Scan(&taken)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.ErrNoBatches
	}
	if err != nil {
		return fmt.Errorf("crowd places: %w", err)
	}
	if taken < s.Quota {
		return nil
	}
	id, _, err := db.freePlace(ctx, q, studyID, s)
	if err != nil {
		return err
	}
	if id == 0 {
		return domain.ErrStudyFull
	}
	return nil
}

// RefuseCrowdConsent records "I do not agree" from the browser holding
// token: its entry is deleted and the refusal (the PROLIFIC_PID and the
// time) is all that is kept, with, in the same transaction, the
// screen-out the Prolific review acts on (docs/prolific.md#screen-outs,
// reason as the review page says it). A token that is no entry (already
// consented, or unknown) is ENOTFOUND; a second refusal changes nothing.
func (db *DB) RefuseCrowdConsent(ctx context.Context, studyID int64, token, reason string) error {
	if token == "" || len(token) > 100 {
		return domain.Errorf(domain.ENOTFOUND, "no such participant session")
	}
	return db.sessionTx(ctx, prioArrival, func(ctx context.Context, tx *sql.Tx) error {
		if refused, err := crowdRefused(ctx, db.q(tx), studyID, token); err != nil || refused {
			return err
		}
		e, err := crowdEntry(ctx, db.q(tx), studyID, token)
		if err != nil {
			return err
		}
		if _, err := db.q(tx).ExecContext(ctx, `DELETE FROM crowd_entries WHERE token = ?`, token); err != nil {
			return fmt.Errorf("consent refusal: %w", err)
		}
		if _, err := db.q(tx).ExecContext(ctx, `
			INSERT INTO crowd_refusals (token, study_id, prolific_pid, created_at) VALUES (?, ?, ?, ?)`,
			token, studyID, e.PID, db.now()); err != nil {
			return fmt.Errorf("consent refusal: %w", err)
		}
		if e.PID == "" {
			return nil
		}
		if _, err := db.q(tx).ExecContext(ctx, `INSERT INTO prolific_screen_outs (study_id, participant_id, reason, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, studyID, strings.ToLower(e.PID), reason, db.now()); err != nil {
			return fmt.Errorf("consent refusal: %w", err)
		}
		return nil
	})
}

func crowdRefused(ctx context.Context, q querier, studyID int64, token string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM crowd_refusals WHERE study_id = ? AND token = ?`, studyID, token).Scan(&n); err != nil {
		return false, fmt.Errorf("consent refusal: %w", err)
	}
	return n > 0, nil
}

// CrowdRefused tells whether the browser holding token declined consent.
func (db *DB) CrowdRefused(ctx context.Context, studyID int64, token string) (bool, error) {
	if token == "" || len(token) > 100 {
		return false, nil
	}
	return crowdRefused(ctx, db.read, studyID, token)
}

// CrowdRefusals counts a study's consent refusals.
func (db *DB) CrowdRefusals(ctx context.Context, studyID int64) (int, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM crowd_refusals WHERE study_id = ?`, studyID).Scan(&n); err != nil {
		return 0, fmt.Errorf("consent refusals: %w", err)
	}
	return n, nil
}

// minMeasured is how many measured answers the median time per screen
// needs before it replaces the documented estimate.
const minMeasured = 20

// CrowdStudyLength gives what the consent page's estimate of the study's
// length reads: the screens of the first batch, the practice items, and
// the median response time of the study's non-pilot answers measured by
// the browser (0 when fewer than 20 are measured).
//
// Every landing page shows it, and the median reads every measured answer
// of the study: the figures are kept for studyLengthTTL (an admin commit
// or another process's write drops them at once, DB.forgetKept), so
// arrivals at a study with 80,000 answers do not each sort them.
func (db *DB) CrowdStudyLength(ctx context.Context, studyID int64) (screens, training int, median time.Duration, err error) {
	if v, ok := db.hot.lengths.Load(studyID); ok {
		if l := v.(studyLength); time.Since(l.at) < studyLengthTTL {
			return l.screens, l.training, l.median, nil
		}
	}
	at, gen := time.Now(), db.hot.kept.Load()
	if screens, training, median, err = db.crowdStudyLength(ctx, studyID); err == nil {
		db.keep(&db.hot.lengths, studyID, studyLength{screens, training, median, at}, gen)
	}
	return screens, training, median, err
}

// studyLengthTTL is how long CrowdStudyLength's figures are reused: the
// median time per screen moves slowly once 20 answers are measured.
const studyLengthTTL = time.Minute

// studyLength is CrowdStudyLength's figures, kept.
type studyLength struct {
	screens, training int
	median            time.Duration
	at                time.Time
}

func (db *DB) crowdStudyLength(ctx context.Context, studyID int64) (screens, training int, median time.Duration, err error) {
	err = db.q(nil).QueryRowContext(ctx, `
		SELECT COALESCE((SELECT COUNT(*) FROM batch_items WHERE batch_id =
				(SELECT id FROM batches WHERE study_id = ?1 AND retired = 0 ORDER BY number LIMIT 1)), 0),
			(SELECT COUNT(*) FROM crowd_training WHERE study_id = ?1)`, studyID).Scan(&screens, &training)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("crowd study length: %w", err)
	}
	const measured = `FROM crowd_ratings r JOIN crowd_participants p ON p.id = r.participant_id
		WHERE p.study_id = ? AND p.pilot = 0 AND r.rt_ms > 0`
	var n int
	if err = db.q(nil).QueryRowContext(ctx, `SELECT COUNT(*) `+measured, studyID).Scan(&n); err != nil {
		return 0, 0, 0, fmt.Errorf("crowd study length: %w", err)
	}
	if n < minMeasured {
		return screens, training, 0, nil
	}
	var ms int64
	if err = db.q(nil).QueryRowContext(ctx, `SELECT r.rt_ms `+measured+` ORDER BY r.rt_ms LIMIT 1 OFFSET ?`, studyID, n/2).Scan(&ms); err != nil {
		return 0, 0, 0, fmt.Errorf("crowd study length: %w", err)
	}
	return screens, training, time.Duration(ms) * time.Millisecond, nil
}
