package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pragmalab/domain"
	"pragmalab/replica"
	"pragmalab/studies"
)

// replicaFlags are serve's flags of the replication
// (docs/deploy.md#replication).
type replicaFlags struct {
	url    *string
	maxLag *time.Duration
}

func addReplicaFlags(fs *flag.FlagSet, env *Env) replicaFlags {
	return replicaFlags{
		url:    fs.String("replica", env.getenv("PRAGMALAB_REPLICA"), "replicate the database continuously with Litestream to this URL: file:///path, s3://bucket/path[?endpoint=…&region=…], sftp://user@host/path, or tigris (Fly's bucket secrets); credentials come from the environment (env PRAGMALAB_REPLICA)"),
		maxLag: fs.Duration("replica-max-lag", replica.DefaultMaxLag, "replication lag past which /healthz reports degraded"),
	}
}

// target checks --replica: nil when there is none (or the tigris keyword
// without Fly's secrets, which is said in the log).
func (f replicaFlags) target(env *Env, log *slog.Logger) (*replica.Target, error) {
	if *f.url == "" {
		return nil, nil
	}
	if *f.maxLag < time.Second {
		return nil, usagef("serve: --replica-max-lag must be at least 1s")
	}
	t, err := replica.Parse(*f.url, env.getenv)
	if errors.Is(err, replica.ErrNoTigrisBucket) {
		log.Warn(err.Error())
		return nil, nil
	}
	if err != nil {
		return nil, usagef("serve: --replica: %v", err)
	}
	return &t, nil
}

// restoreIfMissing brings the database back from the replica when serve
// starts with a replica and no database file: a new machine, or a lost
// volume (docs/deploy.md#moving-a-study-to-a-new-machine). A replica with
// no backup yet means a first start.
func restoreIfMissing(ctx context.Context, t *replica.Target, dbPath string, env *Env, log *slog.Logger) error {
	if t == nil {
		return nil
	}
	if _, err := os.Lstat(dbPath); err == nil {
		return nil
	}
	msg, err := restoreInto(ctx, *t, dbPath, time.Time{}, env)
	if errors.Is(err, replica.ErrNoBackup) {
		log.Info("no database here and none in the replica yet: starting a new one", "replica", t.Display)
		return nil
	}
	if err != nil {
		return fmt.Errorf("serve: no database at %s, and restoring it from the replica failed: %w", dbPath, err)
	}
	log.Info("no database here: " + msg)
	return nil
}

// replication is serve's running replica, nil-safe.
type replication struct{ r *replica.Replicator }

// startReplication starts Litestream on the database serve has opened.
func startReplication(ctx context.Context, t *replica.Target, f replicaFlags, dbPath string, env *Env, log *slog.Logger) (*replication, error) {
	if t == nil {
		return &replication{}, nil
	}
	r, err := replica.Start(ctx, replica.Options{Target: *t, DB: dbPath, Getenv: env.getenv, Log: log, MaxLag: *f.maxLag})
	if err != nil {
		return nil, err
	}
	log.Info("replicating the database with Litestream", "replica", t.Display)
	return &replication{r: r}, nil
}

// status is the web server's view of the replica; nil without one.
func (r *replication) status() func() domain.Replication {
	if r.r == nil {
		return nil
	}
	return r.r.Status
}

// stop stops Litestream once the database is closed, giving it 10 s to
// upload the last transactions (fly.toml's kill_timeout leaves room for
// the server's 15 s and these).
func (r *replication) stop(log *slog.Logger) {
	if r.r == nil {
		return
	}
	if err := r.r.Stop(10 * time.Second); err != nil {
		log.Error(err.Error())
	}
}

const restoreUsage = `Usage: pragmalab restore --replica URL [--db FILE] [--timestamp T]

Restores the database from its Litestream replica into FILE, a new file:
the latest state, or the state at time T. The result is checked
(quick_check, foreign keys, migrations) before it is put in place; an
existing file is never overwritten. Then start the server on FILE.
Credentials come from the environment, as for serve --replica.

`

