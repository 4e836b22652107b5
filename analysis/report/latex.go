package report

import (
	"fmt"
	"golang.org/x/text/unicode/norm"
	"io"
	"math"
	"pragmalab/analysis"
	"strings"
	"unicode"
)

// LaTeX output (docs/formats.md#latex-tables). A table is written for
// pdfLaTeX with \documentclass{article} and \usepackage{booktabs} only, in
// the default font encoding (OT1): every character outside plain text is a
// command or math, and the table is laid out — split by columns and rows
// when it must be — to fit the article's text block (345 pt wide) without
// overfull boxes. Widths are estimated from the Computer Modern metrics of
// \footnotesize (latexWidths), with a margin.

// latexPage is the text block a table must fit, in points.
type latexPage struct{ width, height float64 }

// The text blocks of \documentclass[a4paper]{article} and
// \documentclass[a4paper,landscape]{article} (10 pt): the class keeps the
// text 345 pt wide in both; landscape leaves 346 pt of height.
var (
	latexPortrait  = latexPage{345, 598}
	latexLandscape = latexPage{345, 346}
)

// Layout constants of the tables (points): \footnotesize is 8 pt on a 9.5 pt
// baseline; \tabcolsep is set to 4 pt.
const (
	texLine     = 9.5
	texColSep   = 4.0
	texSlack    = 1.08 // estimated widths are multiplied by this
	texMinWrap  = 40.0 // narrowest wrapped text column
	texOtherCap = 70.0 // widest text column after the leading ones
	texHeadMin  = 36.0 // a header line may be this wide even over a narrow column
	// texWordCap bounds how far a wrapped text column widens to hold its
	// longest word whole: about 25 letters, more than any word of a
	// language; only a longer run (an id, a URL) is cut.
	texWordCap = 120.0
)

// latexWidths are the widths in points of ASCII 32…126 in \footnotesize
// (cmr8), measured with \settowidth.
var latexWidths = [95]float64{2.83, 2.36, 4.25, 7.08, 4.25, 7.08, 6.61, 2.36, 3.31, 3.31, 4.25, 6.61, 2.36, 2.83, 2.36, 4.25,
	4.25, 4.25, 4.25, 4.25, 4.25, 4.25, 4.25, 4.25, 4.25, 4.25, 2.36, 2.36, 6.61, 6.61, 6.61, 4.01, 6.61, 6.37, 6.02, 6.14, 6.49,
	5.78, 5.54, 6.67, 6.37, 3.06, 4.36, 6.6, 5.31, 7.78, 6.37, 6.61, 5.78, 6.61, 6.25, 4.72, 6.14, 6.37, 6.37, 8.73, 6.37, 6.37,
	5.19, 2.36, 4.25, 2.36, 4.25, 3.06, 2.36, 4.25, 4.72, 3.78, 4.72, 3.78, 2.6, 4.25, 4.72, 2.36, 2.6, 4.49, 2.36, 7.08, 4.72,
	4.25, 4.72, 4.49, 3.31, 3.35, 3.31, 4.72, 4.49, 6.14, 4.49, 4.49, 3.78, 4.25, 2.36, 4.25, 4.25}

// texTok is one character of text as LaTeX: its code, its width in
// \footnotesize and whether a line may break at it (a space).
type texTok struct {
	tex   string
	w     float64
	space bool
}

