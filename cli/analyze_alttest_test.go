package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// altFiles writes 3 humans × 40 items of 1–7 ratings, and two models: one
// that gives the humans' consensus, one that always says 4.
func altFiles(t *testing.T) (string, string) {
	var h, m strings.Builder
	h.WriteString("annotator,item_id,label\n")
	m.WriteString("model,item_id,label\n")
	for i := range 40 {
		v := 1 + (i*3)%7
		for k, a := range []string{"ann1", "ann2", "ann3"} {
			w := v
			if (i+k)%5 == 0 { // each human strays now and then
				w = 1 + (v+2)%7
			}
			fmt.Fprintf(&h, "%s,it%d,%d\n", a, i, w)
		}
		fmt.Fprintf(&m, "consensus,it%d,%d\nfour,it%d,4\n", i, v, i)
	}
	return writeAnalyzeInput(t, "humans.csv", h.String()), writeAnalyzeInput(t, "models.csv", m.String())
}

func TestAnalyzeAltTestJSON(t *testing.T) {
	hp, mp := altFiles(t)
	out, errs, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", hp, "--models", mp, "--scoring", "neg-rmse", "--epsilon", "0.1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Exactly the documented keys.
	var raw map[string]map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for name, m := range raw["models"] {
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := "advantage_probability,epsilon,humans,items,passed,per_human,verdict,winning_rate"; strings.Join(keys, ",") != want {
			t.Errorf("%s: keys %v, want %s", name, keys, want)
		}
	}
	var got struct {
		Models map[string]struct {
			WinningRate float64 `json:"winning_rate"`
			Passed      bool    `json:"passed"`
			Humans      int     `json:"humans"`
			Items       int     `json:"items"`
			Epsilon     float64 `json:"epsilon"`
			PerHuman    []struct {
				Annotator string   `json:"annotator"`
				Items     int      `json:"items"`
				PValue    *float64 `json:"p_value"`
				Rejected  *bool    `json:"rejected"`
			} `json:"per_human"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	c, f := got.Models["consensus"], got.Models["four"]
	if !c.Passed || f.Passed || c.Humans != 3 || c.Items != 40 || c.Epsilon != 0.1 {
		t.Errorf("consensus %+v, four %+v: want the consensus to pass and the constant model to fail, 3 humans, 40 items, ε 0.1", c, f)
	}
	for _, h := range c.PerHuman {
		if h.Items != 40 || h.PValue == nil || h.Rejected == nil || !strings.HasPrefix(h.Annotator, "ann") {
			t.Errorf("per-human row %+v incomplete", h)
		}
	}
}

func TestAnalyzeAltTestText(t *testing.T) {
	hp, mp := altFiles(t)
	out, errs, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", hp, "--models", mp, "--scoring", "accuracy", "--epsilon", "0.2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Alternative annotator test (accuracy, ε = 0.20", "winning rate ω", "consensus", "four", "ann2"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

// TestAnalyzeAltTestBadInput: each bad file is exit 2 with its name and
// line on stderr, and nothing on stdout.
func TestAnalyzeAltTestBadInput(t *testing.T) {
	good, _ := altFiles(t)
	goodModels := writeAnalyzeInput(t, "m.csv", "model,item_id,label\nm,it0,4\n")
	cases := []struct {
		name, humans, models, scoring, want string
	}{
		{"label not a number", writeAnalyzeInput(t, "h.csv", "annotator,item_id,label\na,it0,3\nb,it0,very likely\n"), goodModels, "neg-rmse", `h.csv: line 3, column "label": "very likely" is not a number`},
		{"item with one human", writeAnalyzeInput(t, "h.csv", "annotator,item_id,label\na,it0,3\nb,it0,4\nb,it1,5\n"), goodModels, "neg-rmse", `h.csv: line 4, column "item_id": item "it1" has one human`},
		{"empty models file", good, writeAnalyzeInput(t, "empty.csv", ""), "accuracy", "empty.csv: line 1: empty file"},
		{"models file with only a header", good, writeAnalyzeInput(t, "header.csv", "model,item_id,label\n"), "accuracy", "header.csv: line 1: no model labels"},
		{"no item matches", good, writeAnalyzeInput(t, "other.csv", "model,item_id,label\nm,x1,4\nm,x2,4\n"), "accuracy", `other.csv: line 2, column "item_id": model "m" labels 2 items, none of them an item of the humans' file`},
	}
	for _, c := range cases {
		out, errs, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", c.humans, "--models", c.models, "--scoring", c.scoring, "--epsilon", "0.1")
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, %q", c.name, code, out, errs, c.want)
		}
	}
	_, errs, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", good, "--models", goodModels, "--scoring", "accuracy")
	if code != 2 || !strings.Contains(errs, "--epsilon is required") {
		t.Errorf("no --epsilon: exit %d, %q", code, errs)
	}
}

