package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"pragmalab/domain"
)

// Prolific test participants kept apart as pilot sessions are
// (docs/prolific.md#test-participant): a participant arriving with the
// PROLIFIC_PID of a test participant created from pragmalab (*Try it as a
// participant on Prolific*, recorded in the call journal) gets a pilot
// session. Their answers are left out of every export and analysis
// unless pilot answers are asked for (IncludePilot), they take no place of
// the quota, and Wipe pilot data deletes them.

// qTestParticipant is the arrival's question, read from the partial index
// of migration 0350: its kind and state are written into the text, as the
// index's, for SQLite can use a partial index only when the query's
// constants imply its WHERE.
const qTestParticipant = `SELECT EXISTS (SELECT 1 FROM prolific_calls
	WHERE kind = '` + domain.CallTestParticipant + `' AND state = '` + domain.CallDone + `'
		AND lower(response) = lower('"' || ? || '"'))`

// isTestParticipant reports whether pid is a test participant created
// from pragmalab (the journal holds its id as Prolific's answer).
func isTestParticipant(ctx context.Context, q querier, pid string) (bool, error) {
	if pid == "" {
		return false, nil
	}
	var yes bool
	err := q.QueryRowContext(ctx, qTestParticipant, pid).Scan(&yes)
	if err != nil {
		return false, fmt.Errorf("test participant: %w", err)
	}
	return yes, nil
}

// assignTestParticipant gives a test participant a pilot session on the
// batch with the fewest pilot sessions, as EnterCrowdPilot does, with
// their Prolific ids and the entry's token. It takes no place.
func (db *DB) assignTestParticipant(ctx context.Context, tx *sql.Tx, studyID int64, a CrowdArrival) (*CrowdParticipant, error) {
	batchID, err := fewestPilotsBatch(ctx, tx, studyID)
	if errors.Is(err, domain.ErrNoBatches) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("test participant: %w", err)
	}
	now := db.now()
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO crowd_participants (study_id, batch_id, prolific_pid, prolific_study_id, prolific_session_id,
			token, screens, training, started_at, last_seen_at, pilot)
		VALUES (?, ?, ?, ?, ?, ?, (SELECT COUNT(*) FROM batch_items WHERE batch_id = ?), (SELECT COUNT(*) FROM crowd_training WHERE study_id = ?), ?, ?, 1)`,
		studyID, batchID, a.PID, a.StudyID, a.SessionID, a.Token, batchID, studyID, now, now); err != nil {
		return nil, fmt.Errorf("test participant: %w", err)
	}
	return crowdParticipantWhere(ctx, db.q(tx), `p.token = ?`, a.Token)
}