// texSymbols spell the non-ASCII symbols the tables and names use.
var texSymbols = map[rune]texTok{
	'κ': {`$\kappa$`, 4.9, false}, 'α': {`$\alpha$`, 5.5, false}, 'β': {`$\beta$`, 5.5, false}, 'χ': {`$\chi$`, 5.5, false},
	'μ': {`$\mu$`, 5.5, false}, 'σ': {`$\sigma$`, 5.5, false}, 'ρ': {`$\rho$`, 5.5, false},
	'≤': {`$\leq$`, 6.7, false}, '≥': {`$\geq$`, 6.7, false}, '≠': {`$\neq$`, 6.7, false}, '±': {`$\pm$`, 6.7, false},
	'×': {`$\times$`, 6.7, false}, '⇔': {`$\Leftrightarrow$`, 8.6, false}, '→': {`$\rightarrow$`, 8.6, false},
	'−': {`$-$`, 6.7, false}, '·': {`$\cdot$`, 2.4, false}, '²': {`$^2$`, 3.5, false},
	'–': {`--`, 4.3, false}, '—': {`---`, 8.5, false}, '…': {`\dots{}`, 11.4, false},
	'‘': {"`", 2.4, false}, '’': {`'`, 2.4, false}, '“': {"``", 4.3, false}, '”': {`''`, 4.3, false}, '„': {`,,`, 4.3, false},
	'\u00a0': {`~`, 2.9, true}, 'ß': {`\ss{}`, 4.8, false}, 'æ': {`\ae{}`, 6.2, false}, 'Æ': {`\AE{}`, 7.7, false},
	'œ': {`\oe{}`, 6.7, false}, 'Œ': {`\OE{}`, 8.7, false}, 'ø': {`\o{}`, 4.3, false}, 'Ø': {`\O{}`, 6.7, false},
	'ł': {`\l{}`, 2.4, false}, 'Ł': {`\L{}`, 5.4, false}, 'ı': {`\i{}`, 2.4, false}, '€': {`EUR`, 17.5, false},
	'†': {`\dag{}`, 4.4, false}, '‡': {`\ddag{}`, 4.4, false},
	// The symbols of the project's own headers and notes (TestLaTeXSetsTheProjectsOwnSymbols).
	'√': {`$\surd$`, 8.3, false}, '‖': {`$\|$`, 5, false}, 'Δ': {`$\Delta$`, 8.3, false}, 'Σ': {`$\Sigma$`, 7.2, false},
	'ε': {`$\varepsilon$`, 4.7, false}, 'θ': {`$\theta$`, 4.7, false}, 'π': {`$\pi$`, 5.7, false}, 'ω': {`$\omega$`, 6.2, false},
	'δ': {`$\delta$`, 4.4, false}, 'λ': {`$\lambda$`, 5.8, false}, 'τ': {`$\tau$`, 4.4, false}, 'φ': {`$\phi$`, 6, false},
	'≈': {`$\approx$`, 7.8, false}, '∞': {`$\infty$`, 10, false}, '°': {`$^\circ$`, 3.9, false},
	'¡': {"!`", 2.8, false}, '¿': {"?`", 4.7, false}, 'º': {`$^{\mathrm{o}}$`, 3.5, false},
	'⁰': {`$^0$`, 3.5, false}, '¹': {`$^1$`, 3.5, false}, '³': {`$^3$`, 3.5, false}, '⁴': {`$^4$`, 3.5, false},
	'⁵': {`$^5$`, 3.5, false}, '⁶': {`$^6$`, 3.5, false}, '⁷': {`$^7$`, 3.5, false}, '⁸': {`$^8$`, 3.5, false},
	'⁹': {`$^9$`, 3.5, false}, '⁻': {`$^-$`, 5.4, false}, 'ᵢ': {`$_i$`, 2.4, false}, 'ₖ': {`$_k$`, 3.7, false},
}

// texAccents are the combining marks OT1 can set, as accent commands.
var texAccents = map[rune]string{
	'\u0300': "\\`", '\u0301': `\'`, '\u0302': `\^`, '\u0303': `\~`, '\u0304': `\=`, '\u0306': `\u`, '\u0307': `\.`,
	'\u0308': `\"`, '\u030a': `\r`, '\u030b': `\H`, '\u030c': `\v`, '\u0327': `\c`, '\u0323': `\d`, '\u0331': `\b`,
}

// texTokens turns text into LaTeX tokens: specials escaped, < > | in math,
// straight quotes as opening or closing quotes, accented letters as accent
// commands, other symbols from texSymbols, and anything else OT1 cannot
// print as its code point in typewriter type. Guillemets (not in OT1)
// become quotes.
func texTokens(s string) []texTok {
	s = strings.NewReplacer("« ", `"`, "«", `"`, " »", `"`, "»", `"`).Replace(s)
	var out []texTok
	rs := []rune(norm.NFC.String(s))
	for i, r := range rs {
		prev := rune(' ')
		if i > 0 {
			prev = rs[i-1]
		}
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		out = append(out, texRune(r, prev, next))
	}
	return out
}

func texRune(r, prev, next rune) texTok {
	if r < 0x80 {
		return texASCII(r, prev, next)
	}
	if t, ok := texSymbols[r]; ok {
		return t
	}
	return texDecomposed(r)
}

