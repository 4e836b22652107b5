package cli

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"pragmalab/replica"
	"pragmalab/replica/replicatest"
	"pragmalab/studies"
)

// TestReplicaChildServer is the server of TestReplicaSurvivesMachineLoss:
// the test binary run again as `pragmalab serve --replica URL`.
func TestReplicaChildServer(t *testing.T) {
	spec := os.Getenv("PRAGMALAB_REPLICA_CHILD")
	if spec == "" {
		t.Skip("helper process of TestReplicaSurvivesMachineLoss")
	}
	parts := strings.SplitN(spec, "|", 3)
	env := &Env{getenv: os.Getenv, stdin: strings.NewReader(""), stdout: io.Discard, stderr: os.Stderr}
	if err := Run(context.Background(), []string{"serve", "--addr", parts[0], "--db", parts[1], "--replica", parts[2], "--demo=false", "--entry-limit", "0"}, env); err != nil {
		t.Fatal(err)
	}
}

// TestReplicaSurvivesMachineLoss is the recovery point, measured
// (docs/deploy.md#recovery-point): participants answer a server that
// replicates to a file:// replica; the server is killed with SIGKILL (its
// Litestream with it) and the database, its log and Litestream's local
// state are deleted, as with a lost machine. The replica, restored,
// holds every answer acknowledged more than the documented recovery point
// before the loss, none twice, and passes quick_check.
func TestReplicaSurvivesMachineLoss(t *testing.T) {
	bin := replicatest.Litestream(t)
	ctx := context.Background()
	dir := t.TempDir()
	machine := filepath.Join(dir, "machine")
	if err := os.Mkdir(machine, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(machine, "pragmalab.db")
	replicaURL := "file://" + filepath.Join(dir, "replica")
	svc, err := openApp(ctx, file, studies.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 80
	study, err := setupLoadStudy(ctx, svc, n)
	svc.Close()
	if err != nil {
		t.Fatal(err)
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	var serverLog strings.Builder
	srv, err := startServerProc(ctx, func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaChildServer$")
		cmd.Env = append(os.Environ(), "PRAGMALAB_REPLICA_CHILD="+addr+"|"+file+"|"+replicaURL, "PRAGMALAB_LITESTREAM="+bin)
		cmd.Stdout, cmd.Stderr = io.Discard, &serverLog
		return cmd
	}, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.cmd.Process.Kill(); srv.cmd.Wait() }()

	// Participants answer for longer than the recovery point, and are
	// still answering at the kill.
	r := newLoadRun("http://"+addr, study, n)
	r.think, r.ramp = 500*time.Millisecond, 2*time.Second
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { r.runAll(rctx, true); close(done) }()
	promise := replica.DefaultMaxLag
	for {
		select {
		case <-done:
			t.Fatal("the participants finished before the kill")
		case <-time.After(20 * time.Millisecond):
		}
		if r.ackedBefore(time.Now().Add(-promise)) >= 300 {
			break
		}
	}
	// The promise holds while the server reports itself healthy.
	health := httpGet(t, "http://"+addr+"/healthz")
	killAt := time.Now()
	srv.cmd.Process.Signal(syscall.SIGKILL)
	srv.cmd.Wait()
	stop()
	<-done
	if !strings.HasPrefix(health, "ok") {
		t.Fatalf("before the kill /healthz said %q: replication lagged under this load; server log:\n%s", health, serverLog.String())
	}
	// The machine is lost: the database, its log and Litestream's state.
	if err := os.RemoveAll(machine); err != nil {
		t.Fatal(err)
	}

	restored := filepath.Join(dir, "restored.db")
	code, out, errOut := runCLI(t, "", map[string]string{"PRAGMALAB_LITESTREAM": bin}, "restore", "--replica", replicaURL, "--db", restored)
	if code != 0 {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "quick_check ok, foreign keys ok") {
		t.Fatalf("restore output: %s", out)
	}
	svc, err = openApp(ctx, restored, studies.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	rows, err := svc.seed().CrowdAnswerRows(ctx, study.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]map[int][]int{}
	for _, row := range rows {
		if row.Position == nil {
			continue
		}
		if stored[row.PID] == nil {
			stored[row.PID] = map[int][]int{}
		}
		stored[row.PID][*row.Position] = append(stored[row.PID][*row.Position], *row.Rating)
	}
	var old, oldLost, young, youngKept, dup, wrong int
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range n {
		pid := loadPID(i)
		for pos, rs := range stored[pid] {
			dup += len(rs) - 1
			if rs[0] != loadRating(i, pos) {
				wrong++
			}
		}
		for pos, at := range r.ackAt[i] {
			in := len(stored[pid][pos]) > 0
			if killAt.Sub(at) > promise {
				old++
				if !in {
					oldLost++
				}
			} else {
				young++
				if in {
					youngKept++
				}
			}
		}
	}
	t.Logf("answers acknowledged more than %s before the loss: %d, lost %d; in the last %s: %d, %d of them restored too", promise, old, oldLost, promise, young, youngKept)
	if old < 300 {
		t.Fatalf("only %d answers older than the recovery point: the test proves little", old)
	}
	if oldLost > 0 || dup > 0 || wrong > 0 {
		t.Fatalf("restored replica: %d of %d answers older than %s lost, %d duplicated, %d with another rating", oldLost, old, promise, dup, wrong)
	}
}

func httpGet(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// ackedBefore counts the answers acknowledged before t.
func (r *loadRun) ackedBefore(t time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.ackAt {
		for _, at := range m {
			if at.Before(t) {
				n++
			}
		}
	}
	return n
}
