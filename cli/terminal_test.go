package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
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

// TestTablesEscapeFormatCharacters (docs/deploy.md#one-rule-for-text): a study name and a
// username stored with bidi characters before the rule are printed
// escaped by study list, admin list and import; the rule now refuses them.
func TestTablesEscapeFormatCharacters(t *testing.T) {
	path, _ := seededDB(t)
	if code, _, errOut := runCLI(t, "", nil, "admin", "create", "--username", "ada", "--generate", "--db", path); code != 0 {
		t.Fatalf("create owner: %d %s", code, errOut)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := raw.ExecContext(ctx, "UPDATE studies SET name = ? WHERE id = 1", "Evil\u202Egnp.exe"); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, "UPDATE admins SET username = ? WHERE username = 'ada'", "ad\u2066a"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for _, args := range [][]string{{"study", "list"}, {"admin", "list"}} {
		code, out, errOut := runCLI(t, "", nil, append(args, "--db", path)...)
		if code != 0 || strings.ContainsAny(out, "\u202E\u2066") {
			t.Fatalf("%v: exit %d\n%q%s", args, code, out, errOut)
		}
	}
	if _, out, _ := runCLI(t, "", nil, "study", "list", "--db", path); !strings.Contains(out, `Evil\u202egnp.exe`) {
		t.Fatalf("study list: %q", out)
	}
	file := filepath.Join(t.TempDir(), "items.csv")
	os.WriteFile(file, []byte("id,type,context,utterance,implicature,cancellation\nz1,scalar,Ctx,Some \u200Dstudents came.,Not all came.,In fact all came.\n"), 0o600)
	code, out, errOut := runCLI(t, "", nil, "import", "--study", "1", "--file", file, "--db", path)
	if code != 0 || strings.Contains(out, "\u202E") || !strings.Contains(out, `Evil\u202egnp.exe`) {
		t.Fatalf("import: exit %d\n%q%s", code, out, errOut)
	}
	os.WriteFile(file, []byte("id,type,context,utterance,implicature,cancellation\nz2,scalar,Ctx,Some \u202Estudents came.,Not all came.,In fact all came.\n"), 0o600)
	if code, _, errOut := runCLI(t, "", nil, "import", "--study", "1", "--file", file, "--db", path); code == 0 || !strings.Contains(errOut, "U+202E") {
		t.Fatalf("an utterance with RLO: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "admin", "create", "--username", "b\u202Eob", "--generate", "--db", path); code == 0 || !strings.Contains(errOut, "U+202E") {
		t.Fatalf("a username with RLO: exit %d %q", code, errOut)
	}
}