// texASCII sets an ASCII character: TeX's specials escaped, straight
// quotes turned by the character before, ligatures broken, control
// characters as spaces.
func texASCII(r, prev, next rune) texTok {
	w := 4.3
	if r >= 32 && r < 127 {
		w = latexWidths[r-32]
	}
	switch r {
	case ' ', '\t', '\n', '\r':
		return texTok{" ", latexWidths[0], true}
	case '\\':
		return texTok{`\textbackslash{}`, 4.3, false}
	case '&', '%', '$', '#', '_', '{', '}':
		return texTok{`\` + string(r), w, false}
	case '~':
		return texTok{`\textasciitilde{}`, 4.3, false}
	case '^':
		return texTok{`\textasciicircum{}`, 4.3, false}
	case '<', '>', '|':
		return texTok{"$" + string(r) + "$", 6.7, false}
	case '"':
		return texQuote(prev)
	case '-', '`', '!', '?', '\'', ',':
		if breaksLigature(r, next) {
			return texTok{string(r) + "{}", w, false}
		}
	}
	if r < 32 || r == 127 {
		return texTok{" ", latexWidths[0], true}
	}
	return texTok{string(r), w, false}
}

// texQuote turns a straight double quote: opening after a space or an
// opening bracket, closing elsewhere.
func texQuote(prev rune) texTok {
	if unicode.IsSpace(prev) || strings.ContainsRune("([{", prev) {
		return texTok{"``", 4.3, false}
	}
	return texTok{`''`, 4.3, false}
}

// breaksLigature says r followed by next would set a ligature in OT1 and
// needs a {} between: "--" (an en dash), doubled backquotes, apostrophes
// or commas (quotes), and a backquote after "!" or "?" (¡, ¿).
func breaksLigature(r, next rune) bool {
	if r == '-' {
		return next == '-'
	}
	return next == '`' || (r == '\'' && next == '\'') || (r == ',' && next == ',') || (r == '`' && next == '`')
}

// texDecomposed sets a letter with accents as its ASCII base under TeX
// accents, or else as its code point.
func texDecomposed(r rune) texTok {
	if d := []rune(norm.NFD.String(string(r))); len(d) > 1 && d[0] < 0x80 {
		tex, w := string(d[0]), latexWidths[max(0, min(94, int(d[0])-32))]
		if d[0] == 'i' {
			tex = `\i`
		}
		for _, m := range d[1:] {
			acc, ok := texAccents[m]
			if !ok {
				return texCodePoint(r)
			}
			tex = acc + "{" + tex + "}"
		}
		return texTok{"{" + tex + "}", w, false}
	}
	return texCodePoint(r)
}

// texCodePoint writes a character pdfLaTeX cannot set in OT1 as "U+4E2D" in
// typewriter type, so the name stays recognisable.
func texCodePoint(r rune) texTok {
	code := fmt.Sprintf("U+%04X", r)
	return texTok{`{\ttfamily ` + code + `}`, 4.25 * float64(len(code)), false}
}

// latexEscape writes text as LaTeX (no line-break hints).
func latexEscape(s string) string { return latexEscapeToks(texTokens(s)) }

// texWidth is the estimated width of text in \footnotesize.
func texWidth(toks []texTok) float64 {
	w := 0.0
	for _, t := range toks {
		w += t.w
	}
	return w * texSlack
}

// texWrap writes text for a box of the given width: a run of characters
// wider than the box gets \allowbreak points, so it breaks instead of
// sticking out. It returns the LaTeX and the number of lines it takes
// (greedy, as TeX fills a ragged-right paragraph).
func texWrap(toks []texTok, width float64) (string, int) {
	var b strings.Builder
	lines, line, run := 1, 0.0, 0.0
	for _, t := range toks {
		w := t.w * texSlack
		if t.space {
			b.WriteString(" ")
			line += w
			run = 0
			continue
		}
		if run+w > width-2 {
			b.WriteString(`\allowbreak{}`)
			lines++
			line, run = 0, 0
		} else if line+w > width-2 {
			// TeX breaks at the last space: the current run moves down.
			lines++
			line = run
		}
		b.WriteString(t.tex)
		line += w
		run += w
	}
	return b.String(), lines
}

// texNumber writes a printed number or interval: an ASCII minus before a
// digit becomes a math minus, the missing mark an en dash.
func texNumber(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if r == '-' && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) {
			b.WriteString(`$-$`)
			continue
		}
		b.WriteString(texRune(r, ' ', 0).tex)
	}
	return b.String()
}

