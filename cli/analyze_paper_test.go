package cli

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pragmalab/analysis/plan"
)

// The LaTeX every analyze command prints must compile with pdfLaTeX in
// \documentclass{article} with booktabs and nothing else, on A4 portrait
// (toplines, agreement, explanations) or A4 landscape (context), without
// an overfull box, a LaTeX warning or an error (docs/formats.md#latex-tables).
// Without pdflatex the test skips, unless CI is set: .ci/run installs it.

// latexPreamble is the preamble docs/formats.md#latex-tables gives for each
// page; \tracinglostchars makes a character missing from a font a log line.
var latexPreamble = map[bool]string{
	false: "\\documentclass[a4paper]{article}\n\\usepackage{booktabs}\n",
	true:  "\\documentclass[a4paper,landscape]{article}\n\\usepackage{booktabs}\n\\pdfpagewidth=\\paperwidth \\pdfpageheight=\\paperheight\n",
}

// latexProblem matches what a clean compilation must not log.
var latexProblem = regexp.MustCompile(`(?m)^(Overfull \\[hv]box.*|Underfull \\[hv]box.*|LaTeX Warning.*|Package \w+ Warning.*|! .*|Missing character.*)$`)

func needPDFLaTeX(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("pdflatex")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pdflatex not found and CI is set: install it (apt-get install -y texlive-latex-base texlive-latex-recommended)")
		}
		t.Skip("pdflatex not found; install texlive-latex-base and texlive-latex-recommended to compile the --latex output")
	}
	return path
}

