package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStudyVersion: `study version` starts design version 2 of an opened
// study from a design file's settings; `study design --version K` prints
// each version's file as kept, version 1 the design it opened with; a
// draft, a file of another kind and a file changing nothing frozen are
// refused with exit 2 and change nothing (docs/studies.md#design-versions,
// docs/cli.md#study).
func TestStudyVersion(t *testing.T) {
	path, _ := seededDB(t)
	id := copyDemoCrowd(t, path)
	if code, out, errOut := runCLI(t, "", nil, "study", "batches", "--study", id, "--db", path); code != 0 {
		t.Fatalf("study batches: exit %d %s%s", code, out, errOut)
	}
	_, before, _ := runCLI(t, "", nil, "study", "design", "--study", id, "--db", path)
	dir := t.TempDir()
	same := filepath.Join(dir, "same.json")
	os.WriteFile(same, []byte(before), 0o600)
	changed := filepath.Join(dir, "five.json")
	five := strings.Replace(before, `"scale_points": 7`, `"scale_labels": {"1": "surely not", "5": "surely so"}, "scale_points": 5`, 1)
	five = strings.Replace(five, `"check_high_min": 5`, `"check_high_min": 4`, 1)
	five = strings.Replace(five, `"check_low_max": 3`, `"check_low_max": 2`, 1)
	if five == before {
		t.Fatalf("the demo design has no 7-point scale to change:\n%.1500s", before)
	}
	os.WriteFile(changed, []byte(five), 0o600)

	unlabelled := filepath.Join(dir, "unlabelled.json")
	os.WriteFile(unlabelled, []byte(strings.Replace(before, `"scale_points": 7`, `"scale_points": 5`, 1)), 0o600)
	if code, _, errOut := runCLI(t, "", nil, "study", "version", "--study", id, "--design", unlabelled, "--db", path); code != 2 || !strings.Contains(errOut, "has no label") {
		t.Fatalf("a version whose settings do not validate: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "study", "version", "--study", id, "--design", changed, "--db", path); code != 2 || !strings.Contains(errOut, "has not opened") {
		t.Fatalf("a draft's version: exit %d %s", code, errOut)
	}
	if code, out, errOut := runCLI(t, "", nil, "study", "open", "--study", id, "--db", path); code != 0 {
		t.Fatalf("study open: exit %d %s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "study", "version", "--study", id, "--design", same, "--db", path); code != 2 || !strings.Contains(errOut, "change no frozen setting") {
		t.Fatalf("a version changing nothing frozen: exit %d %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "", nil, "study", "version", "--study", id, "--design", changed, "--db", path)
	if code != 0 || !strings.Contains(out, "started design version 2") {
		t.Fatalf("study version: exit %d %s%s", code, out, errOut)
	}
	if code, v1, errOut := runCLI(t, "", nil, "study", "design", "--study", id, "--version", "1", "--db", path); code != 0 || v1 != before {
		t.Fatalf("version 1: exit %d %s\n%.600s\nwant the design it opened with", code, errOut, v1)
	}
	code, v2, errOut := runCLI(t, "", nil, "study", "design", "--study", id, "--version", "2", "--db", path)
	if code != 0 || !strings.Contains(v2, `"scale_points": 5`) {
		t.Fatalf("version 2: exit %d %s\n%.600s", code, errOut, v2)
	}
	if _, now, _ := runCLI(t, "", nil, "study", "design", "--study", id, "--db", path); now != v2 {
		t.Errorf("the current design is not version 2's:\n%.600s", now)
	}
	if code, _, errOut := runCLI(t, "", nil, "study", "design", "--study", id, "--version", "3", "--db", path); code != 2 || !strings.Contains(errOut, "versions are 1 to 2") {
		t.Errorf("version 3: exit %d %s", code, errOut)
	}
}
