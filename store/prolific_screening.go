package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"pragmalab/domain"
	"time"
)

// SaveProlificScreening replaces a study's screening with filters, in one
// transaction: a failure leaves the screening as it was.
func (db *DB) SaveProlificScreening(ctx context.Context, studyID int64, filters []domain.ScreeningFilter) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM prolific_screening WHERE study_id = ?`, studyID); err != nil {
			return fmt.Errorf("save screening: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM prolific_eligible WHERE study_id = ?`, studyID); err != nil {
			return fmt.Errorf("save screening: %w", err)
		}
		for i, f := range filters {
			vals, _ := json.Marshal(nonNil(f.Values))
			labels, _ := json.Marshal(nonNil(f.Labels))
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO prolific_screening (study_id, filter_id, title, selected_values, labels, is_range, lower, upper, position)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				studyID, f.FilterID, f.Title, string(vals), string(labels), f.Range, f.Lower, f.Upper, i); err != nil {
				return fmt.Errorf("save screening: %s: %w", f.FilterID, err)
			}
		}
		return nil
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ProlificScreening returns a study's screening in the order it was saved
// (none: an empty list).
func (db *DB) ProlificScreening(ctx context.Context, studyID int64) ([]domain.ScreeningFilter, error) {
	return queryRows(ctx, db, "screening", `
		SELECT filter_id, title, selected_values, labels, is_range, lower, upper
		FROM prolific_screening WHERE study_id = ? ORDER BY position`, []any{studyID},
		func(rows *sql.Rows, f *domain.ScreeningFilter) error {
			var vals, labels string
			if err := rows.Scan(&f.FilterID, &f.Title, &vals, &labels, &f.Range, &f.Lower, &f.Upper); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(vals), &f.Values); err != nil {
				return err
			}
			return json.Unmarshal([]byte(labels), &f.Labels)
		})
}

// SaveProlificEligible records the eligible count Prolific gave for the
// study's screening now.
func (db *DB) SaveProlificEligible(ctx context.Context, studyID int64, count int) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO prolific_eligible (study_id, count, counted_at) VALUES (?, ?, ?)
			ON CONFLICT (study_id) DO UPDATE SET count = excluded.count, counted_at = excluded.counted_at`,
			studyID, count, db.now())
		if err != nil {
			return fmt.Errorf("save eligible count: %w", err)
		}
		return nil
	})
}

// ProlificEligible returns the last eligible count of the study's current
// screening and when it was made; ok false when there is none.
func (db *DB) ProlificEligible(ctx context.Context, studyID int64) (count int, at time.Time, ok bool, err error) {
	var when string
	err = db.read.QueryRowContext(ctx, `SELECT count, counted_at FROM prolific_eligible WHERE study_id = ?`, studyID).Scan(&count, &when)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, false, nil
	}
	if err != nil {
		return 0, time.Time{}, false, fmt.Errorf("eligible count: %w", err)
	}
	return count, parseTime(when), true, nil
}
