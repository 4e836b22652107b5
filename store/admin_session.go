package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"time"
)

// Lifetimes of an admin session, enforced here whatever the browser keeps:
// a session ends 12 hours after the login, or after 2 hours unused.
const (
	SessionMaxAge  = 12 * time.Hour
	SessionMaxIdle = 2 * time.Hour
	// sessionTouch is how stale last_seen_at may get before a request
	// writes it again, so reading pages does not queue a write each time.
	sessionTouch = time.Minute
)

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// CreateSession starts a session for the admin and returns its token, the
// only copy of which goes into the browser's cookie. Expired sessions of
// every admin are deleted on the way.
func (db *DB) CreateSession(ctx context.Context, adminID int64) (string, error) {
	token := RandomToken()
	now := db.Now()
	err := db.txKeeping(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM admin_sessions WHERE created_at < ? OR last_seen_at < ?`,
			now.Add(-SessionMaxAge).Format(time.RFC3339Nano), now.Add(-SessionMaxIdle).Format(time.RFC3339Nano)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO admin_sessions (token_hash, admin_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)`,
			tokenHash(token), adminID, db.now(), db.now())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	return token, nil
}

// SessionAdmin returns the admin of a live session and marks it used. An
// unknown, ended or expired session is domain.ENOTFOUND; an expired one is
// deleted.
func (db *DB) SessionAdmin(ctx context.Context, token string) (*domain.Admin, error) {
	if token == "" {
		return nil, domain.Errorf(domain.ENOTFOUND, "no session")
	}
	h := tokenHash(token)
	var a domain.Admin
	var created, seen string
	err := db.read.QueryRowContext(ctx, `
		SELECT a.id, a.username, a.role, s.created_at, s.last_seen_at
		FROM admin_sessions s JOIN admins a ON a.id = s.admin_id
		WHERE s.token_hash = ?`, h).Scan(&a.ID, &a.Username, &a.Role, &created, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "no session")
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	now := db.Now()
	if now.Sub(parseTime(created)) >= SessionMaxAge || now.Sub(parseTime(seen)) >= SessionMaxIdle {
		if _, err := db.execKeeping(ctx, `DELETE FROM admin_sessions WHERE token_hash = ?`, h); err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
		return nil, domain.Errorf(domain.ENOTFOUND, "session expired")
	}
	if now.Sub(parseTime(seen)) >= sessionTouch {
		// A failed touch (a full disk) only makes the session end sooner;
		// it must not keep the admin from reading.
		db.execKeeping(ctx, `UPDATE admin_sessions SET last_seen_at = ? WHERE token_hash = ?`, db.now(), h)
	}
	return &a, nil
}

// EndSession ends one session (logout); ending an unknown one is no error.
func (db *DB) EndSession(ctx context.Context, token string) error {
	if _, err := db.execKeeping(ctx, `DELETE FROM admin_sessions WHERE token_hash = ?`, tokenHash(token)); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// EndSessions ends every session of an admin.
func (db *DB) EndSessions(ctx context.Context, adminID int64) error {
	if _, err := db.execKeeping(ctx, `DELETE FROM admin_sessions WHERE admin_id = ?`, adminID); err != nil {
		return fmt.Errorf("end sessions: %w", err)
	}
	return nil
}

// SessionCount is the number of admin sessions stored, live or not yet
// cleared: what tests of the logins read to see that a refused login
// opened none.
func (db *DB) SessionCount(ctx context.Context) (int, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM admin_sessions`).Scan(&n); err != nil {
		return 0, fmt.Errorf("session count: %w", err)
	}
	return n, nil
}