// texCell is one laid-out cell: its LaTeX, width (without column
// separation) and height in lines.
type texCell struct {
	tex   string
	w     float64
	lines int
}

// texColumn is a laid-out column.
type texColumn struct {
	align  byte // 'l' or 'r'
	w      float64
	header texCell
	cells  []texCell
}

// numericCell reports whether v is a number cell (not text).
func numericCell(v any) bool {
	_, isStr := v.(string)
	return !isStr
}

// numericColumn reports whether column i holds numbers: some row holds a
// number there and the others at most the missing mark.
func (t *Table) numericColumn(i int) bool {
	num := false
	for _, r := range t.Rows {
		if i >= len(r) {
			continue
		}
		if numericCell(r[i]) {
			num = true
		} else if r[i] != analysis.Missing && r[i] != NotAvailable && r[i] != KappaNoVariation {
			return false
		}
	}
	return num
}

// layoutColumns lays out every column, the leading name columns wrapped at
// keyCap points; with whole, no wrapped column is narrower than its
// longest word (up to texWordCap), so lines break between words only.
func (t *Table) layoutColumns(keyCap float64, whole bool) []texColumn {
	cols := make([]texColumn, len(t.Columns))
	keys := t.keyColumns()
	for i := range t.Columns {
		c := &cols[i]
		c.align = 'l'
		if t.numericColumn(i) {
			c.align = 'r'
		}
		if c.align == 'r' {
			for _, r := range t.Rows {
				c.cells = append(c.cells, numberCell(cellAt(r, i)))
			}
		} else {
			limit := texOtherCap
			if i < keys {
				limit = keyCap
			}
			natural, word := 0.0, 0.0
			for _, r := range t.Rows {
				toks := texTokens(Text(cellAt(r, i)))
				natural = math.Max(natural, texWidth(toks))
				word = math.Max(word, longestWord(toks))
			}
			if whole {
				limit = math.Max(limit, word)
			}
			wrap := natural > limit
			for _, r := range t.Rows {
				toks := texTokens(Text(cellAt(r, i)))
				if !wrap {
					c.cells = append(c.cells, texCell{latexEscapeToks(toks), texWidth(toks), 1})
					continue
				}
				tex, lines := texWrap(toks, limit)
				// No hyphenation either: a word is whole on its line.
				c.cells = append(c.cells, texCell{fmt.Sprintf(`\parbox[t]{%.1fpt}{\raggedright\hyphenpenalty=10000 %s\strut}`, limit, tex), limit, lines})
			}
		}
		body := 0.0
		for _, cell := range c.cells {
			body = math.Max(body, cell.w)
		}
		c.header = headerCell(t.Columns[i], body, c.align)
		c.w = math.Max(body, c.header.w)
	}
	return cols
}

// longestWord is the width texWrap gives the longest run of toks without
// a space, with the margin it keeps, among the runs at most texWordCap
// wide: a column at least this wide holds each such word on one line.
// A longer run is no word (an id, a URL) and is cut where it must be.
func longestWord(toks []texTok) float64 {
	run, longest := 0.0, 0.0
	end := func() {
		if run+2 <= texWordCap {
			longest = math.Max(longest, run+2)
		}
		run = 0
	}
	for _, t := range toks {
		if t.space {
			end()
			continue
		}
		run += t.w * texSlack
	}
	end()
	return longest
}

func cellAt(r []any, i int) any {
	if i < len(r) {
		return r[i]
	}
	return ""
}

func latexEscapeToks(toks []texTok) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.tex)
	}
	return b.String()
}

// numberCell lays out a number; an estimate with an interval takes two
// lines, the interval in \scriptsize under the value.
func numberCell(v any) texCell {
	if e, ok := v.(EstNA); ok {
		val, na := Text(e.V), naText(e.NA)
		w := math.Max(texWidth(texTokens(val)), 0.95*texWidth(texTokens(na)))
		return texCell{`\begin{tabular}[t]{@{}r@{}}` + texNumber(val) + `\\{\scriptsize ` + latexEscape(na) + `}\end{tabular}`, w, 2}
	}
	if e, ok := v.(analysis.Est); ok && e.V != nil && e.CI != nil {
		val, ci := Text(e.V), analysis.CIText(e.CI)
		w := math.Max(texWidth(texTokens(val)), 0.95*texWidth(texTokens(ci)))
		return texCell{`\begin{tabular}[t]{@{}r@{}}` + texNumber(val) + `\\{\scriptsize ` + texNumber(ci) + `}\end{tabular}`, w, 2}
	}
	s := Text(v)
	return texCell{texNumber(s), texWidth(texTokens(s)), 1}
}

