package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/scoring/scoringtest"
)

// score --help names the four tasks that ask the participants' own
// questions exactly as docs/scoring.md writes them, each at the start of
// its own line of the task list.
func TestScoreHelpListsTheHumanTasks(t *testing.T) {
	out, errs, code := analyzeCLI(t, "", "score", "--help")
	help := out + errs
	if code != 0 {
		t.Fatalf("score --help: exit %d\n%s", code, help)
	}
	for _, name := range []string{"likert", "expert", "context", "explanation-rating"} {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + ` {2,}\S`).MatchString(help) {
			t.Errorf("score --help does not list the task %q:\n%s", name, help)
		}
	}
}

// score runs the expert task against the fake model server in sampling
// mode and prints the form's measures and the order bias; --csv writes
// one row per question with the distribution.
func TestScoreExpertTask(t *testing.T) {
	path, study := scoreDB(t) // an expert study of 8 items
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	csv := filepath.Join(t.TempDir(), "expert.csv")
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", strconv.FormatInt(study, 10), "--task", "expert",
		"--base-url", srv.URL, "--model", "fake-7b", "--mode", "sampling", "--samples", "3", "--quiet", "--csv", csv)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"16 questions answered in both orders, 8 items", "implicature plausible:", "option-order bias:"} {
		if !strings.Contains(out, want) {
			t.Errorf("score output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 17 || !strings.HasPrefix(lines[0], "model,item_id,item_type,condition,label,number,mean,not_asked,p_1,p_2,") {
		t.Errorf("CSV: %d lines\n%s", len(lines), data)
	}
}
