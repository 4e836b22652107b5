package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStudyDesignMachineCheck: a crowd design with machine_check on
// creates a study whose design says so again; a design asking for it on a
// scale or batch too small for it, or with a value that is not a boolean,
// is refused naming the field (#32 §5).
func TestStudyDesignMachineCheck(t *testing.T) {
	path, _ := seededDB(t)
	_, design, _ := runCLI(t, "", nil, "study", "design", "--study", "2", "--db", path)
	var d map[string]any
	if err := json.Unmarshal([]byte(design), &d); err != nil {
		t.Fatal(err)
	}
	if on, ok := settings(d)["machine_check"]; !ok || on != false {
		t.Fatalf("the demo's design has machine_check %v (present %v), want false", on, ok)
	}
	dir := t.TempDir()
	write := func(d map[string]any) string {
		b, _ := json.Marshal(d)
		file := filepath.Join(dir, "design.json")
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	settings(d)["machine_check"] = true
	code, out, errOut := runCLI(t, "", nil, "study", "create", "--design", write(d), "--name", "Checked", "--db", path)
	m := regexp.MustCompile(`^Study (\d+) "Checked" created`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("study create: exit %d %q %s", code, out, errOut)
	}
	_, again, _ := runCLI(t, "", nil, "study", "design", "--study", m[1], "--db", path)
	var a map[string]any
	if err := json.Unmarshal([]byte(again), &a); err != nil {
		t.Fatal(err)
	}
	if settings(a)["machine_check"] != true {
		t.Errorf("the new study's design has machine_check %v, want true", settings(a)["machine_check"])
	}
	for _, c := range []struct {
		name   string
		change func(s map[string]any)
		want   string
	}{
		{"2-point scale", func(s map[string]any) { s["scale_points"] = 2; s["check_high_min"] = 2; s["check_low_max"] = 1 },
			"machine check: needs a scale of at least 3 points, got 2"},
		{"batch of 2", func(s map[string]any) { s["batch_size"] = 2 }, "machine check: needs a batch size of at least 3"},
		{"not a boolean", func(s map[string]any) { s["machine_check"] = "yes" }, "machine_check"},
	} {
		var b map[string]any
		json.Unmarshal([]byte(design), &b)
		settings(b)["machine_check"] = true
		c.change(settings(b))
		code, out, errOut := runCLI(t, "", nil, "study", "create", "--design", write(b), "--db", path)
		if code != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.name, code, out, errOut, c.want)
		}
	}
}
