package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// judgementDesignFile is a German acceptability study's design file as a
// researcher writes it (docs/studies.md#design-file): two conditions of
// its own naming, 5 points labelled at both ends, pairs minimal items
// given by condition, two checks and a practice item.
func judgementDesignFile(pairs int) string {
	var items []string
	for i := 1; i <= pairs; i++ {
		items = append(items, fmt.Sprintf(`{"id": "%d", "variants": {"kontrolle": {"context": "Satz %d:", "sentence": "Der Koch hat die Suppe %d-mal versalzen."}, "zielsatz": {"sentence": "Der Koch hat die Suppe %d-mal versalzt."}}}`, i, i, i, i))
	}
	items = append(items,
		`{"id": "chk-hoch", "variants": {"kontrolle": {"sentence": "Die Sonne scheint am Tag."}}, "check": "high"}`,
		`{"id": "chk-tief", "variants": {"zielsatz": {"sentence": "Tag am scheint Sonne die der."}}, "check": "low"}`,
		`{"id": "uebung", "variants": {"kontrolle": {"sentence": "Das Kind spielt im Garten."}}, "training": "4-5"}`)
	return `{
  "format": "pragmalab-study-design/1",
  "kind": "judgement",
  "name": "Akzeptabilität",
  "lang": "de",
  "settings": {
    "conditions": ["kontrolle", "zielsatz"],
    "scale_points": 5,
    "scale_labels": {"1": "völlig unnatürlich", "5": "völlig natürlich"},
    "question": "Wie natürlich klingt dieser Satz?",
    "check_high_min": 4,
    "check_low_max": 2,
    "batch_size": ` + fmt.Sprint(pairs) + `,
    "quota": 2,
    "completion_code": "C0MPLETE",
    "places_per_address": 0,
    "any_pid": true
  },
  "batches": {"seed": 7},
  "items": [
    ` + strings.Join(items, ",\n    ") + `
  ]
}
`
}

// createDesign writes design to a file and runs study create on it,
// returning the new study's id.
func createDesign(t *testing.T, db, design string, args ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "design.json")
	if err := os.WriteFile(file, []byte(design), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", nil, append([]string{"study", "create", "--design", file, "--db", db}, args...)...)
	m := regexp.MustCompile(`^Study (\d+) "[^"]*" created`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("study create: exit %d %q %s", code, out, errOut)
	}
	return m[1]
}

// TestJudgementDesignRoundTrip: a judgement design file creates a study
// whose design is the file's — settings over the judgement defaults,
// items with their texts keyed by condition, checks and practice marks —
// and a study created from that design writes it again byte for byte
// (docs/studies.md#design-file).
func TestJudgementDesignRoundTrip(t *testing.T) {
	db := filepath.Join(t.TempDir(), "j.db")
	id := createDesign(t, db, judgementDesignFile(4))
	code, design, errOut := runCLI(t, "", nil, "study", "design", "--study", id, "--db", db)
	if code != 0 {
		t.Fatalf("study design: exit %d %s", code, errOut)
	}
	var d struct {
		Kind     string
		Settings map[string]any
		Items    []map[string]any
		Batches  struct{ Seed int64 }
	}
	if err := json.Unmarshal([]byte(design), &d); err != nil {
		t.Fatal(err)
	}
	if d.Kind != "judgement" || d.Batches.Seed != 7 || len(d.Items) != 7 {
		t.Fatalf("design: kind %q, seed %d, %d items\n%s", d.Kind, d.Batches.Seed, len(d.Items), design)
	}
	if d.Settings["scale_points"] != 5.0 || fmt.Sprint(d.Settings["conditions"]) != "[kontrolle zielsatz]" ||
		fmt.Sprint(d.Settings["scale_labels"]) != "map[1:völlig unnatürlich 5:völlig natürlich]" {
		t.Errorf("settings: %v", d.Settings)
	}
	if _, ok := d.Settings["training"]; ok {
		t.Errorf("a judgement design states the crowd study's training setting: %v", d.Settings)
	}
	first, _ := json.Marshal(d.Items[0])
	if want := `{"id":"1","variants":{"kontrolle":{"context":"Satz 1:","sentence":"Der Koch hat die Suppe 1-mal versalzen."},"zielsatz":{"sentence":"Der Koch hat die Suppe 1-mal versalzt."}}}`; string(first) != want {
		t.Errorf("item 1 written as\n%s\nwant\n%s", first, want)
	}
	practice, _ := json.Marshal(d.Items[6])
	if want := `{"id":"uebung","training":"4-5","variants":{"kontrolle":{"sentence":"Das Kind spielt im Garten."}}}`; string(practice) != want {
		t.Errorf("the practice item written as %s, want %s", practice, want)
	}
	// The written design creates the same study again, to the byte.
	again := createDesign(t, db, design, "--name", "Zweiter Lauf")
	_, design2, _ := runCLI(t, "", nil, "study", "design", "--study", again, "--db", db)
	if got := strings.Replace(design2, `"name": "Zweiter Lauf"`, `"name": "Akzeptabilität"`, 1); got != design {
		t.Errorf("the second study's design differs:\nfirst:  %s\nsecond: %s", design, design2)
	}
}

