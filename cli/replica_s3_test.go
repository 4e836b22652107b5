package cli

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pragmalab/replica"
	"pragmalab/replica/replicatest"
	"pragmalab/studies"
)

// waitFor polls cond until it holds, failing after timeout with what.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting %s for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An s3:// replica on an S3-compatible endpoint (an in-process fake S3)
// receives the database and gives it back whole through restore, the
// credentials coming from the environment only.
func TestS3ReplicaRoundTrip(t *testing.T) {
	bin := replicatest.Litestream(t)
	fake := replicatest.NewFakeS3(t, "AKIDPRAGMALAB")
	env := map[string]string{"PRAGMALAB_LITESTREAM": bin, "AWS_ACCESS_KEY_ID": "AKIDPRAGMALAB", "AWS_SECRET_ACCESS_KEY": "not-checked", "AWS_REGION": "us-east-1"}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "live.db")
	svc, err := openApp(ctx, file, studies.OpenOptions{Replicated: true})
	if err != nil {
		t.Fatal(err)
	}
	url := "s3://lab/pragmalab?endpoint=" + fake.URL + "&region=us-east-1"
	target, err := replica.Parse(url, getenv)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replica.Start(ctx, replica.Options{Target: target, DB: file, Getenv: getenv, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	study, err := setupLoadStudy(ctx, svc, 20)
	if err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	waitFor(t, time.Minute, "the replica to hold the study", func() bool { return rep.Status().SyncedThrough.After(written) })
	if st := rep.Status(); st.Error != "" || st.ReplicatedTXID == 0 || st.Replica != url {
		t.Fatalf("status: %+v", st)
	}
	svc.Close()
	if err := rep.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if keys := fake.Keys("lab"); len(keys) == 0 || !strings.HasPrefix(keys[0], "pragmalab/") {
		t.Fatalf("objects in the bucket: %v", keys)
	}

	restored := filepath.Join(dir, "restored.db")
	code, out, errOut := runCLI(t, "", env, "restore", "--replica", url, "--db", restored)
	if code != 0 || !strings.Contains(out, "quick_check ok, foreign keys ok") || !strings.Contains(out, "1 studies") {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errOut)
	}
	back, err := openApp(ctx, restored, studies.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	cond, err := back.seed().CrowdTrainingConditions(ctx, study.ID)
	if err != nil || len(cond) != len(study.Training) {
		t.Fatalf("the restored study's training: %v %v, want %v", cond, err, study.Training)
	}
	// Without the keys in the environment, nothing is read.
	delete(env, "AWS_ACCESS_KEY_ID")
	env["AWS_ACCESS_KEY_ID"] = "AKIDWRONG"
	code, _, errOut = runCLI(t, "", env, "restore", "--replica", url, "--db", filepath.Join(dir, "again.db"))
	if code == 0 || !strings.Contains(errOut, "InvalidAccessKeyId") && !strings.Contains(errOut, "403") {
		t.Fatalf("restore with a wrong key: exit %d %s", code, errOut)
	}
}

// serve on a new machine — a replica, no database file — restores the
// database before starting; with an empty replica it starts a new one.
func TestServeRestoresMissingDatabase(t *testing.T) {
	bin := replicatest.Litestream(t)
	env := map[string]string{"PRAGMALAB_LITESTREAM": bin}
	e := &Env{getenv: func(k string) string { return env[k] }, stdout: io.Discard, stderr: io.Discard}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	dir := t.TempDir()
	target, err := replica.Parse("file://"+filepath.Join(dir, "replica"), e.getenv)
	if err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh.db")
	if err := restoreIfMissing(ctx, &target, fresh, e, log); err != nil {
		t.Fatalf("empty replica: %v", err)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Fatal("an empty replica made a database file")
	}

	old := filepath.Join(dir, "old.db")
	svc, err := openApp(ctx, old, studies.OpenOptions{Replicated: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replica.Start(ctx, replica.Options{Target: target, DB: old, Getenv: e.getenv, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	study, err := setupLoadStudy(ctx, svc, 10)
	if err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	waitFor(t, time.Minute, "the replica to hold the study", func() bool { return rep.Status().SyncedThrough.After(written) })
	svc.Close()
	rep.Stop(10 * time.Second)

	moved := filepath.Join(dir, "new-machine.db")
	if err := restoreIfMissing(ctx, &target, moved, e, log); err != nil {
		t.Fatal(err)
	}
	back, err := openApp(ctx, moved, studies.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if cond, err := back.seed().CrowdTrainingConditions(ctx, study.ID); err != nil || len(cond) != len(study.Training) {
		t.Fatalf("the study on the new machine: %v %v", cond, err)
	}
	// An existing file is left alone.
	before, _ := os.ReadFile(old)
	if err := restoreIfMissing(ctx, &target, old, e, log); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(old); string(after) != string(before) {
		t.Fatal("an existing database was replaced")
	}
}
