package analysis

import (
	"fmt"
	"io"
	"strings"
)

// latexEscape makes text safe in LaTeX and spells the symbols the tables
// use in commands pdfLaTeX knows without extra packages.
var latexEscape = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	"κ", `$\kappa$`, "α", `$\alpha$`, "≤", `$\leq$`, "≥", `$\geq$`, "–", `--`, "×", `$\times$`,
	"⇔", `$\Leftrightarrow$`, "…", `\dots{}`, "−", `$-$`, "’", `'`,
)

// WriteLaTeX writes the table as a booktabs table environment, ready to
// \input (needs \usepackage{booktabs}); estimates carry their intervals
// ("0.85 [0.76, 0.93]") and the notes follow in small print.
func (t *Table) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%% %s (pragmalab analyze)\n\\begin{table}[htbp]\n\\centering\n", t.Title)
	fmt.Fprintf(&b, "\\caption{%s}\n\\label{tab:%s}\n", latexEscape.Replace(t.Title), strings.ReplaceAll(t.Name, "_", "-"))
	align := "l"
	for i := 1; i < len(t.Columns); i++ {
		if t.numericColumn(i) {
			align += "r"
		} else {
			align += "l"
		}
	}
	fmt.Fprintf(&b, "\\begin{tabular}{%s}\n\\toprule\n", align)
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = latexEscape.Replace(c)
	}
	b.WriteString(strings.Join(cols, " & ") + " \\\\\n\\midrule\n")
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = latexEscape.Replace(Text(v))
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	if len(t.Notes) > 0 {
		b.WriteString("\\par\\smallskip\n{\\footnotesize\n")
		for _, n := range t.Notes {
			b.WriteString(latexEscape.Replace(n) + "\n")
		}
		b.WriteString("}\n")
	}
	b.WriteString("\\end{table}\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// numericColumn reports whether column i holds numbers (judged by the
// first row, as the page does).
func (t *Table) numericColumn(i int) bool {
	if len(t.Rows) == 0 || i >= len(t.Rows[0]) {
		return false
	}
	_, isStr := t.Rows[0][i].(string)
	return !isStr
}
