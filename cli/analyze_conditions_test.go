package cli

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateConditions = flag.Bool("update-conditions", false, "rewrite the golden files of analyze conditions in testdata/conditions/golden")

const conditionsFixture = "testdata/conditions/ratings.csv"

// TestAnalyzeConditionsGolden pins what a researcher reads and pastes:
// the text tables, the JSON, the CSV, the LaTeX and the methods paragraph
// in each language, on a small 5-point file with two conditions of its
// own naming, an excluded participant, one who rated checks only and one
// constant rater. Run with -update-conditions after a deliberate change,
// and read the diff.
func TestAnalyzeConditionsGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"text.txt", nil},
		{"json.json", []string{"--json"}},
		{"csv.csv", []string{"--csv"}},
		{"latex.tex", []string{"--latex"}},
		{"methods_en.txt", []string{"--methods", "text"}},
		{"methods_it.txt", []string{"--methods", "text", "--lang", "it"}},
		{"methods_de.txt", []string{"--methods", "markdown", "--lang", "de"}},
		{"reference.txt", []string{"--reference", "zielsatz", "--table", "condition_differences"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := analyzeCLI(t, "", append([]string{"analyze", "conditions", "--ratings", conditionsFixture}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			path := filepath.Join("testdata", "conditions", "golden", c.name)
			if *updateConditions {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update-conditions to write it)", err)
			}
			if out != string(want) {
				t.Errorf("analyze conditions %s differs from %s:\n--- got\n%s\n--- want\n%s", strings.Join(c.args, " "), path, out, want)
			}
		})
	}
}

