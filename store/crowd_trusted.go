package store

import (
	"context"
	"fmt"

	"pragmalab/domain"
)

// SetCrowdTrusted marks a participant of a crowd study as trusted (a
// vetted pilot, a lab panel) or not: LLM-echo compares the other
// participants with the trusted ones
// (docs/statistics.md#llm-echo-against-a-reference). The study's data
// version moves (the trigger of migration 0370), so the kept LLM-echo
// outcome is computed again.
func (db *DB) SetCrowdTrusted(ctx context.Context, studyID, participantID int64, trusted bool) error {
	res, err := db.exec(ctx, `UPDATE crowd_participants SET trusted = ? WHERE study_id = ? AND id = ?`,
		trusted, studyID, participantID)
	if err != nil {
		return fmt.Errorf("set trusted: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "participant %d not found", participantID)
	}
	return nil
}

// TrustedCrowdPIDs lists the PROLIFIC_PIDs of a study's trusted
// participants, in arrival order.
func (db *DB) TrustedCrowdPIDs(ctx context.Context, studyID int64) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT prolific_pid FROM crowd_participants WHERE study_id = ? AND trusted = 1 ORDER BY id`, studyID)
	if err != nil {
		return nil, fmt.Errorf("trusted participants: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pid string
		if err := rows.Scan(&pid); err != nil {
			return nil, fmt.Errorf("trusted participants: %w", err)
		}
		out = append(out, pid)
	}
	return out, rows.Err()
}
