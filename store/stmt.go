package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
)

// hotPath is the state of the participants' hot paths.
type hotPath struct {
	stmts   sync.Map    // stmtKey → *sql.Stmt, or pendingStmt{} until prepared
	pending atomic.Bool // some statement waits to be prepared
	// kept counts the times what is kept was forgotten (DB.forgetKept): a
	// crowd study or study length read while it rose is not kept.
	kept    atomic.Uint64
	studies sync.Map     // crowd study id → cachedCrowdStudy
	lengths sync.Map     // crowd study id → studyLength (crowd_hoard.go)
	items   screenItems  // items shown on participants' screens (screen_items.go)
	screens crowdScreens // crowd sessions and their screens (crowd_screens.go)
	writes  writeQueue   // participants' writes, committed in groups (writer.go)
}

// keep stores a value read since forgetKept's count was gen, and drops
// it again if that count rose meanwhile: the value may predate the write.
func (db *DB) keep(m *sync.Map, key, value any, gen uint64) {
	m.Store(key, value)
	if db.hot.kept.Load() != gen {
		m.Delete(key)
	}
}

// pendingStmt marks a statement first seen inside a transaction, to be
// prepared after it.
type pendingStmt struct{}

// stmtKey names a cached statement: its text, on the writer or the readers.
type stmtKey struct {
	q     string
	write bool
}

// prepared returns q prepared once on the writer (write) or the read pool.
// Parsing SQL is a large share of a small transaction's cost in the pure-Go
// SQLite, so the participant hot paths (one answer = one transaction) keep
// their statements prepared.
func (db *DB) prepared(ctx context.Context, q string, write bool) (*sql.Stmt, error) {
	k := stmtKey{q, write}
	if s, ok := db.hot.stmts.Load(k); ok {
		if s, ok := s.(*sql.Stmt); ok {
			return s, nil
		}
	}
	pool := db.read
	if write {
		pool = db.write
	}
	s, err := pool.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if old, loaded := db.hot.stmts.Load(k); loaded {
		if old, ok := old.(*sql.Stmt); ok {
			s.Close()
			return old, nil
		}
	}
	db.hot.stmts.Store(k, s)
	return s, nil
}

// warm prepares write statements before a transaction begins: the writer
// has one connection, which a transaction holds, so nothing can be
// prepared on it from inside one.
func (db *DB) warm(ctx context.Context, qs ...string) {
	for _, q := range qs {
		if s, ok := db.hot.stmts.Load(stmtKey{q, true}); !ok || s == (pendingStmt{}) {
			db.prepared(ctx, q, true) // on failure the query runs unprepared and reports it
		}
	}
}

// txStmt returns q bound to tx if it is prepared, else nil; a statement
// seen for the first time is prepared after the transaction (preparePending).
func (db *DB) txStmt(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	k := stmtKey{q, true}
	s, ok := db.hot.stmts.Load(k)
	if !ok {
		db.hot.stmts.Store(k, pendingStmt{})
		db.hot.pending.Store(true)
		return nil
	}
	if s, ok := s.(*sql.Stmt); ok {
		return tx.StmtContext(ctx, s)
	}
	return nil
}

// preparePending prepares the write statements first met inside a
// transaction; it runs between transactions, when the writer is free.
func (db *DB) preparePending(ctx context.Context) {
	if !db.hot.pending.Swap(false) {
		return
	}
	db.hot.stmts.Range(func(k, v any) bool {
		if v == (pendingStmt{}) {
			db.prepared(ctx, k.(stmtKey).q, true)
		}
		return true
	})
}

// prepQ runs queries through prepared statements, in tx or (tx nil) on the
// read pool.
type prepQ struct {
	db *DB
	tx *sql.Tx
}

// q returns a querier using prepared statements.
func (db *DB) q(tx *sql.Tx) prepQ { return prepQ{db, tx} }

// QueryRowContext runs a one-row query; a statement that cannot be
// prepared runs unprepared, to report its error the usual way.
func (p prepQ) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	var s *sql.Stmt
	var err error
	if p.tx != nil {
		if s = p.db.txStmt(ctx, p.tx, q); s == nil {
			return p.tx.QueryRowContext(ctx, q, args...)
		}
	} else if s, err = p.db.prepared(ctx, q, false); err != nil {
		return p.db.read.QueryRowContext(ctx, q, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// ExecContext runs a statement in the transaction.
func (p prepQ) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if s := p.db.txStmt(ctx, p.tx, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return p.tx.ExecContext(ctx, q, args...)
}
