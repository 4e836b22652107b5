package cli

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
)

// TestProlificCLILife: places, cost, pause, messages and hooks from the
// command line show what they would send without --yes and send it once
// with it.
func TestProlificCLILife(t *testing.T) {
	ctx := context.Background()
	file, cs, fake, vars := prolificFixture(t)
	study := strconv.FormatInt(cs.ID, 10)
	run := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, "", vars, append(append([]string{"prolific"}, args...), "--study", study, "--db", file)...)
	}
	run("link", "--prolific-study", cliProlificStudy)

	if code, out, errOut := run("places", "--add", "2"); code != 0 || !strings.Contains(out, "places on Prolific: 10 → 12") ||
		!strings.Contains(out, "pragmalab's quota: 5 → 6 per batch") || !strings.Contains(out, "nothing sent") {
		t.Fatalf("places preview: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := run("places", "--add", "2", "--yes"); code != 0 || !strings.Contains(out, "places raised to 12") {
		t.Fatalf("places: %d %s %s", code, out, errOut)
	}
	if _, places := fake.StudyState(cliProlificStudy); places != 12 {
		t.Fatalf("%d places", places)
	}
	if code, out, _ := run("cost"); code != 0 || !strings.Contains(out, "1.50 × 12 places = 18.00") || !strings.Contains(out, "24.00") {
		t.Fatalf("cost: %s", out)
	}
	if code, _, errOut := run("publish", "--yes"); code != 1 || !strings.Contains(errOut, "go-live checklist") {
		t.Fatalf("publish with the checklist failing: %d %s", code, errOut)
	}
	if code, out, _ := run("pause", "--yes"); code != 0 || !strings.Contains(out, "the study is PAUSED") {
		t.Fatalf("pause: %s", out)
	}
	if code, out, _ := run("message", "--to", "completed", "--template", "bonus"); code != 0 || !strings.Contains(out, "to 2 participants") || len(fake.Messages()) != 0 {
		t.Fatalf("message preview: %s", out)
	}
	if code, out, _ := run("message", "--to", "one", "--participant", prolifictest.PID(1), "--message", "Thank you!", "--yes"); code != 0 || len(fake.Messages()) != 1 {
		t.Fatalf("message: %s", out)
	}
	if code, out, _ := run("hooks", "--url", "https://lab.example.org"); code != 0 || !strings.Contains(out, "0 subscriptions") || !strings.Contains(out, "nothing sent") {
		t.Fatalf("hooks preview: %s", out)
	}
	if code, out, _ := run("hooks", "--url", "https://lab.example.org", "--yes"); code != 0 || strings.Count(out, "subscribed") != 2 {
		t.Fatalf("hooks: %s", out)
	}
	if code, out, _ := run("hooks"); code != 0 || !strings.Contains(out, "2 subscriptions") || strings.Contains(out, "not confirmed") {
		t.Fatalf("hooks list: %s", out)
	}
	db, _ := store.Open(ctx, file)
	log, _ := db.AuditLog(ctx, cs.ID, 0)
	db.Close()
	var all []string
	for _, a := range log {
		all = append(all, a.Action+": "+a.Detail)
	}
	for _, want := range []string{"add Prolific places: cli", "Prolific study transition: cli", "message on Prolific: cli", "Prolific hooks: cli"} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("the audit log lacks %q:\n%s", want, strings.Join(all, "\n"))
		}
	}
}