// compileLaTeX compiles body in a document of the given orientation (twice,
// so labels settle) and fails on any problem in the log. It returns the
// PDF's text when pdftotext is installed.
func compileLaTeX(t *testing.T, pdflatex, name, body string, landscape bool) string {
	t.Helper()
	dir := t.TempDir()
	doc := latexPreamble[landscape] + "\\tracinglostchars=1\n\\begin{document}\n" + body + "\\end{document}\n"
	if err := os.WriteFile(filepath.Join(dir, "doc.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var log []byte
	for range 2 {
		cmd := exec.CommandContext(t.Context(), pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: pdflatex failed: %v (document kept as %s)\n%s", name, err, keepLaTeX(name, doc), tail(out, 3000))
		}
		if log, err = os.ReadFile(filepath.Join(dir, "doc.log")); err != nil {
			t.Fatal(err)
		}
	}
	if probs := latexProblem.FindAll(log, 10); len(probs) > 0 {
		t.Errorf("%s: pdflatex logged (document kept as %s):\n%s", name, keepLaTeX(name, doc), bytes.Join(probs, []byte("\n")))
	}
	// PRAGMALAB_LATEX=DIR keeps the PDFs there, to look at.
	if keep := os.Getenv("PRAGMALAB_LATEX"); keep != "" {
		pdf, err := os.ReadFile(filepath.Join(dir, "doc.pdf"))
		if err == nil {
			err = os.WriteFile(filepath.Join(keep, name+".pdf"), pdf, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		return ""
	}
	cmd := exec.CommandContext(t.Context(), pdftotext, "-layout", "doc.pdf", "-")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	text, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: pdftotext: %v: %s (document kept as %s)", name, err, stderr.Bytes(), keepLaTeX(name, doc))
	}
	return string(text)
}

// keepLaTeX saves a failing document for a look, returning its path.
func keepLaTeX(name, doc string) string {
	keep := filepath.Join(os.TempDir(), "pragmalab-latex-"+name+".tex")
	os.WriteFile(keep, []byte(doc), 0o644)
	return keep
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// latexDataset is one set of input files, one per command.
type latexDataset struct {
	name                                       string
	ratings, judgements, answers, explanations string
}

func realisticLaTeXData(t *testing.T) latexDataset {
	var ratings bytes.Buffer
	if err := plan.WriteSyntheticRatings(&ratings, 2000, 40, 7); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var ex strings.Builder
	ex.WriteString("annotator_id,item_id,kind,strategy,judgment,model\n")
	judgments := []string{"totally_correct", "correct_among_options", "partially_correct", "totally_wrong", "answer_not_given"}
	for i := range 120 {
		fmt.Fprintf(&ex, "e%d,%d,%s,%s,%s,%s\n", i%3, 22000+i/6, []string{"Impl", "Ppp"}[i/6%2], []string{"zero-shot", "few-shot", "chain-of-thought"}[i%3],
			judgments[(i*7)%5], []string{"gpt-4o", "llama-3.1-70b"}[i/3%2])
	}
	return latexDataset{name: "realistic", ratings: ratings.String(), judgements: read("../analysis/agreement/testdata/agreement_boot.csv"),
		answers: read("../analysis/contextsurvey/testdata/context_alpha.csv"), explanations: ex.String()}
}

// adversarialLaTeXData has names with every LaTeX special, long unbroken
// names, non-ASCII letters and symbols, many types, surveys and periods.
func adversarialLaTeXData() latexDataset {
	long := strings.Repeat("VeryLongUnbrokenName", 9) // 180 characters, no space
	specials := []string{`a_b&c%d#e`, `~^\{}$<>|"q"`, `--x--`, `!` + "`" + `?` + "`" + `''`, "Zoë Łukasiewicz-Ñúñez", "李小龍 ☃", long, "x y z " + long}
	name := func(i int) string { return specials[i%len(specials)] + fmt.Sprint(i/len(specials)) }

	var r strings.Builder
	r.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check\n")
	types := []string{"scalar", "discourse", "synthetic", "natural"}
	for p := range 12 {
		pid := name(p)
		for i := range 40 {
			csvRow(&r, pid, "B", "item "+name(i), types[i%4], []string{"trigger", "cancel"}[(i+p)%2], fmt.Sprint(1+(i*p+i/3+p)%7), "")
		}
		csvRow(&r, pid, "B", "chk", "", "trigger", fmt.Sprint(1+p%7), "high") // some fail
		csvRow(&r, pid, "B", "chk2", "", "trigger", fmt.Sprint(7-p%3), "low")
		csvRow(&r, pid, "B", "chk3", "", "trigger", fmt.Sprint(1+p%5), "high")
	}
	csvRow(&r, "checks only "+long, "B", "chk", "", "trigger", "6", "high")

	var j strings.Builder
	j.WriteString("annotator_id,item_id,item_type,plausible,cancellation_correct\n")
	anns := []string{"Zoë_&_co", long, "李", `ann#%$`}
	for i := range 26 * 4 {
		for a, ann := range anns {
			pl := []string{"yes", "no"}[(i*(a+1)/3)%2]
			cc := ""
			if pl == "yes" {
				cc = []string{"yes", "no"}[(i+a)%2]
			}
			csvRow(&j, ann, fmt.Sprint("i", i), name(i%26)+" type", pl, cc)
		}
	}

	var c strings.Builder
	c.WriteString("annotator_id,survey_id,item_id,kind,period,sentences,sufficient\n")
	for i := range 15 * 6 {
		for _, ann := range []string{"e1", "Ñ&ñ", long} {
			n := (i + len(ann)) % 7
			suff := "yes"
			if n == 6 {
				n, suff = 5, "no"
			}
			csvRow(&c, ann, "survey "+name(i%15), fmt.Sprint("i", i), []string{"Impl", "Ppp", "kind " + long}[i%3], "period "+name(i%10), fmt.Sprint(n), suff)
		}
	}

	var e strings.Builder
	e.WriteString("annotator_id,item_id,kind,strategy,judgment,model\n")
	judgments := []string{"totally_correct", "correct_among_options", "partially_correct", "totally_wrong", "answer_not_given"}
	for i := range 200 {
		csvRow(&e, fmt.Sprint("a", i%2), fmt.Sprint(i/24), name(i%5)+" kind", name(i/2%12)+" strategy", judgments[i%5], name(i/3%3)+" model")
	}
	return latexDataset{name: "adversarial", ratings: r.String(), judgements: j.String(), answers: c.String(), explanations: e.String()}
}

func csvRow(b *strings.Builder, fields ...string) {
	w := csv.NewWriter(b)
	w.Write(fields)
	w.Flush()
}

func TestAnalyzeLaTeXCompilesClean(t *testing.T) {
	pdflatex := needPDFLaTeX(t)
	for _, d := range []latexDataset{realisticLaTeXData(t), adversarialLaTeXData()} {
		for _, run := range []struct {
			name      string
			args      []string
			input     string
			landscape bool
		}{
			{"toplines", []string{"toplines", "--items", "--ratings"}, d.ratings, false},
			{"agreement", []string{"agreement", "--judgements"}, d.judgements, false},
			{"explanations", []string{"explanations", "--ratings"}, d.explanations, false},
			{"context", []string{"context", "--answers"}, d.answers, true},
			{"context_wide", []string{"context", "--table", "context", "--answers"}, d.answers, true},
		} {
			t.Run(d.name+"/"+run.name, func(t *testing.T) {
				args := append(append([]string{"analyze"}, run.args...), writeAnalyzeInput(t, "in.csv", run.input), "--latex", "--bootstrap", "50")
				out, errs, code := analyzeCLI(t, "", args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				text := compileLaTeX(t, pdflatex, d.name+"-"+run.name, out, run.landscape)
				// OT1 sets < and > as ¡ and ¿: they must come out as themselves.
				if strings.ContainsAny(text, "¡¿") {
					t.Errorf("the PDF shows ¡ or ¿:\n%s", text)
				}
				if text != "" && (run.name == "agreement" || run.name == "context") && !strings.Contains(text, "κ") {
					t.Errorf("the PDF has no κ:\n%s", text)
				}
			})
		}
	}
}

func TestAnalyzeMethodsLanguage(t *testing.T) {
	path := filepath.Join("..", "analysis", "toplines", "testdata", "toplines_boot.csv")
	out, errs, code := analyzeCLI(t, "", "analyze", "toplines", "--ratings", path, "--methods", "markdown", "--bootstrap", "0", "--lang", "it")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"### Metodi: giudizi umani", "Su 14 partecipanti, 1 è stato escluso", "Sono stati analizzati 12 partecipanti", "r = 0,16", "<!-- Numeri dall'output --json:"} {
		if !strings.Contains(out, want) {
			t.Errorf("Italian methods lack %q:\n%s", want, out)
		}
	}
	if _, errs, code := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--methods", "text", "--lang", "fr"); code != 2 || !strings.Contains(errs, "want en or it") {
		t.Errorf("--lang fr: exit %d, %s", code, errs)
	}
}
