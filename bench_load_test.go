package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pragmalab/store"
)

// TestCrashChildServer is the server process of TestAnswersSurviveKill: the
// test binary run again as `pragmalab serve`.
func TestCrashChildServer(t *testing.T) {
	spec := os.Getenv("PRAGMALAB_CRASH_CHILD")
	if spec == "" {
		t.Skip("helper process of TestAnswersSurviveKill")
	}
	addr, file, _ := strings.Cut(spec, "|")
	env := &cli{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: os.Stderr}
	if err := run(context.Background(), []string{"serve", "--addr", addr, "--db", file, "--demo=false"}, env); err != nil {
		t.Fatal(err)
	}
}

// TestAnswersSurviveKill kills the server with SIGKILL while 30 participants
// are answering, starts it again on the same database file, and checks that
// every acknowledged answer is stored exactly once and that everybody
// carries on from where they were to the end.
func TestAnswersSurviveKill(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crash.db")
	db, err := store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 30
	study, err := setupLoadStudy(ctx, db, n)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	r := newLoadRun("http://"+addr, study, n)
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChildServer$")
		cmd.Env = append(os.Environ(), "PRAGMALAB_CRASH_CHILD="+addr+"|"+file)
		return cmd
	}
	var log strings.Builder
	if err := crashRun(ctx, r, newCmd, addr, 400, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "killed the server") {
		t.Fatal("the run ended before the kill")
	}
	rep, err := r.verify(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if r.failed.Load() > 0 {
		t.Fatalf("%d participants failed: %v", r.failed.Load(), r.errs[0])
	}
	if rep.lost != 0 || rep.duplicated != 0 || rep.completed != n || rep.stored != n*study.Screens {
		t.Fatalf("after the crash: %+v; want 0 lost, 0 duplicated, %d completed, %d stored", rep, n, n*study.Screens)
	}
	if rep.acked < 400 {
		t.Fatalf("only %d answers acknowledged", rep.acked)
	}
	if len(r.resumed) == 0 {
		t.Fatal("no participant met the dead server")
	}
	if err := r.checkResumed(); err != nil {
		t.Fatal(err)
	}
}
