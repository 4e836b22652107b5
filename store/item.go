package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
)

// ImportItems stores items in a study: all of them or, on any error, none.
func (db *DB) ImportItems(ctx context.Context, studyID int64, items []domain.Item) error {
	if err := validateFile(items); err != nil {
		return err
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, studyID); err != nil {
			return err
		}
		if err := judgementItemsFrozen(ctx, tx, studyID); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `
			INSERT INTO items (study_id, key, type, context, utterance, implicature, cancellation,
				negation, strengthening, neutral, check_kind, training, variants)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (study_id, key) DO NOTHING`)
		if err != nil {
			return fmt.Errorf("import items: %w", err)
		}
		defer stmt.Close()
		for i, it := range items {
			res, err := stmt.ExecContext(ctx, studyID, it.Key, it.Type, it.Context, it.Utterance, it.Implicature,
				it.Cancellation, it.Negation, it.Strengthening, it.Neutral, it.Check, it.Training, variantsValue(it.Variants))
			if err != nil {
				return fmt.Errorf("import items: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return domain.Errorf(domain.EINVALID, "item %d: field \"id\": the study already has an item %q; nothing was imported", i+1, it.Key)
			}
		}
		return nil
	})
}

func studyExists(ctx context.Context, tx *sql.Tx, id int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM studies WHERE id = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
	}
	return nil
}

const itemColumns = `id, key, type, context, utterance, implicature, cancellation, negation, strengthening, neutral, check_kind, status, version, review_decision, training, variants`

func scanItem(sc interface{ Scan(...any) error }) (domain.Item, error) {
	var it domain.Item
	err := sc.Scan(itemDest(&it)...)
	return it, err
}

// ListItems returns a study's items (dropped ones included) in import order.
func (db *DB) ListItems(ctx context.Context, studyID int64) ([]domain.Item, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+itemColumns+` FROM items WHERE study_id = ? ORDER BY id`, studyID)
	if err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	defer rows.Close()
	var out []domain.Item
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, fmt.Errorf("list items: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// ItemByID returns one item of a study.
func (db *DB) ItemByID(ctx context.Context, studyID, id int64) (domain.Item, error) {
	it, err := scanItem(db.read.QueryRowContext(ctx, `SELECT `+itemColumns+` FROM items WHERE study_id = ? AND id = ?`, studyID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return it, domain.Errorf(domain.ENOTFOUND, "item not found")
	}
	if err != nil {
		return it, fmt.Errorf("item: %w", err)
	}
	return it, nil
}

// SetItemCheck marks an item as an attention check ("high"/"low") or as a
// data item (""). Items already placed in batches keep their role there.
func (db *DB) SetItemCheck(ctx context.Context, studyID, itemID int64, check string) error {
	if check != "" && check != "high" && check != "low" {
		return domain.Errorf(domain.EINVALID, "check must be empty, high or low")
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := judgementItemsFrozen(ctx, tx, studyID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE items SET check_kind = ? WHERE study_id = ? AND id = ?`, check, studyID, itemID)
		if err != nil {
			return fmt.Errorf("set check: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return domain.Errorf(domain.ENOTFOUND, "item not found")
		}
		return nil
	})
}
