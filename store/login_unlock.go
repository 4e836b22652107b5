package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"pragmalab/domain"
)

// UnlockLogin records that the login lock of an existing account is
// cleared now, with the audit entry, in one transaction.
func (db *DB) UnlockLogin(ctx context.Context, username, by, auditAction, auditDetail string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM admins WHERE username = ? COLLATE NOCASE`, username).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.ENOTFOUND, "no admin named %q", username)
		}
		now := db.now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO login_unlocks (username, unlocked_at, by) VALUES (?, ?, ?)
			ON CONFLICT (username) DO UPDATE SET unlocked_at = excluded.unlocked_at, by = excluded.by`, username, now, by); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor, study_id, action, detail) VALUES (?, ?, NULL, ?, ?)`,
			now, by, auditAction, auditDetail)
		return err
	})
	if err != nil {
		return fmt.Errorf("unlock login: %w", err)
	}
	return nil
}

// LoginUnlockedAt is when the account's login lock was last cleared (the
// zero time: never).
func (db *DB) LoginUnlockedAt(ctx context.Context, username string) (time.Time, error) {
	var at string
	err := db.read.QueryRowContext(ctx, `SELECT unlocked_at FROM login_unlocks WHERE username = ? COLLATE NOCASE`, username).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("login unlocked at: %w", err)
	}
	return parseTime(at), nil
}
