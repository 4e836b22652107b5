package cli

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
)

// flaggedFixture is prolificFixture with participant 1's answers carrying
// the honeypot and webdriver flags, linked and synced.
func flaggedFixture(t *testing.T) (file, study string, fake *prolifictest.Server, vars map[string]string) {
	t.Helper()
	ctx := context.Background()
	file, cs, fake, vars := prolificFixture(t)
	db, err := store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	parts, _ := db.CrowdParticipants(ctx, cs.ID, set)
	_, err = db.Writer().ExecContext(ctx, `UPDATE crowd_ratings SET honeypot = 'x', webdriver = 1 WHERE participant_id = ?`, parts[0].ID)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	study = strconv.FormatInt(cs.ID, 10)
	runCLI(t, "", vars, "prolific", "link", "--prolific-study", cliProlificStudy, "--study", study, "--db", file)
	runCLI(t, "", vars, "prolific", "sync", "--study", study, "--db", file)
	return file, study, fake, vars
}

func TestProlificFlagsCommand(t *testing.T) {
	file, study, fake, vars := flaggedFixture(t)
	run := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, "", vars, append(append([]string{"prolific", "flags"}, args...), "--study", study, "--db", file)...)
	}
	code, out, errOut := run()
	if code != 0 || !strings.Contains(out, "honeypot, webdriver") || !strings.Contains(out, "nothing sent") || len(fake.SignalUploads()) != 0 {
		t.Fatalf("preview: %d %q %q", code, out, errOut)
	}
	code, out, errOut = run("--yes")
	if code != 0 || !strings.Contains(out, "no submission was rejected") || len(fake.SignalUploads()) != 1 {
		t.Fatalf("send: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run("--yes"); code != 1 || !strings.Contains(errOut, "already sent") || len(fake.SignalUploads()) != 1 {
		t.Fatalf("again: %d %q", code, errOut)
	}
	if fake.Status("sub1") != prolific.StatusAwaitingReview {
		t.Errorf("the flagged submission is %s, want it untouched", fake.Status("sub1"))
	}
}

// TestProlificFlagsKilledMidUploadSentOnce kills `pragmalab prolific flags
// --yes` after the file reached Prolific and before the answer was
// recorded; the retry uploads nothing and says why. The killed process is
// TestProlificChildPay, which runs whatever command it is given.
func TestProlificFlagsKilledMidUploadSentOnce(t *testing.T) {
	file, study, fake, vars := flaggedFixture(t)
	args := []string{"prolific", "flags", "--study", study, "--yes", "--db", file}
	err := killMidCall(t, fake, args, fake.SetAfterSignalUpload)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ProcessState.Success() || len(fake.SignalUploads()) != 1 {
		t.Fatalf("child ended with %v after %d uploads; want it killed after one", err, len(fake.SignalUploads()))
	}
	code, out, errOut := runCLI(t, "", vars, args...)
	if code != 1 || !strings.Contains(errOut, "never came") || !strings.Contains(errOut, "nothing was sent again") {
		t.Fatalf("retry: exit %d\n%s%s", code, out, errOut)
	}
	if len(fake.SignalUploads()) != 1 || fake.Calls("PUT signals-upload") != 1 {
		t.Fatalf("the retry uploaded again: %d files", len(fake.SignalUploads()))
	}
	// The journal holds the call, pending.
	db, err := store.Open(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	calls, _ := db.ProlificCalls(context.Background(), mustAtoi(t, study))
	pending := 0
	for _, c := range calls {
		if c.Kind == domain.CallSignals && c.State == domain.CallPending {
			pending++
		}
	}
	if pending != 1 {
		t.Fatalf("%d pending uploads in the journal, want 1", pending)
	}
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
