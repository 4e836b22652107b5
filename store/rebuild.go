package store

import (
	"context"
	"database/sql"
	"fmt"

	"pragmalab/domain"
)

// groups names the tables of one kind of numbered groups a study's design
// is built of: an expert study's batches of items, a context study's
// surveys of passages.
type groups struct {
	noun  string // plural, for messages: "batches"
	table string // the groups' table, with study_id and number columns
	// assigned counts the study's groups given to somebody (one ? for the
	// study id).
	assigned string
}

// rebuildUnlessAssigned is the one rule of rebuilding a study's groups:
// while nobody is assigned any of them, the study's groups are replaced by
// new ones numbered from 1, each filled by insert (member by member,
// positions from 1); once somebody is, answers refer to the groups, so
// they are fixed and the rebuild is a conflict. It runs in the caller's
// transaction.
func rebuildUnlessAssigned[T any](ctx context.Context, tx *sql.Tx, studyID int64, g groups, members [][]T,
	insert func(groupID int64, group, pos int, member T) error) error {
	var n int
	if err := tx.QueryRowContext(ctx, g.assigned, studyID).Scan(&n); err != nil {
		return fmt.Errorf("save %s: %w", g.noun, err)
	}
	if n > 0 {
		return domain.Errorf(domain.ECONFLICT, "%s are already assigned to experts and cannot be rebuilt", g.noun)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+g.table+` WHERE study_id = ?`, studyID); err != nil {
		return fmt.Errorf("save %s: %w", g.noun, err)
	}
	for i, ms := range members {
		res, err := tx.ExecContext(ctx, `INSERT INTO `+g.table+` (study_id, number) VALUES (?, ?)`, studyID, i+1)
		if err != nil {
			return fmt.Errorf("save %s: %w", g.noun, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("save %s: %w", g.noun, err)
		}
		for pos, m := range ms {
			if err := insert(id, i+1, pos+1, m); err != nil {
				return err
			}
		}
	}
	return nil
}