// runRestore is `pragmalab restore`.
func runRestore(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("restore", restoreUsage, env)
	rawURL := fs.String("replica", env.getenv("PRAGMALAB_REPLICA"), "the replica's URL, as given to serve --replica (env PRAGMALAB_REPLICA)")
	out := dbFlag(fs, env)
	ts := fs.String("timestamp", "", "restore the state at this time (RFC 3339, e.g. 2026-12-02T14:05:00Z); default: the latest")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *rawURL == "" {
		return usagef("restore: --replica is required")
	}
	t, err := replica.Parse(*rawURL, env.getenv)
	if err != nil {
		return usagef("restore: --replica: %v", err)
	}
	var at time.Time
	if *ts != "" {
		if at, err = replica.ParseTimestamp(*ts); err != nil {
			return usagef("restore: %v", err)
		}
	}
	for _, f := range []string{*out, *out + "-wal", *out + "-shm"} {
		if _, err := os.Lstat(f); err == nil {
			return usagef("restore: %s already exists; restore writes a new file and never overwrites one (move it away, or give another --db)", f)
		}
	}
	dir := filepath.Dir(*out)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("restore: the directory %s does not exist", dir)
	}
	when := "latest state"
	if !at.IsZero() {
		when = "state at " + at.Format(time.RFC3339)
	}
	fmt.Fprintf(env.stdout, "restoring the %s of %s …\n", when, t.Display)
	msg, err := restoreInto(ctx, t, *out, at, env)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintln(env.stdout, msg)
	return nil
}

// restoreInto restores the replica t (at a time, or the latest) into the
// new file out, checked, and says what it brought back.
func restoreInto(ctx context.Context, t replica.Target, out string, at time.Time, env *Env) (string, error) {
	dir := filepath.Dir(out)
	// Restored and checked under a temporary name beside the target, then
	// linked into place, so FILE is either absent or whole and checked.
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.restoring-%d", filepath.Base(out), os.Getpid()))
	removeTmp := func() {
		for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			os.Remove(f)
		}
	}
	defer removeTmp()
	res, err := replica.Restore(ctx, t, tmp, at, env.getenv)
	if err != nil {
		return "", err
	}
	check, err := studies.CheckDatabase(ctx, tmp)
	if err != nil {
		return "", fmt.Errorf("checking the restored file: %w", err)
	}
	if !check.OK() {
		return "", fmt.Errorf("the restored file failed its checks, and was removed: %s", checkText(check))
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return "", err
	}
	for _, f := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(tmp + f); err == nil {
			return "", fmt.Errorf("the restored file left a %s file behind; it was not put in place", f)
		}
	}
	if err := os.Link(tmp, out); err != nil {
		return "", fmt.Errorf("putting the restored file in place: %w", err)
	}
	return fmt.Sprintf("restored to %s (Litestream transaction %s): %s", out, res.TXID, checkText(check)), nil
}

// checkText says what the checks of a restored file found.
func checkText(c domain.DatabaseCheck) string {
	var parts []string
	qc := strings.Join(c.QuickCheck, "; ")
	if len(qc) > 300 {
		qc = qc[:300] + " …"
	}
	parts = append(parts, "quick_check "+qc)
	if c.ForeignKeyErrors == 0 {
		parts = append(parts, "foreign keys ok")
	} else {
		parts = append(parts, fmt.Sprintf("%d foreign key errors", c.ForeignKeyErrors))
	}
	m := fmt.Sprintf("%d migrations (schema %04d)", c.Migrations, c.SchemaVersion)
	if len(c.UnknownMigrations) > 0 {
		m += fmt.Sprintf(", %d unknown to this binary (%v): made by a newer pragmalab, run that one", len(c.UnknownMigrations), c.UnknownMigrations)
	}
	if len(c.PendingMigrations) > 0 {
		m += fmt.Sprintf(", %d to apply at the next start", len(c.PendingMigrations))
	}
	parts = append(parts, m)
	parts = append(parts, fmt.Sprintf("%d studies, %d answers", c.Studies, c.Answers))
	return strings.Join(parts, ", ")
}
