package report

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLaTeXSpellsEveryCharacterForOT1(t *testing.T) {
	for in, want := range map[string]string{
		"p < 0.001":     `p $<$ 0.001`,
		"a > b | c":     `a $>$ b $|$ c`,
		`x_y&z%#$`:      `x\_y\&z\%\#\$`,
		`~^\{}`:         `\textasciitilde{}\textasciicircum{}\textbackslash{}\{\}`,
		`say "all"`:     "say ``all''",
		"a--b":          `a-{}-b`,
		"!`?`":          "!{}`?{}`",
		"κ α ≤ ≥ × ⇔ −": `$\kappa$ $\alpha$ $\leq$ $\geq$ $\times$ $\Leftrightarrow$ $-$`,
		"Zoë Ñúñez":     `Zo{\"{e}} {\~{N}}{\'{u}}{\~{n}}ez`,
		"Łódź ß":        `\L{}{\'{o}}d{\'{z}} \ss{}`,
		"naïve":         `na{\"{\i}}ve`,
		"李":             `{\ttfamily U+674E}`,
		"tab\there":     `tab here`,
		"«sì»":          "``s{\\`{\\i}}''",
	} {
		if got := latexEscape(in); got != want {
			t.Errorf("latexEscape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := texNumber("-0.12 [-0.35, 0.10]"); got != `$-$0.12 [$-$0.35, 0.10]` {
		t.Errorf("texNumber = %q", got)
	}
}

func TestLaTeXNotesAreParagraphsAndLongTablesSplit(t *testing.T) {
	tb := &Table{Name: "t", Title: "T", Columns: []string{"Name", "Value"}, Notes: []string{"First note.", "Second note."}}
	v := 0.5
	for range 200 {
		tb.Rows = append(tb.Rows, []any{"row", &v})
	}
	var b strings.Builder
	if err := tb.WriteLaTeX(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "First note.\\par\nSecond note.\\par\n") {
		t.Errorf("notes are not separate paragraphs:\n%s", out)
	}
	floats := strings.Count(out, `\caption{`)
	if floats < 2 || strings.Count(out, `(continued)}`) != floats-1 || strings.Count(out, `\label{tab:t}`) != 1 {
		t.Errorf("200 rows in %d floats, %d continued, want several, all but the first continued", floats, strings.Count(out, "(continued)}"))
	}
	if rows := strings.Count(out, "row & 0.50 \\\\"); rows != 200 {
		t.Errorf("%d rows written, want 200", rows)
	}
	// A table wider than the page is set in parts, the name column repeated.
	wide := &Table{Name: "w", Title: "W", Columns: []string{"Name"}}
	row := []any{"row"}
	for i := range 30 {
		wide.Columns = append(wide.Columns, "Column "+string(rune('A'+i%26)))
		row = append(row, &v)
	}
	wide.Rows = [][]any{row}
	b.Reset()
	if err := wide.WriteLaTeX(&b); err != nil {
		t.Fatal(err)
	}
	if parts := strings.Count(b.String(), `\begin{tabular}{l`); parts < 2 || strings.Count(b.String(), "row & ") != parts {
		t.Errorf("31 columns in %d parts:\n%s", parts, b.String())
	}
}

// TestLaTeXSetsTheProjectsOwnSymbols: every character of the string
// literals the tables, notes and methods are written from (this package's
// and the comparisons' tables) is set as LaTeX, none as a code point in
// typewriter type — the √ of "√rel" and the ‖ of "KL(human ‖ model)"
// printed as {\ttfamily U+221A} and U+2016 before.
func TestLaTeXSetsTheProjectsOwnSymbols(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	files = append(files, "../../comparisons/tables.go")
	seen := map[rune]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fs := token.NewFileSet()
		var sc scanner.Scanner
		sc.Init(fs.AddFile(f, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := sc.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.STRING {
				continue
			}
			s, err := strconv.Unquote(lit)
			if err != nil {
				continue
			}
			for _, r := range s {
				if _, ok := seen[r]; !ok && r >= 0x80 {
					seen[r] = fs.Position(pos).String()
				}
			}
		}
	}
	if _, ok := seen['√']; !ok {
		t.Fatal("no √ found: the scan reads the wrong files")
	}
	for r, where := range seen {
		if got := latexEscape(string(r)); strings.Contains(got, "U+") {
			t.Errorf("%q (%s) is set as %s", r, where, got)
		}
	}
	if got := latexEscape("√rel, KL(human ‖ model)"); got != `$\surd$rel, KL(human $\|$ model)` {
		t.Errorf("got %s", got)
	}
}
