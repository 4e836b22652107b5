package itemfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"pragmalab/domain"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Column names of the IMPAQTS-PID TSV as published (data/IMPAQTS-PID.csv),
// plus the optional explicit "period" column.
const (
	colID      = domain.PassageKeyColumn
	colFile    = "IMPAQTS_file"
	colTag     = "IMPAQTS_Implicit_content_tag"
	colKind    = "tag_simpl_IMPAQTS-PID"
	colTopic   = "topic"
	colText    = "text"
	colAnswer  = "right_answer"
	colAnsID   = "right_answer_id"
	colOptions = "MCs"
	colPeriod  = "period"
)

// requiredPassageColumns must be in the header; the others are optional.
var requiredPassageColumns = []string{colID, colFile, colKind, colText, colAnswer}

// MaxPassageRows bounds one import; the published file has 31,822 rows.
const MaxPassageRows = 200_000

// maxImportErrors is how many row errors one failed import reports.
const maxImportErrors = 20

// ImportError says where an import file is wrong: the data row (1 = first
// row after the header; 0 = the header), the line of the file where that row
// starts, and the column.
type ImportError struct {
	Row   int
	Line  int
	Field string
	Msg   string
}

func (e *ImportError) Error() string {
	var b strings.Builder
	if e.Row == 0 {
		fmt.Fprintf(&b, "header (line %d)", e.Line)
	} else {
		fmt.Fprintf(&b, "row %d (line %d)", e.Row, e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ", field %q", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// ParsePassagesTSV reads the IMPAQTS-PID TSV as published: tab separated,
// header line first, fields optionally quoted with doubled quotes inside and
// tabs, LF or CR LF line breaks within; the MCs field holds options A–D one
// per line. A byte-order mark at the start of a field is dropped and
// mis-encoded characters (Windows-1252 bytes or C1 controls standing for
// them) are repaired. Every passage is split into sentences.
//
// It is all or nothing: on any bad row it returns no passages and an error
// (one *ImportError per bad row, up to 20, joined) naming row and field.
func ParsePassagesTSV(r io.Reader) ([]domain.Passage, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read passages: %w", err)
	}
	// 8-bit text is repaired below; UTF-16 and the like are named.
	if line, msg := domain.EncodingProblem("passages file", data, true, true); msg != "" {
		return nil, &ImportError{Line: line, Msg: msg}
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	tr := &tsvReader{data: data, line: 1}
	header, hline, err := tr.record(0)
	if err != nil {
		return nil, err
	}
	if header == nil {
		return nil, &ImportError{Line: 1, Msg: "the file is empty"}
	}
	cols, err := passageColumns(header, hline)
	if err != nil {
		return nil, err
	}
	tr.names = header
	var (
		out  []domain.Passage
		errs []error
		seen = map[string]int{}
	)
	for row := 1; ; row++ {
		rec, line, err := tr.record(row)
		if err != nil {
			return nil, errors.Join(append(errs, err)...)
		}
		if rec == nil {
			break
		}
		if row > MaxPassageRows {
			return nil, &ImportError{Row: row, Line: line, Msg: fmt.Sprintf("more than %d rows", MaxPassageRows)}
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // blank line, e.g. at the end of the file
		}
		p, ferr := cols.passage(rec, len(header))
		if ferr == nil {
			ferr = p.Validate()
		}
		if ferr == nil {
			if first, dup := seen[p.Key]; dup {
				ferr = newFieldError(colID, "duplicate id %q (first on row %d)", p.Key, first)
			}
			seen[p.Key] = row
		}
		if ferr != nil {
			errs = append(errs, rowError(row, line, ferr))
			if len(errs) >= maxImportErrors {
				errs = append(errs, fmt.Errorf("stopped after %d bad rows", maxImportErrors))
				break
			}
			continue
		}
		out = append(out, p)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, &ImportError{Line: hline, Msg: "no passages after the header"}
	}
	return out, nil
}

func rowError(row, line int, err error) *ImportError {
	var fe *domain.FieldError
	if errors.As(err, &fe) {
		return &ImportError{Row: row, Line: line, Field: fe.Field, Msg: fe.Msg}
	}
	return &ImportError{Row: row, Line: line, Msg: err.Error()}
}

// passageCols maps the columns of one file's header to their positions;
// -1 marks an optional column the file lacks.
type passageCols struct {
	id, file, tag, kind, topic, text, answer, ansID, options, period int
}

func passageColumns(header []string, line int) (*passageCols, error) {
	idx := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(repairText(h))
		if h == "" {
			continue
		}
		if _, dup := idx[h]; dup {
			return nil, &ImportError{Line: line, Field: h, Msg: "column named twice in the header"}
		}
		idx[h] = i
	}
	for _, c := range requiredPassageColumns {
		if _, ok := idx[c]; !ok {
			return nil, &ImportError{Line: line, Field: c, Msg: "missing column (the header needs " + strings.Join(requiredPassageColumns, ", ") + ")"}
		}
	}
	at := func(name string) int {
		if i, ok := idx[name]; ok {
			return i
		}
		return -1
	}
	return &passageCols{
		id: at(colID), file: at(colFile), tag: at(colTag), kind: at(colKind),
		topic: at(colTopic), text: at(colText), answer: at(colAnswer),
		ansID: at(colAnsID), options: at(colOptions), period: at(colPeriod),
	}, nil
}

// passage builds one passage from a record; the error is a *domain.FieldError.
func (c *passageCols) passage(rec []string, width int) (domain.Passage, error) {
	if len(rec) != width {
		return domain.Passage{}, fmt.Errorf("has %d fields but the header has %d (missing or extra column; a tab or quote may be missing)", len(rec), width)
	}
	get := func(i int) string {
		if i < 0 {
			return ""
		}
		return strings.TrimSpace(repairText(rec[i]))
	}
	p := domain.Passage{
		Key:    get(c.id),
		Tag:    get(c.tag),
		Kind:   get(c.kind),
		Source: get(c.file),
		Text:   get(c.text),
		Topic:  -1,
		Answer: strings.ToUpper(get(c.ansID)),
	}
	if v := get(c.topic); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return p, newFieldError(colTopic, "%q is not an integer", v)
		}
		p.Topic = n
	}
	p.Period = domain.PeriodOfSource(p.Source)
	if v := get(c.period); v != "" {
		per, ok := domain.NormalizePeriod(v)
		if !ok {
			return p, newFieldError(colPeriod, "%q is not one of %s, %s, %s or a year", v, domain.Period1946, domain.Period1973, domain.Period1994)
		}
		p.Period = per
	}
	p.Explanation = stripOptionLetter(get(c.answer), p.Answer)
	if v := get(c.options); v != "" {
		opts, err := parseOptions(v)
		if err != nil {
			return p, err
		}
		p.Options = opts
	}
	p.Sentences = SplitSentences(p.Text)
	return p, nil
}

