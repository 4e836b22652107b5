package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// analyzeCLI runs pragmalab in-process and returns stdout, stderr and the
// exit status main would use.
func analyzeCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{getenv: func(string) string { return "" }, stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := exitCode(env.stderr, Run(context.Background(), args, env))
	return out.String(), errb.String(), code
}

func writeAnalyzeInput(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const cliRatings = `participant_id,batch_id,item_id,item_type,condition,rating,check
p1,B1,s1,scalar,trigger,6,
p1,B1,s1,scalar,cancel,2,
p1,B1,n1,natural,trigger,5,
p1,B1,n1,natural,cancel,3,
p1,B1,c1,,trigger,6,high
p2,B1,s1,scalar,trigger,7,
p2,B1,s1,scalar,cancel,1,
p2,B1,n1,natural,trigger,4,
p2,B1,n1,natural,cancel,4,
p3,B1,s1,scalar,trigger,1,
p3,B1,s1,scalar,cancel,7,
p3,B1,c1,,trigger,1,high
p3,B1,c2,,trigger,7,low
p3,B1,c3,,trigger,2,high
p4,B1,s1,scalar,trigger,4,
`

func TestAnalyzeToplinesJSON(t *testing.T) {
	path := writeAnalyzeInput(t, "ratings.csv", cliRatings)
	out, errs, code := analyzeCLI(t, "", "analyze", "toplines", "--within-participant", "--ratings", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Participants struct {
			Total        int      `json:"total"`
			Excluded     []string `json:"excluded"`
			ZeroVariance []string `json:"zero_variance"`
		} `json:"participants"`
		ByType map[string]map[string]any `json:"by_type"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if got.Participants.Total != 4 || strings.Join(got.Participants.Excluded, ",") != "p3" || strings.Join(got.Participants.ZeroVariance, ",") != "p4" {
		t.Errorf("participants = %+v", got.Participants)
	}
	sc := got.ByType["scalar"]
	if sc["items"] != 1.0 || sc["implicature_recognition"] != 1.0 || sc["cancellation_recognition"] != 1.0 || sc["pearson_r"] != nil {
		t.Errorf("scalar = %v", sc)
	}
	if nat := got.ByType["discourse"]; nat["items"] != 0.0 || nat["belief_update"] != nil {
		t.Errorf("discourse (no items) = %v", nat)
	}
}

func TestAnalyzeToplinesTableAndOptions(t *testing.T) {
	path := writeAnalyzeInput(t, "ratings.csv", cliRatings)
	out, errs, code := analyzeCLI(t, cliRatings, "analyze", "toplines", "--within-participant", "--ratings", "-", "--max-failed", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Human toplines", "Implicature recognition", "Scalar", "Natural", "4 in the file, 0 excluded (4 or more failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	dir := filepath.Join(t.TempDir(), "figs")
	out, errs, code = analyzeCLI(t, "", "analyze", "toplines", "--within-participant", "--ratings", path, "--plots", dir, "--exclude", "p1")
	if code != 0 || !strings.Contains(out, "Excluded: p1, p3") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, f := range []string{"histogram_all.svg", "histogram_all.png", "scatter_scalar.svg", "scatter_natural.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	out, _, code = analyzeCLI(t, "", "analyze", "toplines", "--within-participant", "--ratings", path, "--csv", "--items")
	if code != 0 || !strings.HasPrefix(out, "Item,Type,Mean z (trigger)") || !strings.Contains(out, "s1,scalar,") {
		t.Errorf("item means CSV (exit %d):\n%s", code, out)
	}
}

func TestAnalyzeBadInput(t *testing.T) {
	h := "participant_id,batch_id,item_id,item_type,condition,rating,check\n"
	tests := []struct {
		name, cmd, flag, content string
		want                     []string
	}{
		{"rating 12", "toplines", "--ratings", h + "p1,B,s1,scalar,trigger,5,\np1,B,s2,scalar,cancel,12,\n", []string{"line 3", `"rating"`}},
		{"non-integer", "toplines", "--ratings", h + "p1,B,s1,scalar,trigger,five,\n", []string{"line 2", `"rating"`, "five"}},
		{"unknown column", "toplines", "--ratings", strings.TrimSuffix(h, "\n") + ",age\n", []string{"line 1", `"age"`, "unknown column"}},
		{"missing column", "toplines", "--ratings", "participant_id,item_id,item_type,condition,rating,check\n", []string{"line 1", `"batch_id"`, "missing"}},
		{"empty file", "toplines", "--ratings", "", []string{"line 1", "empty file"}},
		{"duplicate", "toplines", "--ratings", h + "p1,B,s1,scalar,trigger,5,\np1,B,s1,scalar,trigger,6,\n", []string{"line 3", `"item_id"`, "already rated", "line 2"}},
		{"judgement", "agreement", "--judgements", "annotator_id,item_id,item_type,plausible,cancellation_correct\na,i1,scalar,perhaps,\n", []string{"line 2", `"plausible"`}},
		{"context", "context", "--answers", "annotator_id,survey_id,item_id,kind,period,sentences,sufficient\na,S,i,Impl,p,9,yes\n", []string{"line 2", `"sentences"`}},
		{"explanation", "explanations", "--ratings", "annotator_id,item_id,kind,strategy,judgment\na,i,Impl,zs,meh\n", []string{"line 2", `"judgment"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeAnalyzeInput(t, "in.csv", tc.content)
			out, errs, code := analyzeCLI(t, "", "analyze", tc.cmd, tc.flag, path, "--json")
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if out != "" {
				t.Errorf("stdout must stay empty, got %q", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %s", errs, w)
				}
			}
		})
	}
}

