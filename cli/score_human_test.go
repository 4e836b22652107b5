package cli

import (
	"regexp"
	"testing"
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
