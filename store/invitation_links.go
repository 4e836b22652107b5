package store

import (
	"context"
	"fmt"
)

// JudgementLink is the number of the invitation link an expert's answer on
// a screen was given through (migration 0201): 1 for the link of the
// invitation, one more for each revoke or re-issue since; 0 for an answer
// stored before links were recorded.
func (db *DB) JudgementLink(ctx context.Context, assignmentID int64, position int) (int, error) {
	var n int
	err := db.read.QueryRowContext(ctx, `SELECT link_no FROM judgements WHERE assignment_id = ? AND position = ?`, assignmentID, position).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("judgement link: %w", err)
	}
	return n, nil
}