func TestBenchAltTestSmall(t *testing.T) {
	out, errs, code := analyzeCLI(t, "", "bench", "alt-test", "--humans", "4", "--items", "40", "--models", "2", "--runs", "1")
	if code != 0 || !strings.Contains(out, "4 humans × 40 items (160 rows) × 2 models") || !strings.Contains(out, "target < 5 s wall: met") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestAnalyzeAltTestMethods(t *testing.T) {
	hp, mp := altFiles(t)
	for lang, want := range map[string][]string{
		"en": {"alternative annotator test", "ε = 0.10", "consensus was tested against 3 humans on 40 items", "it passed", "four was tested", "it did not pass"},
		"it": {"test dell'annotatore alternativo", "ε = 0,10", "consensus è stato confrontato con 3 annotatori su 40 item", "ha superato il test", "non ha superato il test"},
	} {
		out, errs, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", hp, "--models", mp, "--scoring", "neg-rmse", "--epsilon", "0.1", "--methods", "text", "--lang", lang)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", lang, code, errs)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: methods lack %q:\n%s", lang, w, out)
			}
		}
	}
	out, _, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", hp, "--models", mp, "--scoring", "accuracy", "--epsilon", "0.2", "--latex")
	if code != 0 || !strings.Contains(out, `\toprule`) {
		t.Errorf("--latex: exit %d:\n%s", code, out)
	}
	_, errs, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", hp, "--models", mp, "--scoring", "accuracy", "--epsilon", "0.2", "--json", "--csv")
	if code != 2 || !strings.Contains(errs, "choose one of") {
		t.Errorf("--json --csv: exit %d, %q", code, errs)
	}
}

func TestAnalyzeReliability(t *testing.T) {
	path := writeAnalyzeInput(t, "ratings.csv", cliRatings)
	out, errs, code := analyzeCLI(t, "", "analyze", "reliability", "--within-participant", "--ratings", path, "--json", "--bootstrap", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Alpha []struct {
			Condition string   `json:"condition"`
			Units     int      `json:"units"`
			Ratings   int      `json:"ratings"`
			Interval  *float64 `json:"alpha_interval"`
		} `json:"alpha"`
		SplitHalf []struct {
			Condition string `json:"condition"`
			Units     int    `json:"units"`
		} `json:"split_half"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// cliRatings: p3 fails 3 checks and is left out; p1 and p2 rate s1 and
	// n1 in both conditions: 4 units, 8 item ratings. p4 rates s1 in
	// trigger only, one rating and so no z-score: left out of α as of the
	// split-half and the toplines (docs/statistics.md#crowd-krippendorffs-alpha).
	if len(got.Alpha) != 3 || got.Alpha[2].Condition != "all" || got.Alpha[2].Ratings != 8 || got.Alpha[2].Units != 4 {
		t.Errorf("alpha rows %+v, want trigger, cancel and all (4 units, 8 ratings)", got.Alpha)
	}
	out, _, code = analyzeCLI(t, "", "analyze", "reliability", "--within-participant", "--ratings", path)
	if code != 0 || !strings.Contains(out, "Krippendorff's α of the crowd ratings") || !strings.Contains(out, "Split-half reliability") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

// TestAnalyzeAltTestTwoHumansNoVerdict (docs/statistics.md#when-the-design-is-too-thin):
// with two humans the model that gives their consensus gets no verdict —
// in the text's table and notes and in the JSON — and the notes say why.
func TestAnalyzeAltTestTwoHumansNoVerdict(t *testing.T) {
	hp, mp := altFiles(t)
	var two strings.Builder
	for line := range strings.SplitSeq(readAnalyzeFile(t, hp), "\n") {
		if !strings.HasPrefix(line, "ann3,") && line != "" {
			two.WriteString(line + "\n")
		}
	}
	hp = writeAnalyzeInput(t, "two.csv", two.String())
	out, errs, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", hp, "--models", mp, "--scoring", "neg-rmse", "--epsilon", "0.2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	i := strings.Index(out, "\nconsensus ")
	if i < 0 || !strings.Contains(out[i:i+strings.Index(out[i+1:], "\n")+1], "n/a: 2 humans; the test needs 3") || !strings.Contains(out, "the humans agree little") {
		t.Errorf("the text should give no verdict:\n%s", out)
	}
	js, errs, code := analyzeCLI(t, "", "analyze", "alt-test", "--humans", hp, "--models", mp, "--scoring", "neg-rmse", "--epsilon", "0.2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Models map[string]struct {
			Passed  bool   `json:"passed"`
			Verdict string `json:"verdict"`
			Reason  string `json:"verdict_reason"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatal(err)
	}
	if m := got.Models["consensus"]; m.Passed || m.Verdict != "n/a" || m.Reason != "n/a: 2 humans; the test needs 3" {
		t.Errorf("JSON: %+v", m)
	}
}

func readAnalyzeFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
