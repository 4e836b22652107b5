package cli

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestStudyListEscapesNames: a name stored before the text rule with a
// line break and an escape sequence is printed escaped, on its own table
// row, and the rule now refuses such a rename with a message naming it.
func TestStudyListEscapesNames(t *testing.T) {
	path, _ := seededDB(t)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(context.Background(), "UPDATE studies SET name = ? WHERE id = 1", "Evil\nname\x1b[2J"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	code, out, errOut := runCLI(t, "", nil, "study", "list", "--db", path)
	if code != 0 || strings.Contains(out, "\x1b") || !strings.Contains(out, `Evil\nname\x1b[2J`) || strings.Count(out, "\n") != 5 {
		t.Fatalf("study list: exit %d\n%q%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "", nil, "study", "clone", "--study", "1", "--name", "Two\x1bthree", "--db", path)
	if code == 0 || !strings.Contains(errOut, "name: character 4 is the control character U+001B (ESC)") {
		t.Fatalf("clone with ESC in the name: exit %d %q", code, errOut)
	}
}