// TestJudgementDesignRefused: a judgement design with a missing end
// label, an item in an undeclared condition, a data item without one of
// the conditions or an item of the implicature format is refused with
// exit 2, naming the field, and nothing is created
// (docs/studies.md#judgement-settings, docs/items.md#judgement-items).
func TestJudgementDesignRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "j.db")
	good := judgementDesignFile(2)
	for _, c := range []struct{ name, from, to, want string }{
		{"missing end label", `{"1": "völlig unnatürlich", "5": "völlig natürlich"}`, `{"1": "völlig unnatürlich"}`,
			"scale labels: the high end, point 5 of 5, has no label"},
		{"undeclared condition", `"zielsatz": {"sentence": "Der Koch hat die Suppe 2-mal versalzt."}`, `"target": {"sentence": "x"}`,
			`items[1] (2): field "condition": item "2" is in the condition "target", which the study does not declare (its conditions: kontrolle, zielsatz)`},
		{"missing condition", `, "zielsatz": {"sentence": "Der Koch hat die Suppe 1-mal versalzt."}`, ``,
			`items[0] (1): field "condition": item "1" has no sentence in the condition "zielsatz"`},
		{"check in two conditions", `{"kontrolle": {"sentence": "Die Sonne scheint am Tag."}}`, `{"kontrolle": {"sentence": "a"}, "zielsatz": {"sentence": "b"}}`,
			`items[2] (chk-hoch): field "condition": item "chk-hoch" is an attention check and has 2 conditions`},
		{"practice range off the scale", `"training": "4-5"`, `"training": "6-7"`,
			`items[4] (uebung): field "training": practice range 6–7 lies outside the 5-point scale`},
		{"implicature item", `{"id": "1", "variants"`, `{"id": "1", "utterance": "x", "variants"`,
			`items[0]: unknown field "utterance": a judgement item has "id", "variants"`},
		{"one item twice", `{"id": "2",`, `{"id": "1",`, `items[1]: field "id": "1" repeats items[0]`},
		{"no conditions", `"conditions": ["kontrolle", "zielsatz"],`, ``, "conditions: a judgement study names its conditions"},
	} {
		bad := strings.Replace(good, c.from, c.to, 1)
		if bad == good {
			t.Fatalf("%s: the change did not apply", c.name)
		}
		file := filepath.Join(t.TempDir(), "bad.json")
		os.WriteFile(file, []byte(bad), 0o600)
		code, out, errOut := runCLI(t, "", nil, "study", "create", "--design", file, "--db", db)
		if code != 2 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "nothing was created") || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.name, code, out, errOut, c.want)
		}
	}
	if _, list, _ := runCLI(t, "", nil, "study", "list", "--archived", "--db", db); strings.Contains(list, "Akzeptabilität") {
		t.Errorf("a refused design created a study:\n%s", list)
	}
}

// TestJudgementImportUpdateRefused: `import --update` on a judgement study
// is refused with exit 2 saying what to do instead, and the items stay
// as they were (docs/items.md#correcting-items): the versioned correction
// compares implicature fields and would call a changed sentence
// unchanged.
func TestJudgementImportUpdateRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "j.db")
	id := createDesign(t, db, judgementDesignFile(2))
	_, before, _ := runCLI(t, "", nil, "study", "design", "--study", id, "--db", db)
	file := filepath.Join(t.TempDir(), "fix.csv")
	os.WriteFile(file, []byte("item,condition,sentence\n1,kontrolle,Neu.\n1,zielsatz,Neu2.\n"), 0o600)
	code, out, errOut := runCLI(t, "", nil, "import", "--update", "--study", id, "--file", file, "--db", db)
	if code != 2 || !strings.Contains(errOut, "nothing was changed: a judgement study's items are not corrected by re-importing a file") || !strings.Contains(errOut, "study create --design") {
		t.Errorf("import --update: exit %d, %q %q", code, out, errOut)
	}
	if _, after, _ := runCLI(t, "", nil, "study", "design", "--study", id, "--db", db); after != before {
		t.Errorf("a refused update changed the design:\n%s", after)
	}
}
