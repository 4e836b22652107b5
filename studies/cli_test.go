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
	"pragmalab/store"
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

// TestCrowdAnswerRows: the load benchmark's read-back lists a participant
// who has answered nothing yet, not completed, with no rating.
func TestCrowdAnswerRows(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	svc := New(db, nil)
	st := &domain.Study{Kind: domain.KindCrowd, Name: "crowd", Lang: "en", Seed: 1}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode, set.BatchSize = "CODE", 8
	var items []domain.Item
	for i := range 8 + 6 {
		items = append(items, domain.Item{Key: fmt.Sprintf("i%02d", i), Type: domain.ItemTypes[i%4], Context: "S1: Hi.",
			Utterance: fmt.Sprintf("S2: Task %d is waiting.", i), Implicature: fmt.Sprintf("Do task %d.", i), Cancellation: "S2: It is done though."})
	}
	for i := range 4 {
		items = append(items, domain.Item{Key: fmt.Sprintf("check%d", i), Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x",
			Check: map[bool]string{true: "high", false: "low"}[i%2 == 0]})
	}
	if _, err := svc.SeedCrowdStudy(ctx, st, items, set); err != nil {
		t.Fatal(err)
	}
	training, err := svc.CrowdTrainingConditions(ctx, st.ID)
	if err != nil || len(training) != 6 {
		t.Fatalf("training %v, %v; want the 6 screens", training, err)
	}
	for _, c := range training {
		if c != domain.ConditionTrigger && c != domain.ConditionCancel {
			t.Fatalf("training conditions %v: want trigger or cancel", training)
		}
	}
	p, err := db.EnterCrowd(ctx, st.ID, store.CrowdArrival{PID: "5f0c1a2b3c4d5e6f7a8b9c0d", StudyID: "s", SessionID: "x"}, set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ConsentCrowd(ctx, st.ID, p.Token, set); err != nil {
		t.Fatal(err)
	}
	rows, err := svc.CrowdAnswerRows(ctx, st.ID)
	if err != nil || len(rows) != 1 || rows[0].PID != "5f0c1a2b3c4d5e6f7a8b9c0d" || rows[0].Completed || rows[0].Position != nil {
		t.Fatalf("rows %+v, %v; want the one participant, no rating", rows, err)
	}
}
