package store

import (
	"context"
	"database/sql"
	"fmt"
)

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
	if s, ok := db.stmts.Load(k); ok {
		return s.(*sql.Stmt), nil
	}
	pool := db.read
	if write {
		pool = db.write
	}
	s, err := pool.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if old, loaded := db.stmts.LoadOrStore(k, s); loaded {
		s.Close()
		return old.(*sql.Stmt), nil
	}
	return s, nil
}

// warm prepares write statements before a transaction begins: the writer
// has one connection, which a transaction holds, so nothing can be
// prepared on it from inside one.
func (db *DB) warm(ctx context.Context, qs ...string) {
	for _, q := range qs {
		if _, ok := db.stmts.Load(stmtKey{q, true}); !ok {
			db.prepared(ctx, q, true) // on failure the query runs unprepared and reports it
		}
	}
}

// txStmt returns q bound to tx if it was prepared (warm), else nil.
func (db *DB) txStmt(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	s, ok := db.stmts.Load(stmtKey{q, true})
	if !ok {
		return nil
	}
	return tx.StmtContext(ctx, s.(*sql.Stmt))
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
