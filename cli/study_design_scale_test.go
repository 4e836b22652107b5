package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStudyDesignScaleRefusals: a design file whose scale misses an end
// label, or whose check thresholds do not fit its scale, is refused with
// exit 2 naming what is wrong, and nothing is created (#45 §5).
func TestStudyDesignScaleRefusals(t *testing.T) {
	path, _ := seededDB(t)
	_, design, _ := runCLI(t, "", nil, "study", "design", "--study", "2", "--db", path)
	file := filepath.Join(t.TempDir(), "design.json")
	for _, c := range scaleRefusals {
		var d map[string]any
		if err := json.Unmarshal([]byte(design), &d); err != nil {
			t.Fatal(err)
		}
		c.change(settings(d))
		b, _ := json.Marshal(d)
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "", nil, "study", "create", "--design", file, "--db", path)
		if code != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.name, code, out, errOut, c.want)
		}
	}
}

var scaleRefusals = []struct {
	name   string
	change func(s map[string]any)
	want   string
}{
	{"one end label", func(s map[string]any) {
		s["scale_points"], s["check_high_min"], s["check_low_max"] = 5, 4, 2
		s["scale_labels"] = map[string]string{"1": "völlig unnatürlich"}
	}, "the high end, point 5 of 5, has no label"},
	{"5 points, no labels", func(s map[string]any) {
		s["scale_points"], s["check_high_min"], s["check_low_max"] = 5, 4, 2
		delete(s, "scale_labels")
	}, "the low end, point 1 of 5, has no label"},
	{"overlapping thresholds", func(s map[string]any) {
		s["scale_points"], s["check_high_min"], s["check_low_max"] = 5, 2, 4
		s["scale_labels"] = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	}, "check thresholds overlap on the 5-point scale: the low check threshold (check_low_max, 4) must be below the high one (check_high_min, 2)"},
	{"default thresholds on 3 points", func(s map[string]any) {
		s["scale_points"] = 3
		s["scale_labels"] = map[string]string{"1": "no", "3": "yes"}
	}, "high check threshold (check_high_min) must be 1–3 on the 3-point scale, got 5"},
}
