package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"pragmalab/domain"
)

// Verify checks a database file that did not come from this server — a
// restored replica or backup — without changing it: SQLite's quick_check,
// the foreign keys, and its migrations against the ones this binary
// carries (docs/deploy.md#restore-drill). A file with migrations this
// binary does not know was made by a newer pragmalab.
func Verify(ctx context.Context, file string) (domain.DatabaseCheck, error) {
	var c domain.DatabaseCheck
	// Only read from (no migration runs), but not query_only: closing the
	// last connection must be free to fold and remove a -wal file.
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return c, fmt.Errorf("verify %s: %w", file, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if c.QuickCheck, err = quickCheck(ctx, db); err != nil {
		return c, fmt.Errorf("verify %s: %w", file, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_foreign_key_check`).Scan(&c.ForeignKeyErrors); err != nil {
		return c, fmt.Errorf("verify %s: foreign keys: %w", file, err)
	}
	if err := verifyMigrations(ctx, db, file, &c); err != nil {
		return c, err
	}
	for _, q := range []struct {
		n   *int64
		sql string
	}{
		{&c.Studies, `SELECT COUNT(*) FROM studies`},
		{&c.Answers, `SELECT (SELECT COUNT(*) FROM crowd_ratings) + (SELECT COUNT(*) FROM judgements) + (SELECT COUNT(*) FROM context_answers) + (SELECT COUNT(*) FROM explain_ratings)`},
	} {
		if err := db.QueryRowContext(ctx, q.sql).Scan(q.n); err != nil {
			return c, fmt.Errorf("verify %s: %w", file, err)
		}
	}
	return c, nil
}

// quickCheck is SQLite's quick_check of db: "ok", or the problems found.
func quickCheck(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// verifyMigrations compares the migrations db ran with the ones this
// binary carries: unknown ones (a newer pragmalab), pending ones, and the
// schema version.
func verifyMigrations(ctx context.Context, db *sql.DB, file string, c *domain.DatabaseCheck) error {
	known, err := migrationVersions()
	if err != nil {
		return err
	}
	have, err := ranMigrations(ctx, db, file)
	if err != nil {
		return err
	}
	for _, v := range have {
		if !slices.Contains(known, v) {
			c.UnknownMigrations = append(c.UnknownMigrations, v)
		}
	}
	for _, v := range known {
		if !slices.Contains(have, v) {
			c.PendingMigrations = append(c.PendingMigrations, v)
		}
	}
	c.Migrations = len(have)
	if len(have) > 0 {
		c.SchemaVersion = have[len(have)-1]
	}
	return nil
}

// ranMigrations are the versions in db's schema_migrations, in order.
func ranMigrations(ctx context.Context, db *sql.DB, file string) ([]int, error) {
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, fmt.Errorf("verify %s: not a pragmalab database (no schema_migrations): %w", file, err)
	}
	defer rows.Close()
	var have []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		have = append(have, v)
	}
	return have, nil
}

// migrationVersions are the numbers of the embedded migrations.
func migrationVersions() ([]int, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var vs []int
	for _, n := range names {
		num, _, _ := strings.Cut(path.Base(n), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s is not named NNNN_name.sql", n)
		}
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return vs, nil
}
