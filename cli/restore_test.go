package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pragmalab/studies"
)

// restore refuses what it cannot do safely, before touching anything.
func TestRestoreRefuses(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "live.db")
	os.WriteFile(existing, []byte("answers"), 0o600)
	noLitestream := map[string]string{"PATH": t.TempDir()}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"restore", "--db", filepath.Join(dir, "new.db")}, 2, "--replica is required"},
		{[]string{"restore", "--replica", "file:///r", "--db", existing}, 2, "already exists; restore writes a new file and never overwrites one"},
		{[]string{"restore", "--replica", "ftp://host/r", "--db", filepath.Join(dir, "new.db")}, 2, "use one of file://, s3://, sftp://"},
		{[]string{"restore", "--replica", "file:///r", "--db", filepath.Join(dir, "new.db"), "--timestamp", "last tuesday"}, 2, "RFC 3339"},
		{[]string{"restore", "--replica", "file:///r", "--db", filepath.Join(dir, "nodir", "new.db")}, 2, "does not exist"},
	} {
		code, _, errOut := runCLI(t, "", noLitestream, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "answers" {
		t.Fatal("the existing file was touched")
	}
	// Without Litestream the message says how to get it, for serve too.
	code, _, errOut := runCLI(t, "", noLitestream, "restore", "--replica", "file:///r", "--db", filepath.Join(dir, "new.db"))
	if code != 1 || !strings.Contains(errOut, "go install github.com/benbjohnson/litestream/cmd/litestream@") {
		t.Errorf("restore without litestream: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", map[string]string{"PATH": t.TempDir(), "PRAGMALAB_REPLICA": "file://" + filepath.Join(dir, "replica")}, "serve", "--db", filepath.Join(dir, "served.db"), "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errOut, "no litestream program is on PATH") {
		t.Errorf("serve --replica without litestream: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", nil, "serve", "--db", filepath.Join(dir, "served.db"), "--replica", "s3://AKIA:secret@bucket/p")
	if code != 2 || !strings.Contains(errOut, "no credentials in the URL") || strings.Contains(errOut, "secret@") {
		t.Errorf("serve with credentials in the URL: exit %d %q", code, errOut)
	}
}

// The checks of a restored file: a pragmalab database passes; a file from
// a newer pragmalab (a migration this binary lacks) does not.
func TestCheckDatabase(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "a.db")
	svc, err := openApp(ctx, file, studies.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setupLoadStudy(ctx, svc, 10); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	c, err := studies.CheckDatabase(ctx, file)
	if err != nil || !c.OK() || c.Studies != 1 || len(c.PendingMigrations) != 0 {
		t.Fatalf("check: %+v %v", c, err)
	}
	if !strings.Contains(checkText(c), "quick_check ok, foreign keys ok") {
		t.Fatalf("check text: %s", checkText(c))
	}
	db, err := openApp(ctx, file, studies.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	// A newer binary's migration.
	if err := sqliteExec(file, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', '2027-01-01')`); err != nil {
		t.Fatal(err)
	}
	c, err = studies.CheckDatabase(ctx, file)
	if err != nil || c.OK() || len(c.UnknownMigrations) != 1 || !strings.Contains(checkText(c), "made by a newer pragmalab") {
		t.Fatalf("check of a newer file: %+v %v", c, err)
	}
}

// sqliteExec runs one statement on a database file (the driver is the
// store's).
func sqliteExec(file, stmt string) error {
	db, err := sql.Open("sqlite", file)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(stmt)
	return err
}
