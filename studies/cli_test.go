package studies

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// TestOpenBackupAndReopen: a Service opened on a file takes a backup that
// opens as a database of its own with the same study, and refuses to
// overwrite a file.
func TestOpenBackupAndReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	svc, err := Open(ctx, filepath.Join(dir, "live.db"), OpenOptions{Synchronous: "PIPELINED"})
	if err != nil {
		t.Fatal(err)
	}
	st := &domain.Study{Kind: domain.KindExpert, Name: "kept", Lang: "en"}
	if err := svc.db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	copyFile := filepath.Join(dir, "copy.db")
	if err := svc.db.Backup(ctx, copyFile); err != nil {
		t.Fatal(err)
	}
	if err := svc.db.Backup(ctx, copyFile); err == nil {
		t.Fatal("a second backup over the first one was not refused")
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, filepath.Join(dir, "x.db"), OpenOptions{Synchronous: "SOMETIMES"}); err == nil {
		t.Fatal("an unknown durability mode was accepted")
	}
	back, err := Open(ctx, copyFile, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	got, err := back.db.Study(ctx, st.ID)
	if err != nil || got.Name != "kept" {
		t.Fatalf("the backup's study %d: %+v, %v", st.ID, got, err)
	}
	if _, err := back.db.Study(ctx, st.ID+1); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a study that does not exist: %v, want ENOTFOUND", err)
	}
}

// TestImportPassageFileAllOrNothing: a bad row is an *itemfiles.ImportError, imports
// nothing and writes no audit entry; a good file is imported and audited
// by its base name.
func TestImportPassageFileAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	svc := New(db, nil)
	st := &domain.Study{Kind: domain.KindContext, Name: "ctx", Lang: "it"}
	if err := svc.db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	sample, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(sample), "\n")
	bad := lines[0] + lines[1] + "only\tthree\tcolumns\n"
	_, err = svc.ImportPassageFile(ctx, "command line", st, "/tmp/bad.tsv", strings.NewReader(bad))
	var ie *itemfiles.ImportError
	if !errors.As(err, &ie) {
		t.Fatalf("bad row: %v, want an *ImportError", err)
	}
	if log, _ := db.AuditLog(ctx, st.ID, 0); len(log) != 0 {
		t.Fatalf("a refused import was audited: %+v", log)
	}
	n, err := svc.ImportPassageFile(ctx, "command line", st, "/somewhere/sample.tsv", strings.NewReader(string(sample)))
	if err != nil || n == 0 {
		t.Fatalf("sample: %d passages, %v", n, err)
	}
	log, err := db.AuditLog(ctx, st.ID, 0)
	if err != nil || len(log) != 1 || log[0].Action != "import items" || log[0].Detail != fmt.Sprintf("%d passages from sample.tsv", n) {
		t.Fatalf("audit log %+v, %v", log, err)
	}
}
