package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// StudyDataVersion returns the study's data version: a number the
// triggers of migrations 0171 and 0172 raise with every write to what the
// study's analysis is computed from (settings, items, batches, outputs,
// answers; of participants only the completed sessions' ratings and what
// the analysis reads of them, not a running session's screens), by any
// process; 0 before the first such write. Read
// it before the data it stands for, so the data are at least that new.
func (db *DB) StudyDataVersion(ctx context.Context, studyID int64) (int64, error) {
	var v int64
	err := db.read.QueryRowContext(ctx, `SELECT version FROM study_data_versions WHERE study_id = ?`, studyID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("study data version: %w", err)
	}
	return v, nil
}

// PilotIncluded reports whether ctx asks for the pilot's answers too
// (IncludePilot): the same version holds two analyses, with and without.
func PilotIncluded(ctx context.Context) bool { return pilotIncluded(ctx) }
