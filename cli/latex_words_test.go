package cli

import (
	"fmt"
	"golang.org/x/text/unicode/norm"
	"regexp"
	"strings"
	"testing"
)

// TestLaTeXIntervalsTablesSplitNoWord: the intervals tables, set by
// pdflatex, break lines between words only: every word of the table's
// text form is whole in the PDF's text, never hyphenated nor cut (#45 §5).
func TestLaTeXIntervalsTablesSplitNoWord(t *testing.T) {
	pdflatex := needPDFLaTeX(t)
	d := realisticLaTeXData(t)
	// Names a real study has: long model names and strategies of one
	// long word, which a narrow column must not cut.
	var ex strings.Builder
	ex.WriteString("annotator_id,item_id,kind,strategy,judgment,model\n")
	judgments := []string{"totally_correct", "correct_among_options", "partially_correct", "totally_wrong", "answer_not_given"}
	for i := range 180 {
		fmt.Fprintf(&ex, "e%d,%d,%s,%s,%s,%s\n", i%3, 22000+i/6, []string{"Impl", "Ppp"}[i/6%2],
			[]string{"Nullschussaufforderung", "Wenigschussaufforderung", "Gedankenkettenbegründung"}[i%3],
			judgments[(i*7)%5], []string{"Meta-Llama-3.1-70B-Instruct-Turbo", "Qwen2.5-72B-Instruct", "Mistral-Large-Instruct-2411"}[i/3%3])
	}
	d.explanations = ex.String()
	word := regexp.MustCompile(`\p{L}{4,}`)
	for _, run := range []struct {
		table, cmd, flag, input string
		landscape               bool
	}{
		{"toplines_intervals", "toplines", "--ratings", d.ratings, false},
		{"agreement_intervals", "agreement", "--judgements", d.judgements, false},
		{"explanations_intervals", "explanations", "--ratings", d.explanations, false},
		{"context_intervals", "context", "--answers", d.answers, true},
	} {
		t.Run(run.table, func(t *testing.T) {
			path := writeAnalyzeInput(t, "in.csv", run.input)
			args := []string{"analyze", run.cmd, run.flag, path, "--table", run.table, "--bootstrap", "50"}
			plain, errs, code := analyzeCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			tex, errs, code := analyzeCLI(t, "", append(args, "--latex")...)
			if code != 0 {
				t.Fatalf("--latex: exit %d: %s", code, errs)
			}
			pdf := compileLaTeX(t, pdflatex, "words-"+run.table, tex, run.landscape)
			if pdf == "" {
				t.Skip("no pdftotext")
			}
			have := map[string]bool{}
			// pdftotext writes an accented letter as letter and combining mark.
			for _, w := range word.FindAllString(norm.NFC.String(pdf), -1) {
				have[w] = true
			}
			for _, w := range word.FindAllString(plain, -1) {
				if !have[w] {
					t.Errorf("%q is not whole in the PDF:\n%s", w, pdf)
					return
				}
			}
		})
	}
}
