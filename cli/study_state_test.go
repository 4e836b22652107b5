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
	m := []string{"", copyDemoCrowd(t, path)}
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

// TestStudyDesignAtOpening: `study design --at-opening` prints the design
// file the study opened with, byte for byte as `study design` printed it
// then; a draft has none, and says so.
func TestStudyDesignAtOpening(t *testing.T) {
	path, _ := seededDB(t)
	m := []string{"", copyDemoCrowd(t, path)}
	if code, _, errOut := runCLI(t, "", nil, "study", "design", "--study", m[1], "--at-opening", "--db", path); code == 0 || !strings.Contains(errOut, "no design kept from its opening") {
		t.Fatalf("a draft's design at opening: exit %d %s", code, errOut)
	}
	if code, out, errOut := runCLI(t, "", nil, "study", "batches", "--study", m[1], "--db", path); code != 0 {
		t.Fatalf("study batches: exit %d %s%s", code, out, errOut)
	}
	_, before, _ := runCLI(t, "", nil, "study", "design", "--study", m[1], "--db", path)
	if code, out, errOut := runCLI(t, "", nil, "study", "open", "--study", m[1], "--db", path); code != 0 {
		t.Fatalf("study open: exit %d %s%s", code, out, errOut)
	}
	code, kept, errOut := runCLI(t, "", nil, "study", "design", "--study", m[1], "--at-opening", "--db", path)
	if code != 0 || kept != before {
		t.Fatalf("design at opening: exit %d %s\n%.600s\nwant\n%.600s", code, errOut, kept, before)
	}
}

// copyDemoCrowd creates a new draft study from the demo crowd study's
// design in the database at path and returns its id: items and checks,
// no batches yet.
func copyDemoCrowd(t *testing.T, path string) string {
	t.Helper()
	_, design, _ := runCLI(t, "", nil, "study", "design", "--study", "2", "--db", path)
	file := filepath.Join(t.TempDir(), "crowd.json")
	os.WriteFile(file, []byte(design), 0o600)
	_, out, _ := runCLI(t, "", nil, "study", "create", "--design", file, "--db", path)
	m := regexp.MustCompile(`^Study (\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("study create: %q", out)
	}
	return m[1]
}