// TestAnalyzeConditionsMeansAreTheFile's: each condition's mean in the
// JSON is the plain mean of the file's ratings of the participants kept,
// computed here from the file itself, and the distribution counts them.
func TestAnalyzeConditionsMeansAreTheFiles(t *testing.T) {
	out, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", conditionsFixture, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		ScalePoints  int `json:"scale_points"`
		Participants struct {
			Excluded []string `json:"excluded"`
		} `json:"participants"`
		Conditions []struct {
			Condition    string      `json:"condition"`
			MeanRating   float64     `json:"mean_rating"`
			MeanRatingCI *[2]float64 `json:"mean_rating_ci95"`
			Distribution []struct {
				Count int `json:"count"`
			} `json:"distribution"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.ScalePoints != 5 || !slices.Equal(res.Participants.Excluded, []string{"p8"}) {
		t.Fatalf("scale %d, excluded %v: want the file's 5 points and p8 (3 failed checks)", res.ScalePoints, res.Participants.Excluded)
	}
	b, _ := os.ReadFile(conditionsFixture)
	sum, n := map[string]float64{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(line, ",")
		if f[6] != "" || f[0] == "p8" {
			continue
		}
		v, _ := strconv.Atoi(f[5])
		sum[f[4]] += float64(v)
		n[f[4]]++
	}
	if len(res.Conditions) != 2 {
		t.Fatalf("%d conditions, want kontrolle and zielsatz", len(res.Conditions))
	}
	for _, c := range res.Conditions {
		want := sum[c.Condition] / float64(n[c.Condition])
		if d := c.MeanRating - want; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s: mean rating %v, the file's is %v", c.Condition, c.MeanRating, want)
		}
		total := 0
		for _, p := range c.Distribution {
			total += p.Count
		}
		if len(c.Distribution) != 5 || total != n[c.Condition] {
			t.Errorf("%s: distribution over %d points counts %d ratings, want 5 points and %d", c.Condition, len(c.Distribution), total, n[c.Condition])
		}
		if c.MeanRatingCI == nil || c.MeanRatingCI[0] >= c.MeanRating || c.MeanRatingCI[1] <= c.MeanRating {
			t.Errorf("%s: interval %v does not surround the mean %v", c.Condition, c.MeanRatingCI, c.MeanRating)
		}
	}
}

// TestAnalyzeConditionsRefusals: bad input and bad flags exit 2 with a
// message naming what is wrong and where.
func TestAnalyzeConditionsRefusals(t *testing.T) {
	head := "participant_id,batch_id,item_id,item_type,condition,rating,check"
	rows := "\np1,b1,s1,,a,3,\np1,b1,s2,,b,4,\np2,b1,s1,,b,2,\np2,b1,s2,,a,5,\n"
	withScale := strings.ReplaceAll(head+",scale_points"+rows, ",\n", ",,5\n")
	for _, c := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"a rating above the file's scale", strings.Replace(withScale, "s2,,b,4,", "s2,,b,6,", 1), nil, "line 3, column \"rating\": rating 6 is outside the scale 1–5 (the file's scale_points)"},
		{"a rating above the default 7 points", head + strings.Replace(rows, "s2,,b,4,", "s2,,b,8,", 1), nil, "line 3, column \"rating\": rating 8 is outside the scale 1–7"},
		{"a rating above --scale-points", head + rows, []string{"--scale-points", "4"}, "line 5, column \"rating\": rating 5 is outside the scale 1–4 (--scale-points)"},
		{"a rating of 0", head + strings.Replace(rows, "s1,,a,3,", "s1,,a,0,", 1), nil, "line 2, column \"rating\""},
		{"two scales in one file", strings.Replace(withScale, "p2,b1,s1,,b,2,,5", "p2,b1,s1,,b,2,,7", 1), nil, "line 4, column \"scale_points\": scale_points 7 here but 5 on line 2"},
		{"--scale-points against the file's", withScale, []string{"--scale-points", "7"}, "scale_points 5 in the file but --scale-points 7"},
		{"an undeclared condition", head + rows, []string{"--conditions", "a"}, "line 3, column \"condition\": condition \"b\" is not among the declared conditions (a)"},
		{"an unknown reference", head + rows, []string{"--reference", "c"}, `--reference "c" is not a condition of the file (a, b)`},
		{"an unknown flag", head + rows, []string{"--bogus"}, "flag provided but not defined: -bogus"},
		{"a language without methods", head + rows, []string{"--lang", "fr"}, "want en, it or de"},
		{"a high pass off the scale", withScale, []string{"--high-pass", "6"}, "--high-pass 6 and --low-pass 3 must be points of the 5-point scale"},
		{"a rating twice", head + rows + "p1,b1,s1,,b,3,\n", nil, "line 6, column \"item_id\": participant \"p1\" already rated item \"s1\" on line 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := writeAnalyzeInput(t, "ratings.csv", c.file)
			out, errOut, code := analyzeCLI(t, "", append([]string{"analyze", "conditions", "--ratings", in}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing on stdout and %q", code, out, errOut, c.want)
			}
		})
	}
	// The same file without the 8 and with --scale-points 9 is accepted.
	in := writeAnalyzeInput(t, "ratings.csv", head+strings.Replace(rows, "s2,,b,4,", "s2,,b,8,", 1))
	if _, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", in, "--scale-points", "9"); code != 0 {
		t.Errorf("a rating of 8 with --scale-points 9: exit %d: %s", code, errOut)
	}
}

// TestAnalyzeConditionsExcludesAsToplines: on a crowd ratings file the
// same exclusion flags exclude the same participants in both commands,
// so the toplines command the Analysis page prints and this one agree.
func TestAnalyzeConditionsExcludesAsToplines(t *testing.T) {
	var b strings.Builder
	b.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check\n")
	for p := 1; p <= 6; p++ {
		for i := 1; i <= 4; i++ {
			cond := []string{"trigger", "cancel"}[(p+i)%2]
			b.WriteString("p" + strconv.Itoa(p) + ",b1,i" + strconv.Itoa(i) + ",scalar," + cond + "," + strconv.Itoa(1+(p*i)%7) + ",\n")
		}
		for k := 0; k < p/2; k++ { // p2, p3 fail 1 check, p4, p5 2, p6 3
			b.WriteString("p" + strconv.Itoa(p) + ",b1,c" + strconv.Itoa(k) + ",scalar,,2,high\n")
		}
	}
	in := writeAnalyzeInput(t, "ratings.csv", b.String())
	excluded := func(cmd string, args ...string) []string {
		out, errOut, code := analyzeCLI(t, "", append([]string{"analyze", cmd, "--ratings", in, "--json", "--bootstrap", "0"}, args...)...)
		if cmd == "conditions" {
			out, errOut, code = analyzeCLI(t, "", append([]string{"analyze", cmd, "--ratings", in, "--json"}, args...)...)
		}
		if code != 0 {
			t.Fatalf("analyze %s: exit %d: %s", cmd, code, errOut)
		}
		var res struct {
			Participants struct{ Excluded []string } `json:"participants"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res.Participants.Excluded
	}
	for _, args := range [][]string{nil, {"--max-failed", "2"}, {"--max-failed", "2", "--include", "p4", "--exclude", "p1"}, {"--high-pass", "2", "--low-pass", "1", "--max-failed", "1"}} {
		top, cond := excluded("toplines", args...), excluded("conditions", args...)
		if !slices.Equal(top, cond) {
			t.Errorf("with %v: toplines excluded %v, conditions %v", args, top, cond)
		}
	}
	if got := excluded("conditions", "--max-failed", "2"); !slices.Equal(got, []string{"p4", "p5", "p6"}) {
		t.Errorf("--max-failed 2 excluded %v, want p4 p5 p6", got)
	}
}

// TestAnalyzeConditionsPlots writes both figures in the three formats.
func TestAnalyzeConditionsPlots(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", conditionsFixture, "--plots", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Figures (2, PDF, SVG and PNG) written to") {
		t.Errorf("the text does not say where the figures went:\n%s", out)
	}
	for _, name := range []string{"condition_means", "condition_distribution"} {
		for _, ext := range []string{"pdf", "svg", "png"} {
			if fi, err := os.Stat(filepath.Join(dir, name+"."+ext)); err != nil || fi.Size() < 1000 {
				t.Errorf("%s.%s: %v", name, ext, err)
			}
		}
	}
}

