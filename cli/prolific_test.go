package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
	"pragmalab/recruit"
	"pragmalab/store"
)

const cliProlificStudy = "64dddddddddddddddddddddd"

// prolificFixture is a database file holding prolifictest's crowd study,
// closed for the commands to open, and a fake Prolific holding the
// study's submissions; vars point the commands at the fake.
func prolificFixture(t *testing.T) (file string, cs *domain.Study, fake *prolifictest.Server, vars map[string]string) {
	t.Helper()
	ctx := context.Background()
	file = filepath.Join(t.TempDir(), "prolific.db")
	db, err := store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	cs, err = prolifictest.SeedCrowdStudy(ctx, db, cliProlificStudy)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	fake = prolifictest.NewServer("cli-test-token-0123456789")
	t.Cleanup(fake.Close)
	fake.AddFixtureSubmissions(cliProlificStudy)
	return file, cs, fake, map[string]string{prolific.TokenEnv: fake.Token, prolific.APIEnv: fake.URL}
}

// TestProlificChildPay is the process killMidCall kills: the test binary
// run again as the command it is given (prolific pay, return, flags).
func TestProlificChildPay(t *testing.T) {
	spec := os.Getenv("PRAGMALAB_PROLIFIC_CHILD")
	if spec == "" {
		t.Skip("helper process of killMidCall")
	}
	args := strings.Split(spec, "|")
	env := &Env{getenv: os.Getenv, stdin: strings.NewReader(""), stdout: os.Stdout, stderr: os.Stderr}
	Run(context.Background(), args, env)
	t.Fatal("the call returned: the parent should have killed this process")
}

// killMidCall runs args as a child process (TestProlificChildPay) against
// fake and kills it with SIGKILL inside the hook setHook sets: once
// Prolific has carried out the call and before its answer reaches the
// child. It returns how the child ended, with the hook removed.
func killMidCall(t *testing.T, fake *prolifictest.Server, args []string, setHook func(func(string))) error {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestProlificChildPay$")
	child.Env = append(os.Environ(), "PRAGMALAB_PROLIFIC_CHILD="+strings.Join(args, "|"),
		prolific.TokenEnv+"="+fake.Token, prolific.APIEnv+"="+fake.URL)
	killed := make(chan struct{})
	// The child may call before Start has set child.Process: the hook
	// takes the process from Start's side.
	started := make(chan *os.Process, 1)
	setHook(func(string) {
		proc := <-started
		started <- proc
		proc.Kill()
		<-killed
	})
	defer setHook(nil)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	started <- child.Process
	go func() {
		select {
		case <-killed:
		case <-time.After(60 * time.Second):
			child.Process.Kill()
		}
	}()
	waitErr := make(chan error, 1)
	go func() { waitErr <- child.Wait(); close(killed) }()
	return <-waitErr
}

// TestProlificPayKilledMidCallPaysOnce kills `pragmalab prolific pay` with
// SIGKILL after Prolific carried out the payment and before its answer
// reached pragmalab, then retries the command: nothing is paid again, and
// the retry says why.
func TestProlificPayKilledMidCallPaysOnce(t *testing.T) {
	ctx := context.Background()
	file, cs, fake, vars := prolificFixture(t)
	db, err := store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return vars[k] }
	if err := db.LinkProlific(ctx, cs.ID, cliProlificStudy); err != nil {
		t.Fatal(err)
	}
	p := recruit.New(db, getenv)
	if _, err := p.Sync(ctx, cs.ID); err != nil {
		t.Fatal(err)
	}
	plan, err := p.PlanBonuses(ctx, cs.ID, []recruit.BonusLine{{PID: prolifictest.PID(1), AmountCents: 50}})
	if err != nil {
		t.Fatal(err)
	}
	setup, err := p.SetUpBonuses(ctx, cs.ID, "alice", plan)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	args := []string{"prolific", "pay", "--study", strconv.FormatInt(cs.ID, 10), "--setup", setup.ID, "--yes", "--db", file}
	err = killMidCall(t, fake, args, fake.SetAfterPay)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ProcessState.Success() || fake.Pays() != 1 {
		t.Fatalf("child ended with %v after %d payments; want it killed after one", err, fake.Pays())
	}

	code, out, errOut := runCLI(t, "", vars, args...)
	if code != 1 || !strings.Contains(errOut, "never recorded") || !strings.Contains(errOut, "Nothing was sent again") {
		t.Fatalf("retry: exit %d\n%s%s", code, out, errOut)
	}
	if fake.Pays() != 1 || fake.Calls("POST pay") != 1 {
		t.Fatalf("the retry paid again: %d payments", fake.Pays())
	}
	// Once the researcher has checked on Prolific, the record says so and
	// the payment may be made again, on purpose.
	code, _, errOut = runCLI(t, "", vars, "prolific", "pay", "--study", strconv.FormatInt(cs.ID, 10), "--setup", setup.ID, "--not-sent", "--db", file)
	if code != 0 {
		t.Fatalf("--not-sent: exit %d %s", code, errOut)
	}
}

func TestProlificCLICheckAndApprove(t *testing.T) {
	ctx := context.Background()
	file, cs, fake, vars := prolificFixture(t)
	study := strconv.FormatInt(cs.ID, 10)
	if code, _, errOut := runCLI(t, "", nil, "prolific", "check", "--study", study, "--db", file); code != 1 || !strings.Contains(errOut, prolific.TokenEnv) {
		t.Errorf("check without a token: exit %d %s", code, errOut)
	}
	vars[prolific.TokenEnv] = "wrong"
	runCLI(t, "", vars, "prolific", "link", "--study", study, "--prolific-study", cliProlificStudy, "--db", file)
	if code, _, errOut := runCLI(t, "", vars, "prolific", "check", "--study", study, "--db", file); code != 1 || !strings.Contains(errOut, "refused the token") {
		t.Errorf("check with a bad token: exit %d %s", code, errOut)
	}
	vars[prolific.TokenEnv] = fake.Token
	code, out, errOut := runCLI(t, "", vars, "prolific", "approve", "--study", study, "--db", file)
	if code != 0 || !strings.Contains(out, "would approve 1 submissions") || fake.Calls("POST bulk-approve") != 0 {
		t.Fatalf("approve without --yes: exit %d %s %s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", vars, "prolific", "approve", "--study", study, "--yes", "--db", file)
	if code != 0 || !strings.Contains(out, "approved 1 submissions") || fake.Status("sub1") != prolific.StatusApproved {
		t.Fatalf("approve --yes: exit %d %s", code, out)
	}
	db, _ := store.Open(ctx, file)
	log, _ := db.AuditLog(ctx, cs.ID, 0)
	db.Close()
	if len(log) == 0 || log[0].Action != "approve Prolific submissions" || !strings.Contains(log[0].Detail, "sub1") {
		t.Errorf("the study's record of researcher actions: %+v", log)
	}
	code, out, _ = runCLI(t, "", vars, "prolific", "sync", "--study", study, "--db", file)
	if code != 0 || !strings.Contains(out, "never reached pragmalab: "+prolifictest.PID(4)) {
		t.Errorf("sync: %s", out)
	}
}
