// Package store keeps pragmalab's data in one SQLite file: studies, items,
// batches, participants and every answer they give.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is pragmalab's database: one writer connection, so writes never fight
// over SQLite's lock, and a pool of readers that WAL lets run beside it.
type DB struct {
	write *sql.DB
	read  *sql.DB
	path  string
	// hot holds what the participants' hot paths keep between requests:
	// prepared statements, the write queue, cached studies (stmt.go).
	hot hotPath
	// disk remembers whether writes find the disk full (disk.go).
	disk diskState
	// checkpoints runs the log's checkpoints beside the writer
	// (checkpoint.go); nil when Litestream owns them.
	checkpoints *checkpointer
	// traps caches the key the participants' traps are drawn from
	// (traps.go).
	traps trapKey

	// Now is the clock; tests replace it.
	Now func() time.Time
}

// Options are settings of Open that only benchmarks change.
type Options struct {
	// Synchronous is how a participant's write is made durable:
	//   - "FULL" (the default): SQLite's synchronous=FULL, the log synced in
	//     every COMMIT;
	//   - "PIPELINED": synchronous=NORMAL on the connection, and a group is
	//     acknowledged only once a second goroutine has synced the log after
	//     its COMMIT, while the writer goes on with the next group: the same
	//     guarantee, with the fsync off the writer's path;
	//   - "NORMAL": no sync at commit; only for measuring what durability
	//     costs (a power cut can lose acknowledged answers).
	Synchronous string
	// Replicated: Litestream replicates the file and owns the checkpoints
	// (docs/architecture.md#replica): the writer's automatic checkpoint
	// waits for ReplicatedCheckpointPages pages of log instead of SQLite's
	// 1,000, a safety net for when Litestream is not running.
	Replicated bool
}

// ReplicatedCheckpointPages is the writer's wal_autocheckpoint when
// Litestream replicates the database: Litestream checkpoints at 1,000
// pages and every minute, so this only fires while it is not running.
const ReplicatedCheckpointPages = 10000

