package cli

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/prolific/prolifictest"
)

func TestProlificCLIScreeningEligibleAndReturn(t *testing.T) {
	file, cs, fake, vars := prolificFixture(t)
	study := strconv.FormatInt(cs.ID, 10)
	run := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, "", vars, append(append([]string{"prolific"}, args...), "--study", study, "--db", file)...)
	}
	if code, out, errOut := run("filters", "--add", "first-language=Italian,German", "--range", "age=18:20"); code != 0 ||
		!strings.Contains(out, "would become:\n  first-language=Italian,German\n  age=18:20") || !strings.Contains(out, "nothing saved") {
		t.Fatalf("preview: %d %q %q", code, out, errOut)
	}
	if code, out, _ := run("filters"); code != 0 || !strings.Contains(out, "none (everybody") {
		t.Errorf("a preview saved: %q", out)
	}
	if code, _, errOut := run("filters", "--add", "first-langage=Italian", "--yes"); code != 1 || !strings.Contains(errOut, "did you mean first-language") {
		t.Errorf("unknown filter: %d %q", code, errOut)
	}
	if code, _, errOut := run("filters", "--range", "age=40:18", "--yes"); code != 1 || !strings.Contains(errOut, "above the upper bound") {
		t.Errorf("LO > HI: %d %q", code, errOut)
	}
	if code, out, errOut := run("filters", "--add", "first-language=Italian", "--range", "age=18:20", "--yes"); code != 0 || !strings.Contains(out, "screening saved") {
		t.Fatalf("save: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := run("eligible"); code != 0 || !strings.Contains(out, "eligible participants: fewer than 25") || !strings.Contains(out, "warning:") {
		t.Errorf("eligible: %d %q %q", code, out, errOut)
	}
	run("link", "--prolific-study", cliProlificStudy)
	run("sync")
	if code, out, _ := run("return", "--participant", prolifictest.PID(1), "--reason", "Encountered technical problems"); code != 0 || !strings.Contains(out, "nothing sent") || fake.ReturnRequests("sub1") != 0 {
		t.Errorf("return preview: %d %q", code, out)
	}
	if code, out, errOut := run("return", "--participant", prolifictest.PID(1), "--reason", "Encountered technical problems", "--yes"); code != 0 || fake.ReturnRequests("sub1") != 1 {
		t.Errorf("return: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run("return", "--participant", prolifictest.PID(1), "--reason", "Encountered technical problems", "--yes"); code != 1 || !strings.Contains(errOut, "already asked") || fake.ReturnRequests("sub1") != 1 {
		t.Errorf("return again: %d %q", code, errOut)
	}
}

func TestProlificCLIInboxAndTestParticipant(t *testing.T) {
	file, cs, fake, vars := prolificFixture(t)
	study := strconv.FormatInt(cs.ID, 10)
	run := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, "", vars, append(append([]string{"prolific"}, args...), "--study", study, "--db", file)...)
	}
	run("link", "--prolific-study", cliProlificStudy)
	run("sync")
	fake.AddInbound(prolifictest.PID(1), cliProlificStudy, "Old question", time.Now().Add(-time.Hour), false)
	fake.AddInbound(prolifictest.PID(2), cliProlificStudy, "Did my answers save?", time.Now().Add(-2*time.Hour), true)
	code, out, errOut := run("inbox")
	if code != 0 || !strings.Contains(out, "UNREAD") || strings.Index(out, "Did my answers save?") > strings.Index(out, "Old question") {
		t.Errorf("inbox: %d %q %q", code, out, errOut)
	}
	if code, out, _ := run("test-participant", "--email", "me@lab.example"); code != 0 || !strings.Contains(out, "nothing sent") || len(fake.TestParticipants()) != 0 {
		t.Errorf("preview: %d %q", code, out)
	}
	if code, out, errOut := run("test-participant", "--email", "me@lab.example", "--yes"); code != 0 || !strings.Contains(out, "test participant") || len(fake.TestParticipants()) != 1 {
		t.Errorf("create: %d %q %q", code, out, errOut)
	}
}

// TestProlificReturnKilledMidCallSentOnce kills `pragmalab prolific
// return` after Prolific carried out the request and before its answer
// reached pragmalab; the retry sends nothing and says why. The killed
// process is TestProlificChildPay, which runs whatever command it is given.
func TestProlificReturnKilledMidCallSentOnce(t *testing.T) {
	file, cs, fake, vars := prolificFixture(t)
	study := strconv.FormatInt(cs.ID, 10)
	runCLI(t, "", vars, "prolific", "link", "--prolific-study", cliProlificStudy, "--study", study, "--db", file)
	runCLI(t, "", vars, "prolific", "sync", "--study", study, "--db", file)

	args := []string{"prolific", "return", "--study", study, "--participant", prolifictest.PID(2), "--reason", "Withdrew consent", "--yes", "--db", file}
	err := killMidCall(t, fake, args, fake.SetAfterReturn)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ProcessState.Success() || fake.ReturnRequests("sub2") != 1 {
		t.Fatalf("child ended with %v after %d requests; want it killed after one", err, fake.ReturnRequests("sub2"))
	}
	code, out, errOut := runCLI(t, "", vars, args...)
	if code != 1 || !strings.Contains(errOut, "never came") || !strings.Contains(errOut, "nothing was sent again") {
		t.Fatalf("retry: exit %d\n%s%s", code, out, errOut)
	}
	if fake.ReturnRequests("sub2") != 1 || fake.Calls("POST request-return") != 1 {
		t.Fatalf("the retry asked again: %d requests", fake.ReturnRequests("sub2"))
	}
}