// stripOptionLetter removes the "A. " that the published right_answer
// repeats from its option line, keeping only the explanation.
func stripOptionLetter(s, letter string) string {
	if len(s) >= 3 && s[0] >= 'A' && s[0] <= 'D' && s[1] == '.' && (s[2] == ' ' || s[2] == '\t') {
		if letter == "" || s[:1] == letter {
			return strings.TrimSpace(s[2:])
		}
	}
	return s
}

// parseOptions reads the MCs field: lines "A. …" to "D. …"; a line without
// the next letter continues the option before it (or is its text, after a
// letter alone on its line).
func parseOptions(s string) ([4]string, error) {
	var opts [4]string
	next := 0
	for _, ln := range strings.Split(s, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" {
			continue
		}
		if next < 4 && len(ln) >= 2 && ln[0] == byte('A'+next) && ln[1] == '.' {
			opts[next] = strings.TrimSpace(ln[2:])
			next++
			continue
		}
		if next == 0 {
			return opts, newFieldError(colOptions, "does not start with option \"A. …\" (found %q)", clip(ln, 40))
		}
		if opts[next-1] == "" { // "A." alone on its line: its text follows
			opts[next-1] = ln
		} else {
			opts[next-1] += "\n" + ln
		}
	}
	if next != 4 {
		return opts, newFieldError(colOptions, "has options up to %c only; four (A–D) are needed, one per line", 'A'+next-1)
	}
	return opts, nil
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// repairText makes a field valid, clean UTF-8: bytes that are not UTF-8 and
// C1 control characters are read as the Windows-1252 characters they stand
// for (the published file's missing apostrophes), and byte-order marks are
// dropped. Clean text comes back unchanged without copying.
func repairText(s string) string {
	if !needsRepair(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeCP1252(&b, s[i])
		case r >= 0x80 && r <= 0x9F:
			writeCP1252(&b, byte(r))
		case r == '\uFEFF':
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func writeCP1252(b *strings.Builder, c byte) {
	r := charmap.Windows1252.DecodeByte(c)
	if r != utf8.RuneError && (r < 0x80 || r > 0x9F) {
		b.WriteRune(r)
	}
}

func needsRepair(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r <= 0x9F) || r == '\uFEFF' {
			return true
		}
		i += size
	}
	return false
}

