package handlers

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/studies"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// twoConditionRatings is a between-participant crowd study that declared
// trigger and cancel only: six participants, nine items of every type
// (ids out of order, s10 after s2), each participant rating each item in
// one condition; item n1 is never rated with its cancellation.
func twoConditionRatings() string {
	var b strings.Builder
	b.WriteString(strings.Join(toplines.RatingsColumns, ",") + "\n")
	items := []struct{ id, typ string }{{"s10", "scalar"}, {"s2", "scalar"}, {"s1", "scalar"}, {"d2", "discourse"}, {"d1", "discourse"},
		{"y1", "synthetic"}, {"y2", "synthetic"}, {"n1", "natural"}, {"n2", "natural"}}
	for p := range 6 {
		for i, it := range items {
			cond, r := domain.ConditionTrigger, 5+(p+i)%3
			if (p+i)%2 == 1 && it.id != "n1" {
				cond, r = domain.ConditionCancel, 1+(p*i)%4
			}
			fmt.Fprintf(&b, "P%d,B%d,%s,%s,%s,%d,\n", p+1, p%2+1, it.id, it.typ, cond, r)
		}
		fmt.Fprintf(&b, "P%d,B%d,chk1,scalar,trigger,7,high\n", p+1, p%2+1)
	}
	return b.String()
}

// TestTwoConditionTablesGolden: the tables of a study with two conditions
// (docs/studies.md#conditions) as text, LaTeX and on the Analysis page: no rows of the
// conditions it never ran, a "Left out" row only where something is left
// out, items by id. `go test ./handlers -run Golden -update` rewrites them.
func TestTwoConditionTablesGolden(t *testing.T) {
	rs, err := toplines.ReadRatings(strings.NewReader(twoConditionRatings()))
	if err != nil {
		t.Fatal(err)
	}
	opt := toplines.DefaultOptions()
	opt.Conditions = []string{domain.ConditionTrigger, domain.ConditionCancel}
	a := studies.RatingsAnalysis(rs, opt)
	body := renderAnalysis(t, domain.KindCrowd, a)
	for _, tb := range a.Tables[:3] {
		var txt, tex bytes.Buffer
		if err := tb.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if err := tb.WriteLaTeX(&tex); err != nil {
			t.Fatal(err)
		}
		html := regexp.MustCompile(`(?s)<section data-testid="table-` + tb.Name + `">.*?</section>`).FindString(body)
		if html == "" {
			t.Fatalf("the page has no section for table %s", tb.Name)
		}
		for ext, got := range map[string]string{"txt": txt.String(), "tex": tex.String(), "html": strings.ReplaceAll(html, "><", ">\n<") + "\n"} {
			golden(t, filepath.Join("testdata", "golden", "two_conditions_"+tb.Name+"."+ext), got)
		}
		for _, absent := range []string{"Negation", "Strengthening", "Unchanged", "negation", "neutral", "strengthen", "Left out: no trigger rating"} {
			if strings.Contains(txt.String(), absent) {
				t.Errorf("table %s shows %q, a condition the study does not run or a row leaving nothing out", tb.Name, absent)
			}
		}
	}
	// An interval that cannot be computed says why, and an r on fewer
	// than 5 items is marked, in the JSON too
	// (docs/statistics.md#toplines-intervals).
	res, err := json.Marshal(a.Result)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"intervals_na":{"cancellation_recognition_ci95":"too few items: 3"`, `"pearson_r_few_items":true`, `"conditions":["trigger","cancel"]`} {
		if !strings.Contains(string(res), want) {
			t.Errorf("result JSON lacks %s", want)
		}
	}
	var tj bytes.Buffer
	if err := a.Tables[1].WriteJSON(&tj); err != nil || !strings.Contains(tj.String(), `"Scalar_ci95_na": "too few items: 3"`) {
		t.Errorf("intervals table JSON (%v):\n%s", err, tj.String())
	}
	if !strings.Contains(body, "Left out: no trigger or cancel rating") {
		t.Error("the toplines lack the left-out row of n1, never rated with its cancellation")
	}
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./handlers -run Golden -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}
