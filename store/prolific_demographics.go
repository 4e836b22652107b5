package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Prolific's demographic export kept or not (docs/prolific.md#demographics).

// KeepDemographics reports whether the study keeps Prolific's demographic
// export in the database.
func (db *DB) KeepDemographics(ctx context.Context, studyID int64) (bool, error) {
	var keep bool
	err := db.read.QueryRowContext(ctx, `SELECT keep FROM prolific_demographics_settings WHERE study_id = ?`, studyID).Scan(&keep)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("keep demographics: %w", err)
	}
	return keep, nil
}

// SetKeepDemographics turns keeping the demographic export on or off.
// Turned off, the rows kept so far are deleted with it.
func (db *DB) SetKeepDemographics(ctx context.Context, studyID int64, keep bool, actor string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO prolific_demographics_settings (study_id, keep, actor, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (study_id) DO UPDATE SET keep = excluded.keep, actor = excluded.actor, updated_at = excluded.updated_at`,
			studyID, keep, actor, db.now()); err != nil {
			return fmt.Errorf("keep demographics: %w", err)
		}
		if !keep {
			if _, err := tx.ExecContext(ctx, `DELETE FROM prolific_demographics WHERE study_id = ?`, studyID); err != nil {
				return fmt.Errorf("keep demographics: %w", err)
			}
		}
		return nil
	})
}

// SaveDemographics replaces the study's kept demographic rows with the
// export's — only while the study keeps them: otherwise it stores nothing
// and returns false. pid is the index of the participant id's column.
func (db *DB) SaveDemographics(ctx context.Context, studyID int64, columns []string, rows [][]string, pid int) (bool, error) {
	kept := false
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT keep FROM prolific_demographics_settings WHERE study_id = ?), 0)`, studyID).Scan(&kept); err != nil {
			return err
		}
		if !kept {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM prolific_demographics WHERE study_id = ?`, studyID); err != nil {
			return err
		}
		now := db.now()
		for _, row := range rows {
			pairs := make([][2]string, len(columns))
			for i, c := range columns {
				pairs[i] = [2]string{c, row[i]}
			}
			b, err := json.Marshal(pairs)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO prolific_demographics (study_id, participant_id, fields, fetched_at) VALUES (?, ?, ?, ?)`,
				studyID, strings.ToLower(strings.TrimSpace(row[pid])), string(b), now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("save demographics: %w", err)
	}
	return kept, nil
}

// KeptDemographics counts the demographic rows the study keeps.
func (db *DB) KeptDemographics(ctx context.Context, studyID int64) (int, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM prolific_demographics WHERE study_id = ?`, studyID).Scan(&n); err != nil {
		return 0, fmt.Errorf("kept demographics: %w", err)
	}
	return n, nil
}