// DSN builds the connection string. The pragmas live here so that every
// pooled connection gets them, not just the first one. synchronous is
// "FULL" or "NORMAL" ("" means FULL).
func DSN(file string, readOnly bool, synchronous string) string {
	if synchronous == "" {
		synchronous = "FULL"
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	// FULL: in WAL mode the log is synced at every commit, so an
	// acknowledged answer survives a power cut or an OS crash, not just a
	// killed process (NORMAL). Participants' writes are committed in groups
	// (writer.go), so the fsync is paid once per group, not per answer.
	q.Add("_pragma", "synchronous("+synchronous+")")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	if readOnly {
		q.Add("_pragma", "query_only(ON)")
		q.Del("_txlock")
	}
	return "file:" + file + "?" + q.Encode()
}

// Open opens (creating if needed) the database at file and brings its schema
// up to date.
func Open(ctx context.Context, file string) (*DB, error) { return OpenWith(ctx, file, Options{}) }

// OpenWith is Open with options.
func OpenWith(ctx context.Context, file string, o Options) (*DB, error) {
	sync := o.Synchronous
	switch sync {
	case "", "FULL", "NORMAL":
	case "PIPELINED":
		sync = "NORMAL"
	default:
		return nil, fmt.Errorf("open %s: synchronous must be FULL, PIPELINED or NORMAL, got %q", file, o.Synchronous)
	}
	if err := private(file); err != nil {
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	dsn := DSN(file, false, sync)
	if o.Replicated {
		dsn += "&_pragma=" + url.QueryEscape("wal_autocheckpoint("+strconv.Itoa(ReplicatedCheckpointPages)+")")
	} else {
		// The checkpoints run beside the writer (checkpoint.go).
		dsn += "&_pragma=" + url.QueryEscape("wal_autocheckpoint(0)")
	}
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	db := &DB{write: w, path: file, Now: func() time.Time { return time.Now().UTC() }}
	if err := db.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", DSN(file, true, sync))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s for reading: %w", file, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	db.read = r
	if !o.Replicated {
		if err := db.startCheckpointer(file, sync); err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("open %s for checkpoints: %w", file, err)
		}
	}
	db.startWriter(o.Synchronous == "PIPELINED")
	return db, nil
}

// private makes the database readable by its owner only: it holds the
// session keys, so other users of the machine must not read it. A new file
// is created with mode 0600 before SQLite opens it, and SQLite gives its
// -wal and -shm files the mode of the database; files left by an older
// version with a looser mode are tightened.
func private(file string) error {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	for _, name := range []string{file, file + "-wal", file + "-shm"} {
		fi, err := os.Stat(name)
		if err != nil {
			continue
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(name, fi.Mode().Perm()&0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close commits the participants' writes still queued, then closes both
// pools.
func (db *DB) Close() error {
	db.stopWriter()
	db.stopCheckpointer()
	err := db.read.Close()
	if werr := db.write.Close(); err == nil {
		err = werr
	}
	return err
}

// Path is the database file's path.
func (db *DB) Path() string { return db.path }

// now formats the clock's time as stored in the database.
func (db *DB) now() string { return db.Now().UTC().Format(time.RFC3339Nano) }

// parseTime reads a time written by now.
func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// uniqueVersions refuses two migrations of one version, sorted by version:
// the second would be skipped silently as applied (two branches each
// adding the next number).
func uniqueVersions[M any](ms []M, of func(M) (int, string)) error {
	for i := 1; i < len(ms); i++ {
		v, name := of(ms[i])
		if pv, prev := of(ms[i-1]); pv == v {
			return fmt.Errorf("migrate: %s and %s share version %d: renumber one", prev, name, v)
		}
	}
	return nil
}

// migrate applies, in number order, every embedded migration not applied yet,
// each in its own transaction together with its version row.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.exec(ctx, `
		CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TEXT NOT NULL
		)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	type migration struct {
		version int
		name    string
	}
	var ms []migration
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return fmt.Errorf("migrate: %s is not named NNNN_name.sql", base)
		}
		ms = append(ms, migration{v, base})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	if err := uniqueVersions(ms, func(m migration) (int, string) { return m.version, m.name }); err != nil {
		return err
	}
	for _, m := range ms {
		var n int
		// A read, on the writer because the read pool opens after the
		// migrations.
		if err := db.write.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := migrationFiles.ReadFile("migrations/" + m.name)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		err = db.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migrate %s: %w", m.name, err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`, m.version, m.name, db.now())
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// The write rule (docs/architecture.md#the-write-rule): a participant's
// write goes through the group writer (sessionTx, groupTx, queueWrite,
// writer.go); every other write is one transaction through tx, or exec
// for a single statement (txKeeping, execKeeping for tables nothing kept
// reads). Nothing else writes. tx is also where what the participants'
// pages keep is forgotten, so no caller has to remember it.

// tx runs fn in one write transaction on the writer connection and
// commits; after a commit what the participants' pages keep (crowd
// studies, their length, screen items, sessions' screens) is dropped,
// since fn may have changed any of it (forgetKept).
func (db *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	return db.commitTx(ctx, fn, true)
}

// txKeeping is tx for a write to tables nothing kept is read from — the
// audit log, admin sessions, scoring jobs and their results, the
// questionnaires — so the participants' kept pages stay: a scoring job
// saving its answers, or an admin page touching its session, would
// otherwise empty them at every commit.
func (db *DB) txKeeping(ctx context.Context, fn func(*sql.Tx) error) error {
	return db.commitTx(ctx, fn, false)
}

func (db *DB) commitTx(ctx context.Context, fn func(*sql.Tx) error, forget bool) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return db.noteWrite(classify(fmt.Errorf("begin: %w", err)))
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return db.noteWrite(classify(err))
	}
	if err := tx.Commit(); err != nil {
		return db.noteWrite(classify(fmt.Errorf("commit: %w", err)))
	}
	if forget {
		db.forgetKept()
	}
	db.noteCommit()
	return db.noteWrite(nil)
}

// forgetKept drops what the hot paths keep of the database — crowd
// studies and their length, screen items, sessions' screens — after a
// write they cannot follow: an admin commit (tx), or a write by another
// process.
func (db *DB) forgetKept() {
	db.hot.kept.Add(1)
	db.hot.studies.Clear()
	db.hot.lengths.Clear()
	db.hot.items.forget()
	db.hot.screens.forget()
}

// exec runs one statement as a write transaction of its own (tx).
func (db *DB) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.execTx(ctx, true, query, args...)
}

// execKeeping is exec through txKeeping.
func (db *DB) execKeeping(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.execTx(ctx, false, query, args...)
}

func (db *DB) execTx(ctx context.Context, forget bool, query string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := db.commitTx(ctx, func(tx *sql.Tx) error {
		var err error
		res, err = tx.ExecContext(ctx, query, args...)
		return err
	}, forget)
	return res, err
}

// Reader is the read pool, for queries that need no write lock.
func (db *DB) Reader() *sql.DB { return db.read }

// Writer is the single write connection.
func (db *DB) Writer() *sql.DB { return db.write }

// Backup writes a consistent copy of the live database to file with
// SQLite's online backup API, a few pages at a time so writers are never
// held up for long.
func (db *DB) Backup(ctx context.Context, file string) error {
	// The copy holds the session keys too: readable by its owner only. An
	// empty file is an empty database to SQLite, which then fills it.
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup to %s: %w", file, err)
	}
	f.Close()
	conn, err := db.read.Conn(ctx)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		b, ok := dc.(interface {
			NewBackup(string) (*sqlite.Backup, error)
		})
		if !ok {
			return fmt.Errorf("the SQLite driver has no backup API")
		}
		bk, err := b.NewBackup(file)
		if err != nil {
			return err
		}
		for {
			more, err := bk.Step(256)
			if err != nil {
				bk.Finish()
				return err
			}
			if !more {
				break
			}
			if ctx.Err() != nil {
				bk.Finish()
				return ctx.Err()
			}
		}
		return bk.Finish()
	})
	if err != nil {
		return fmt.Errorf("backup to %s: %w", file, err)
	}
	return nil
}