func TestAnalyzeUsage(t *testing.T) {
	for _, cmd := range []string{"toplines", "agreement", "context", "explanations"} {
		_, errs, code := analyzeCLI(t, "", "analyze", cmd, "--help")
		if code != 0 || !strings.Contains(errs, "Usage: pragmalab analyze "+cmd) || !strings.Contains(errs, "-json") {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, errs)
		}
		if _, errs, code := analyzeCLI(t, "", "analyze", cmd); code != 2 || !strings.Contains(errs, "is required") {
			t.Errorf("%s without input: exit %d %s", cmd, code, errs)
		}
	}
	if out, _, code := analyzeCLI(t, "", "analyze", "--help"); code != 0 || !strings.Contains(out, "explanations") {
		t.Errorf("analyze --help: exit %d", code)
	}
	if _, _, code := analyzeCLI(t, "", "analyze", "nonsense"); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
	if _, errs, code := analyzeCLI(t, "", "analyze", "toplines", "--ratings", "/nonexistent/x.csv"); code != 2 || !strings.Contains(errs, "no such file") {
		t.Errorf("missing file: exit %d %s", code, errs)
	}
}

func TestAnalyzeAgreementReference(t *testing.T) {
	// Round 1 of the ImplicatureX expert study: plausibility [[43,4],[4,3]].
	var b strings.Builder
	b.WriteString("annotator_id,item_id,item_type,plausible,cancellation_correct\n")
	n := 0
	for _, cell := range []struct {
		a, b  string
		count int
	}{{"yes", "yes", 43}, {"yes", "no", 4}, {"no", "yes", 4}, {"no", "no", 3}} {
		for range cell.count {
			n++
			b.WriteString("A,i" + strconv.Itoa(n) + ",scalar," + cell.a + ",\nB,i" + strconv.Itoa(n) + ",scalar," + cell.b + ",\n")
		}
	}
	path := writeAnalyzeInput(t, "judgements.csv", b.String())
	out, errs, code := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !lineHasInOrder(out, "Plausibility", "54", "0.85", "0.34", "0.70", "[[43,4],[4,3]]") {
		t.Errorf("table:\n%s", out)
	}
	out, _, _ = analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--json")
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	p := got["plausibility"].(map[string]any)
	if p["items"] != 54.0 || len(got["pairs"].([]any)) != 1 || got["cancellation"].(map[string]any)["items"] != 0.0 {
		t.Errorf("JSON = %v", got)
	}
}

// lineHasInOrder reports whether one line of out holds all the fields in order.
func lineHasInOrder(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		rest, ok := line, true
		for _, f := range fields {
			i := strings.Index(rest, f)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(f):]
		}
		if ok {
			return true
		}
	}
	return false
}

func TestAnalyzeContextAndExplanations(t *testing.T) {
	ctxCSV := "annotator_id,survey_id,item_id,kind,period,sentences,sufficient\n" +
		"e1,1,i1,Impl,1946-1972,0,yes\ne2,1,i1,Impl,1946-1972,0,yes\ne3,1,i1,Impl,1946-1972,2,yes\n" +
		"e1,1,i2,Ppp,1994-2023,5,no\ne2,1,i2,Ppp,1994-2023,5,no\ne3,1,i2,Ppp,1994-2023,5,no\n"
	dir := filepath.Join(t.TempDir(), "figs")
	out, errs, code := analyzeCLI(t, "", "analyze", "context", "--answers", writeAnalyzeInput(t, "c.csv", ctxCSV), "--json", "--plots", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var c struct {
		Surveys map[string]map[string]any `json:"surveys"`
		Overall map[string]any            `json:"overall"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	s := c.Surveys["1"]
	if s["items"] != 2.0 || s["full_consensus"] != 0.5 || s["majority_consensus"] != 0.5 || len(s["cumulative_judgements"].([]any)) != 6 || c.Overall == nil {
		t.Errorf("context JSON = %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "context_cumulative.svg")); err != nil {
		t.Error(err)
	}
	exCSV := "annotator_id,item_id,kind,strategy,judgment\ne1,i1,Impl,zero-shot,totally_correct\ne1,i2,Impl,zero-shot,totally_wrong\n"
	out, errs, code = analyzeCLI(t, "", "analyze", "explanations", "--ratings", writeAnalyzeInput(t, "e.csv", exCSV))
	if code != 0 || !lineHasInOrder(out, "Impl", "zero-shot", "2", "0.50", "0.00", "0.00", "0.50", "0.00", "0.50") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	// The explanation figures, in all three formats.
	exDir := t.TempDir()
	out, errs, code = analyzeCLI(t, "", "analyze", "explanations", "--ratings", writeAnalyzeInput(t, "e.csv", exCSV), "--plots", exDir)
	if code != 0 || !strings.Contains(out, "Figures (2, PDF, SVG and PNG) written to") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	for _, f := range []string{"explanations_acceptable.pdf", "explanations_acceptable.svg", "explanations_acceptable.png", "explanations_totally_correct.svg"} {
		if _, err := os.Stat(filepath.Join(exDir, f)); err != nil {
			t.Error(err)
		}
	}
}