// TestAnalyzeConditionsR runs the R companion: its means, z, intervals
// and differences equal pragmalab's to 1e-9, and the ordinal mixed model
// is fitted and says which model the numbers come from.
func TestAnalyzeConditionsR(t *testing.T) {
	needR(t, true)
	dir := t.TempDir()
	if _, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", conditionsFixture, "--r", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out := runR(t, dir)
	if !strings.Contains(out, "Compared with pragmalab (conditions_pragmalab.csv):") || !strings.Contains(out, " 0 differ by more than 1e-9 or in being undefined") {
		t.Errorf("R does not reproduce pragmalab's numbers:\n%s", out)
	}
	mine := readLong(t, filepath.Join(dir, "conditions_pragmalab.csv"))
	theirs := readLong(t, filepath.Join(dir, "conditions_r.csv"))
	if len(mine) < 40 || len(theirs) != len(mine) {
		t.Errorf("R wrote %d values, pragmalab %d", len(theirs), len(mine))
	}
	for k, v := range mine {
		a, errA := strconv.ParseFloat(v, 64)
		b, errB := strconv.ParseFloat(theirs[k], 64)
		if (errA == nil) != (errB == nil) || (errA == nil && (a-b > 1e-9 || b-a > 1e-9)) {
			t.Errorf("%s: pragmalab %q, R %q", k, v, theirs[k])
		}
	}
	if !strings.Contains(out, "The numbers above come from: clmm with by-condition slopes for participants") {
		t.Errorf("the mixed model with by-condition slopes was not the one reported:\n%s", out)
	}
	status := readLong(t, filepath.Join(dir, "clmm.csv"))
	if status["fitted"] != "TRUE" {
		t.Errorf("clmm.csv: %v", status)
	}

	// Between participants: the difference is taken within items only,
	// R agrees, and the mixed model says why it has no slopes.
	var b strings.Builder
	b.WriteString("participant_id,item_id,condition,rating,check\n")
	for p := range 12 {
		for i := range 8 {
			cond := map[bool]string{true: "a", false: "b"}[p < 6]
			b.WriteString("p" + strconv.Itoa(p) + ",i" + strconv.Itoa(i) + "," + cond + "," + strconv.Itoa(1+(p*7+i*3)%5) + ",\n")
		}
	}
	in := writeAnalyzeInput(t, "between.csv", b.String())
	dir = t.TempDir()
	if _, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", in, "--scale-points", "5", "--r", dir); code != 0 {
		t.Fatalf("between: exit %d: %s", code, errOut)
	}
	out = runR(t, dir)
	for _, want := range []string{" 0 differ by more than 1e-9 or in being undefined", "No by-condition slopes: 0 participants rated more than one condition",
		"The numbers above come from: clmm with random intercepts for participants and items"} {
		if !strings.Contains(out, want) {
			t.Errorf("between participants: R did not print %q:\n%s", want, out)
		}
	}
}

// TestAnalyzeConditionsThinFiles: a file where nobody rated an item, and
// one with a single condition on a single item, read as prose and as
// empty lists, never as a crash or a made-up number.
func TestAnalyzeConditionsThinFiles(t *testing.T) {
	checks := writeAnalyzeInput(t, "checks.csv", "participant_id,item_id,condition,rating,check\np2,c,,5,high\n")
	out, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", checks, "--methods", "text")
	if code != 0 || !strings.Contains(out, "No item was rated by an analysed participant") {
		t.Errorf("checks only: exit %d, %s%s", code, out, errOut)
	}
	out, _, _ = analyzeCLI(t, "", "analyze", "conditions", "--ratings", checks, "--json")
	if !strings.Contains(out, `"conditions": []`) || !strings.Contains(out, `"differences": []`) {
		t.Errorf("checks only: want empty lists in the JSON:\n%s", out)
	}
	one := writeAnalyzeInput(t, "one.csv", "participant_id,item_id,condition,rating,check\np1,i1,a,3,\np2,i1,a,4,\n")
	out, errOut, code = analyzeCLI(t, "", "analyze", "conditions", "--ratings", one)
	if code != 0 || !strings.Contains(out, "3.50 [n/a: fewer than 2 items]") || !strings.Contains(out, "Only one condition: no difference to take.") {
		t.Errorf("one item: exit %d, %s%s", code, out, errOut)
	}
}

// TestAnalyzeConditionsLaTeXCompiles compiles the three tables with
// pdflatex, on the realistic and the adversarial data of the other
// commands' LaTeX test and on the German fixture.
func TestAnalyzeConditionsLaTeXCompiles(t *testing.T) {
	pdflatex := needPDFLaTeX(t)
	inputs := map[string]string{"fixture": conditionsFixture}
	for _, d := range []latexDataset{realisticLaTeXData(t), adversarialLaTeXData()} {
		inputs[d.name] = writeAnalyzeInput(t, d.name+".csv", d.ratings)
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			out, errs, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", in, "--latex")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			text := compileLaTeX(t, pdflatex, name+"-conditions", out, false)
			if strings.ContainsAny(text, "¡¿") {
				t.Errorf("the PDF shows ¡ or ¿:\n%s", text)
			}
			if name == "fixture" && text != "" && !strings.Contains(text, "zielsatz") {
				t.Errorf("the PDF lacks the condition names:\n%s", text)
			}
		})
	}
}
