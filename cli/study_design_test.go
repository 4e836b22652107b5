package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStudyDesignRoundTrip writes the design of each demo study (one of
// every kind), creates a study from it, and checks that the new study's
// design is the file's apart from the name: settings, items, passages,
// outputs and seed.
func TestStudyDesignRoundTrip(t *testing.T) {
	path, _ := seededDB(t)
	dir := t.TempDir()
	kinds := map[string]bool{}
	for _, id := range []string{"1", "2", "3", "4"} {
		code, design, errOut := runCLI(t, "", nil, "study", "design", "--study", id, "--db", path)
		if code != 0 {
			t.Fatalf("study design %s: exit %d %s", id, code, errOut)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(design), &d); err != nil {
			t.Fatalf("study design %s: not JSON: %v", id, err)
		}
		kind := d["kind"].(string)
		kinds[kind] = true
		if d["items"] == nil && d["passages"] == nil {
			t.Fatalf("%s design has neither items nor passages:\n%.500s", kind, design)
		}
		file := filepath.Join(dir, kind+".json")
		if err := os.WriteFile(file, []byte(design), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "", nil, "study", "create", "--design", file, "--name", "Next "+kind, "--db", path)
		m := regexp.MustCompile(`^Study (\d+) "Next ` + kind + `" created`).FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("study create %s: exit %d %q %s", kind, code, out, errOut)
		}
		_, again, _ := runCLI(t, "", nil, "study", "design", "--study", m[1], "--db", path)
		var a map[string]any
		if err := json.Unmarshal([]byte(again), &a); err != nil {
			t.Fatal(err)
		}
		if a["name"] != "Next "+kind {
			t.Errorf("%s: the new study is named %q", kind, a["name"])
		}
		a["name"] = d["name"]
		want, _ := json.Marshal(d)
		got, _ := json.Marshal(a)
		if string(got) != string(want) {
			t.Errorf("%s: the new study's design differs from the file:\nfile: %.2000s\nnew:  %.2000s", kind, want, got)
		}
	}
	if len(kinds) != 4 {
		t.Fatalf("kinds covered: %v", kinds)
	}
}

// TestStudyCreateRefusesBadDesign: each bad file is refused with a message
// naming the field, exit status 2, and no study is created.
func TestStudyCreateRefusesBadDesign(t *testing.T) {
	path, _ := seededDB(t)
	_, design, _ := runCLI(t, "", nil, "study", "design", "--study", "2", "--db", path)
	var d map[string]any
	if err := json.Unmarshal([]byte(design), &d); err != nil {
		t.Fatal(err)
	}
	if d["kind"] != "crowd" {
		t.Fatalf("study 2 is %v, want the crowd demo", d["kind"])
	}
	_, before, _ := runCLI(t, "", nil, "study", "list", "--archived", "--db", path)
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		change func(d map[string]any)
		want   string
	}{
		{"unknown kind", func(d map[string]any) { d["kind"] = "survey" }, `kind: "survey" is not a study kind`},
		{"scale of 1 point", func(d map[string]any) { settings(d)["scale_points"] = 1 }, "scale points must be 2–11, got 1"},
		{"scale of 12 points", func(d map[string]any) { settings(d)["scale_points"] = 12 }, "scale points must be 2–11, got 12"},
		{"label for point 9 of 7", func(d map[string]any) { settings(d)["scale_labels"] = map[string]string{"1": "never", "9": "surely"} }, "scale labels: point 9 is outside the scale of 7 points"},
		{"training item in an undeclared condition", func(d map[string]any) {
			settings(d)["training"] = []map[string]string{{"key": firstItem(d), "condition": "negation"}}
		}, "condition must be trigger or cancel"},
		{"training item not among the items", func(d map[string]any) {
			settings(d)["training"] = []map[string]string{{"key": "nowhere", "condition": "trigger"}}
		}, `settings.training line 1: no item "nowhere" among the items`},
		{"unknown setting", func(d map[string]any) { settings(d)["batchsize"] = 3 }, `settings: unknown field "batchsize"`},
		{"item without an utterance", func(d map[string]any) {
			items := d["items"].([]any)
			delete(items[2].(map[string]any), "utterance")
		}, `items: item 3, field "utterance": is missing`},
		{"language", func(d map[string]any) { d["lang"] = "xx" }, "language must be"},
	} {
		var c2 map[string]any
		json.Unmarshal([]byte(design), &c2)
		c.change(c2)
		b, _ := json.Marshal(c2)
		file := filepath.Join(dir, "bad.json")
		os.WriteFile(file, b, 0o600)
		code, out, errOut := runCLI(t, "", nil, "study", "create", "--design", file, "--db", path)
		if code != 2 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "nothing was created") || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.name, code, out, errOut, c.want)
		}
	}
	_, after, _ := runCLI(t, "", nil, "study", "list", "--archived", "--db", path)
	if after != before {
		t.Errorf("a refused design changed the studies:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func settings(d map[string]any) map[string]any { return d["settings"].(map[string]any) }

func firstItem(d map[string]any) string {
	return d["items"].([]any)[0].(map[string]any)["id"].(string)
}