// headerCell sets a column name on as many lines as keep it about as narrow
// as the column's cells.
func headerCell(name string, body float64, align byte) texCell {
	words := strings.Fields(name)
	limit := math.Max(body, texHeadMin)
	for _, w := range words {
		limit = math.Max(limit, texWidth(texTokens(w)))
	}
	var lines []string
	var cur []string
	width := 0.0
	for _, w := range words {
		ww := texWidth(texTokens(w))
		if len(cur) > 0 && width+latexWidths[0]+ww > limit {
			lines = append(lines, strings.Join(cur, " "))
			cur, width = nil, 0
		}
		if len(cur) > 0 {
			width += latexWidths[0]
		}
		cur = append(cur, w)
		width += ww
	}
	if len(cur) > 0 {
		lines = append(lines, strings.Join(cur, " "))
	}
	w := 0.0
	for i, l := range lines {
		w = math.Max(w, texWidth(texTokens(l)))
		lines[i] = latexEscape(l)
	}
	if len(lines) <= 1 {
		return texCell{strings.Join(lines, ""), w, 1}
	}
	return texCell{fmt.Sprintf(`\begin{tabular}[b]{@{}%c@{}}%s\end{tabular}`, align, strings.Join(lines, `\\`)), w, len(lines)}
}

// keyColumns counts the leading text columns: they name a row, so every
// part of a table split by columns repeats them.
func (t *Table) keyColumns() int {
	k := 0
	for k < len(t.Columns) && !t.numericColumn(k) {
		k++
	}
	if k == len(t.Columns) {
		return min(1, k)
	}
	return k
}

// columnParts splits the columns after the keys into parts that fit the
// width with the keys repeated.
func columnParts(cols []texColumn, keys int, width float64) [][]int {
	keyW := 0.0
	for _, c := range cols[:keys] {
		keyW += c.w + 2*texColSep
	}
	var parts [][]int
	var cur []int
	used := keyW
	for i := keys; i < len(cols); i++ {
		w := cols[i].w + 2*texColSep
		if len(cur) > 0 && used+w > width {
			parts = append(parts, cur)
			cur, used = nil, keyW
		}
		cur = append(cur, i)
		used += w
	}
	if len(cur) > 0 || len(parts) == 0 {
		parts = append(parts, cur)
	}
	for p := range parts {
		keysIdx := make([]int, keys)
		for k := range keysIdx {
			keysIdx[k] = k
		}
		parts[p] = append(keysIdx, parts[p]...)
	}
	return parts
}

// partsWidth is the width of the widest column part.
func partsWidth(cols []texColumn, parts [][]int) float64 {
	widest := 0.0
	for _, part := range parts {
		w := 0.0
		for _, c := range part {
			w += cols[c].w + 2*texColSep
		}
		widest = math.Max(widest, w)
	}
	return widest
}

// paragraphLines estimates the lines a paragraph of \footnotesize text
// takes at the given width.
func paragraphLines(text string, width float64) int {
	_, n := texWrap(texTokens(text), width)
	return n
}

// latexPlan is how a table is set: its columns, and per float its rows and
// the column parts stacked in it.
type latexPlan struct {
	cols   []texColumn
	floats []latexFloat
	notes  []string
	// notesApart puts the notes in a float of their own after the last.
	notesApart bool
}

type latexFloat struct {
	parts      [][]int
	start, end int
}