// tsvReader splits tab-separated records by hand rather than with
// encoding/csv: it must report the line where a quote was left open, take a
// byte-order mark before an opening quote, and reject text after a closing
// quote instead of guessing (which LazyQuotes would do silently).
type tsvReader struct {
	data  []byte
	pos   int
	line  int // line number at pos
	buf   []byte
	names []string // header names, once read, for error messages
}

// record returns the next record and the line it starts on; nil at the end.
func (t *tsvReader) record(row int) ([]string, int, error) {
	if t.pos >= len(t.data) {
		return nil, t.line, nil
	}
	start := t.line
	var rec []string
	for {
		f, end, err := t.field(row, start, len(rec))
		if err != nil {
			return nil, start, err
		}
		rec = append(rec, f)
		if end {
			return rec, start, nil
		}
	}
}

// field reads one field; end reports whether it closed the record.
func (t *tsvReader) field(row, recLine, col int) (string, bool, error) {
	d := t.data
	if bytes.HasPrefix(d[t.pos:], []byte("\uFEFF\"")) {
		t.pos += 3 // a BOM before the opening quote: keep reading it as quoted
	}
	if t.pos < len(d) && d[t.pos] == '"' {
		return t.quoted(row, recLine, col)
	}
	i := t.pos
	for i < len(d) && d[i] != '\t' && d[i] != '\n' {
		i++
	}
	f := d[t.pos:i]
	end := i >= len(d) || d[i] == '\n'
	f = bytes.TrimSuffix(f, []byte("\r"))
	if i < len(d) {
		i++
		if d[i-1] == '\n' {
			t.line++
		}
	}
	t.pos = i
	return string(f), end, nil
}

func (t *tsvReader) quoted(row, recLine, col int) (string, bool, error) {
	d := t.data
	openLine := t.line
	t.buf = t.buf[:0]
	i := t.pos + 1
	for {
		j := bytes.IndexAny(d[i:], "\"\r\n")
		if j < 0 {
			return "", false, &ImportError{Row: row, Line: recLine, Field: t.colName(col),
				Msg: fmt.Sprintf("the quote opened on line %d is never closed", openLine)}
		}
		t.buf = append(t.buf, d[i:i+j]...)
		i += j
		switch d[i] {
		case '\r':
			// CR LF or a lone CR inside a field becomes LF; only the LF
			// ends a line, as in every other reader and in grep -n.
			if i+1 < len(d) && d[i+1] == '\n' {
				i++
				t.line++
			}
			t.buf = append(t.buf, '\n')
			i++
			continue
		case '\n':
			t.buf = append(t.buf, '\n')
			t.line++
			i++
			continue
		}
		if i+1 < len(d) && d[i+1] == '"' {
			t.buf = append(t.buf, '"')
			i += 2
			continue
		}
		i++ // the closing quote
		break
	}
	rest := d[i:]
	switch {
	case len(rest) == 0:
		t.pos = i
		return string(t.buf), true, nil
	case rest[0] == '\t':
		t.pos = i + 1
		return string(t.buf), false, nil
	case rest[0] == '\n':
		t.pos, t.line = i+1, t.line+1
		return string(t.buf), true, nil
	case len(rest) > 1 && rest[0] == '\r' && rest[1] == '\n':
		t.pos, t.line = i+2, t.line+1
		return string(t.buf), true, nil
	}
	return "", false, &ImportError{Row: row, Line: recLine, Field: t.colName(col),
		Msg: fmt.Sprintf("the quote opened on line %d closes on line %d but is followed by %q instead of a tab or a line end (an unescaped or unterminated quote?)",
			openLine, t.line, clip(string(firstLine(rest)), 20))}
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		return b[:i]
	}
	return b
}

// colName names a column by its header name, or by position beyond it.
func (t *tsvReader) colName(col int) string {
	if col < len(t.names) {
		return strings.TrimSpace(repairText(t.names[col]))
	}
	return "column " + strconv.Itoa(col+1)
}
