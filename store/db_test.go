package store

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mustOpenDB opens a fresh database in a temporary directory.
func mustOpenDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Now = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenSettings(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	var mode string
	if err := db.write.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := db.read.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("read pool foreign_keys = %d, %v; want 1", fk, err)
	}
	var bt int
	if err := db.read.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&bt); err != nil || bt == 0 {
		t.Fatalf("busy_timeout = %d, %v; want > 0", bt, err)
	}
	if _, err := db.read.ExecContext(ctx, `INSERT INTO kv (key, value) VALUES ('x', 'y')`); err == nil {
		t.Fatal("read pool accepted a write")
	}
}

func TestMigrateTwice(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		db, err := Open(ctx, file)
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		var n int
		if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = 1`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("open #%d: migration rows = %d, %v", i+1, n, err)
		}
		db.Close()
	}
}

// TestFilesArePrivate: the database, its -wal and -shm files and a backup
// are readable by their owner only, whatever the umask.
func TestFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	file := filepath.Join(dir, "p.db")
	ctx := context.Background()
	db, err := Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateAdmin(ctx, "lea", "a long enough password"); err != nil {
		t.Fatal(err)
	}
	if err := db.Backup(ctx, filepath.Join(dir, "backup.db")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"p.db", "p.db-wal", "p.db-shm", "backup.db"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want -rw-------", name, fi.Mode().Perm())
		}
	}
	// A database an older version left world-readable is tightened.
	loose := filepath.Join(dir, "loose.db")
	os.WriteFile(loose, nil, 0o644)
	db2, err := Open(ctx, loose)
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
	if fi, _ := os.Stat(loose); fi.Mode().Perm() != 0o600 {
		t.Errorf("an existing database stays %v", fi.Mode().Perm())
	}
}

// TestMigrationVersionsUnique: two migration files of one number would
// have the second skipped as applied; the embedded ones have none, and
// the check names both files.
func TestMigrationVersionsUnique(t *testing.T) {
	type m struct {
		v    int
		name string
	}
	of := func(x m) (int, string) { return x.v, x.name }
	if err := uniqueVersions([]m{{360, "0360_a.sql"}, {360, "0360_b.sql"}}, of); err == nil || !strings.Contains(err.Error(), "0360_a.sql and 0360_b.sql") {
		t.Errorf("two files of version 360: %v", err)
	}
	if err := uniqueVersions([]m{{360, "0360_a.sql"}, {364, "0364_b.sql"}}, of); err != nil {
		t.Errorf("distinct versions refused: %v", err)
	}
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, n := range names {
		num, _, _ := strings.Cut(path.Base(n), "_")
		if prev, ok := seen[num]; ok {
			t.Errorf("migrations %s and %s share a number", prev, n)
		}
		seen[num] = n
	}
}