// plan lays the table out for the page: of the widths tried for the
// leading name columns (they repeat in every column part), the one giving
// the fewest floats, then the fewest parts, then the widest. The column
// parts of a row range share a float when its rows fit a page stacked,
// else each part has floats of its own.
func (t *Table) plan(page latexPage) latexPlan {
	var best latexPlan
	bestParts := 0
	notes, notesH := texNotes(t.Notes, page.width)
	// The caption (10 pt on 12 pt, 10 pt above it) and the skip below it.
	avail := page.height - 10 - float64(paragraphLines(t.Title+" (continued)", page.width/1.25))*12*1.25 - 8 - 12
	keys := t.keyColumns()
	// Words stay whole unless no layout fits with them whole (names of
	// several long words side by side); only then are they cut.
	for _, whole := range []bool{true, false} {
		for _, keyCap := range []float64{math.Inf(1), 160, 130, 110, 90, 70, 55, texMinWrap} {
			if !math.IsInf(keyCap, 1) && keyCap*float64(keys) > page.width*0.6 {
				continue
			}
			p, parts := t.planWith(keyCap, whole, keys, page, avail, notes, notesH)
			if p.floats == nil {
				continue // too wide, or a row taller than a page
			}
			if best.floats == nil || len(p.floats) < len(best.floats) || (len(p.floats) == len(best.floats) && parts < bestParts) {
				best, bestParts = p, parts
			}
		}
		if best.floats != nil {
			break
		}
	}
	if best.floats == nil {
		// No width keeps every row on a page (names of thousands of
		// characters): one row per float, narrowest names.
		best = latexPlan{cols: t.layoutColumns(texMinWrap, false), notes: notes, notesApart: len(notes) > 0}
		parts := columnParts(best.cols, keys, page.width)
		for r := range max(len(t.Rows), 1) {
			best.floats = append(best.floats, latexFloat{parts: parts, start: r, end: min(r+1, len(t.Rows))})
		}
	}
	return best
}

// texNotes sets the notes as paragraphs of the page's width, and their
// height with the skip above them.
func texNotes(notes []string, width float64) ([]string, float64) {
	var out []string
	h := 0.0
	for _, n := range notes {
		tex, lines := texWrap(texTokens(n), width)
		out = append(out, tex)
		h += float64(lines) * texLine
	}
	if len(out) > 0 {
		h += 8
	}
	return out, h
}

// planWith lays the table out with the name columns at most keyCap wide:
// the column parts stacked in one float when they fit, else each part in
// floats of its own. No floats when the parts are wider than the page or
// a row is taller than it; parts is how many column parts there are.
func (t *Table) planWith(keyCap float64, whole bool, keys int, page latexPage, avail float64, notes []string, notesH float64) (p latexPlan, parts int) {
	cols := t.layoutColumns(keyCap, whole)
	colParts := columnParts(cols, keys, page.width)
	if partsWidth(cols, colParts) > page.width {
		return latexPlan{}, len(colParts)
	}
	p = latexPlan{cols: cols, notes: notes}
	p.floats, p.notesApart = packRows(cols, [][][]int{colParts}, len(t.Rows), avail, notesH)
	if p.floats == nil {
		groups := make([][][]int, len(colParts))
		for i, part := range colParts {
			groups[i] = [][]int{part}
		}
		p.floats, p.notesApart = packRows(cols, groups, len(t.Rows), avail, notesH)
	}
	return p, len(colParts)
}

// packRows fills floats with rows, group after group (a group is the
// column parts stacked in one float). It returns nil when a single row
// does not fit a page.
func packRows(cols []texColumn, groups [][][]int, rows int, avail, notesH float64) ([]latexFloat, bool) {
	var floats []latexFloat
	apart := false
	for g, parts := range groups {
		room := avail
		for _, part := range parts {
			room -= partHeadHeight(cols, part)
		}
		for start := 0; start < rows || start == 0; {
			end, h := start, 0.0
			for end < rows && h+partsRowHeight(cols, parts, end) <= room {
				h += partsRowHeight(cols, parts, end)
				end++
			}
			if end == start && rows > 0 {
				return nil, false
			}
			floats = append(floats, latexFloat{parts: parts, start: start, end: end})
			if g == len(groups)-1 && end == rows {
				apart = notesH > 0 && h+notesH > room
			}
			if end == rows {
				break
			}
			start = end
		}
	}
	return floats, apart
}

// partHeadHeight is the height a column part takes in a float besides
// its rows: its header, three rules and the skip between parts.
func partHeadHeight(cols []texColumn, part []int) float64 {
	headLines := 1
	for _, c := range part {
		headLines = max(headLines, cols[c].header.lines)
	}
	return float64(headLines)*texLine + 16
}

