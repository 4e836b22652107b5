package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStudyOpenPauseClose: the commands change a study's state as the
// page does; open runs the go-live checklist and, while something is
// missing, prints it and changes nothing.
func TestStudyOpenPauseClose(t *testing.T) {
	path, _ := seededDB(t)
	_, design, _ := runCLI(t, "", nil, "study", "design", "--study", "2", "--db", path)
	file := filepath.Join(t.TempDir(), "crowd.json")
	os.WriteFile(file, []byte(design), 0o600)
	_, out, _ := runCLI(t, "", nil, "study", "create", "--design", file, "--db", path)
	m := regexp.MustCompile(`^Study (\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("study create: %q", out)
	}
	// The new study has items and checks but no batches yet.
	code, out, errOut := runCLI(t, "", nil, "study", "open", "--study", m[1], "--db", path)
	if code != 1 || !strings.Contains(out, "cannot open yet. Missing:\n  - batches built\n") || !strings.Contains(errOut, "stays draft") {
		t.Fatalf("open without batches: exit %d\n%s%s", code, out, errOut)
	}
	state := func(id string) string {
		_, list, _ := runCLI(t, "", nil, "study", "list", "--db", path)
		f := regexp.MustCompile(`(?m)^` + id + `\s+\S+\s+(\S+)`).FindStringSubmatch(list)
		if f == nil {
			t.Fatalf("study %s not listed:\n%s", id, list)
		}
		return f[1]
	}
	if s := state(m[1]); s != "draft" {
		t.Fatalf("a refused open left the study %s", s)
	}
	for _, c := range []struct{ action, want string }{{"pause", "paused"}, {"open", "open"}, {"close", "closed"}} {
		code, out, errOut := runCLI(t, "", nil, "study", c.action, "--study", "2", "--db", path)
		if code != 0 || !strings.Contains(out, "is "+c.want+".") || state("2") != c.want {
			t.Fatalf("study %s: exit %d %q %s; state %s", c.action, code, out, errOut, state("2"))
		}
	}
}
