package store

import (
	"context"
	"database/sql"
	"fmt"
	"pragmalab/domain"
	"strconv"
)

// qMachineRank gives, for screen ?2 of batch ?1, its rank among the
// batch's ordinary screens (neither attention checks nor practice items),
// how many there are, and whether the screen is one of them.
const qMachineRank = `
	SELECT COALESCE(SUM(bi.position < ?2), 0), COUNT(*), COALESCE(MAX(bi.position = ?2), 0)
	FROM batch_items bi JOIN items i ON i.id = bi.item_id
	WHERE bi.batch_id = ?1 AND i.check_kind = '' AND COALESCE(i.training, '') = ''`

// machineAsked is the point the hidden instruction asks for on screen
// position of batch batchID for the participant whose traps are t
// (docs/studies.md#machine-instruction), 0 when the study does not give
// it or the screen does not carry it. The server decides it from the batch
// and the participant's draw: nothing the browser sends counts.
func (db *DB) machineAsked(ctx context.Context, tx *sql.Tx, batchID int64, position int, t domain.Traps, s domain.CrowdSettings) (int, error) {
	if !s.MachineCheck {
		return 0, nil
	}
	var rank, n, ordinary int
	if err := db.q(tx).QueryRowContext(ctx, qMachineRank, batchID, position).Scan(&rank, &n, &ordinary); err != nil {
		return 0, fmt.Errorf("machine instruction: %w", err)
	}
	if ordinary == 0 {
		return 0, nil
	}
	return t.InstructionPoint(rank, n, s.ScalePoints), nil
}

// CrowdMachineInstruction is the point the hidden instruction of screen
// position of batch batchID asks the participant whose session is token
// for, 0 for none (the page shows it).
func (db *DB) CrowdMachineInstruction(ctx context.Context, batchID int64, position int, token string, s domain.CrowdSettings) (int, error) {
	if !s.MachineCheck {
		return 0, nil
	}
	t, err := db.Traps(ctx, token)
	if err != nil {
		return 0, err
	}
	return db.machineAsked(ctx, nil, batchID, position, t, s)
}

// machineObeyed is the machine_instruction value stored with a rating:
// NULL without an instruction, 1 when the rating is the point asked, else 0.
func machineObeyed(asked, rating int) any {
	if v := domain.MachineObeyed(asked, rating); v != nil {
		return *v
	}
	return nil
}

// nullInt is an exported integer that may be NULL: "" for NULL.
func nullInt(v sql.NullInt64) string {
	if !v.Valid {
		return ""
	}
	return strconv.FormatInt(v.Int64, 10)
}