// partsRowHeight is the height of row r in every column part stacked.
func partsRowHeight(cols []texColumn, parts [][]int, r int) float64 {
	h := 0.0
	for _, part := range parts {
		lines := 1
		for _, c := range part {
			lines = max(lines, cols[c].cells[r].lines)
		}
		h += float64(lines)*texLine + 1
		if lines > 1 { // wrapped names: TeX may need a line more than the estimate
			h += float64(lines) * texLine * 0.08
		}
	}
	return h
}

// WriteLaTeX writes the table as booktabs table environments, ready to
// \input (docs/formats.md#latex-tables): estimates carry their intervals
// under them and the notes follow as paragraphs in small print. A table too
// wide for the page is set in column parts, the leading name columns
// repeated, stacked in one float when they fit; one too long for a page
// continues in further floats ("(continued)").
func (t *Table) WriteLaTeX(w io.Writer) error {
	page, orient := latexPortrait, "A4 portrait: \\documentclass[a4paper]{article}"
	if t.Landscape {
		page, orient = latexLandscape, "A4 landscape: \\documentclass[a4paper,landscape]{article} with \\pdfpagewidth=\\paperwidth \\pdfpageheight=\\paperheight"
	}
	p := t.plan(page)
	var b strings.Builder
	fmt.Fprintf(&b, "%% %s (pragmalab analyze; laid out for %s, \\usepackage{booktabs})\n", strings.ReplaceAll(t.Title, "\n", " "), orient)
	n := len(p.floats)
	if p.notesApart {
		n++
	}
	for i, f := range p.floats {
		if i > 0 && i%6 == 0 {
			b.WriteString("\\clearpage\n") // LaTeX holds at most 18 floats waiting
		}
		withNotes := i == len(p.floats)-1 && !p.notesApart && len(p.notes) > 0
		writeLaTeXFloat(&b, t, p.cols, f.parts, f.start, f.end, i == 0, withNotes, p.notes)
	}
	if p.notesApart {
		writeLaTeXNotes(&b, t, p.notes)
	}
	if n > 6 {
		b.WriteString("\\clearpage\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeLaTeXFloat writes rows start…end-1 as one float, each column part a
// tabular of its own.
func writeLaTeXFloat(b *strings.Builder, t *Table, cols []texColumn, parts [][]int, start, end int, first, withNotes bool, notes []string) {
	b.WriteString("\\begin{table}[htbp]\n\\centering\n")
	title := latexEscape(t.Title)
	if first {
		fmt.Fprintf(b, "\\caption{%s}\n\\label{tab:%s}\n", title, strings.ReplaceAll(t.Name, "_", "-"))
	} else {
		fmt.Fprintf(b, "\\caption{%s (continued)}\n", title)
	}
	b.WriteString("\\medskip\n\\footnotesize\n\\setlength{\\tabcolsep}{4pt}\n")
	for p, part := range parts {
		if p > 0 {
			b.WriteString("\\par\\medskip\n")
		}
		align := make([]byte, len(part))
		head := make([]string, len(part))
		for k, c := range part {
			align[k] = cols[c].align
			head[k] = cols[c].header.tex
		}
		fmt.Fprintf(b, "\\begin{tabular}{%s}\n\\toprule\n%s \\\\\n\\midrule\n", align, strings.Join(head, " & "))
		for r := start; r < end; r++ {
			cells := make([]string, len(part))
			for k, c := range part {
				cells[k] = cols[c].cells[r].tex
			}
			b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
		}
		b.WriteString("\\bottomrule\n\\end{tabular}\n")
	}
	if withNotes {
		writeNotes(b, notes)
	}
	b.WriteString("\\end{table}\n\n")
}

// writeLaTeXNotes writes notes too long to share a float with the last
// rows as a float of their own.
func writeLaTeXNotes(b *strings.Builder, t *Table, notes []string) {
	fmt.Fprintf(b, "\\begin{table}[htbp]\n\\footnotesize\n\\textbf{Notes to the table ``%s''}\n", latexEscape(t.Title))
	writeNotes(b, notes)
	b.WriteString("\\end{table}\n\n")
}

// writeNotes writes the notes as separate ragged-right paragraphs.
func writeNotes(b *strings.Builder, notes []string) {
	b.WriteString("\\par\\medskip\n{\\raggedright\n")
	for _, n := range notes {
		b.WriteString(n + "\\par\n")
	}
	b.WriteString("}\n")
}
