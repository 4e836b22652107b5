// Package analysis is the generic core of the statistics of
// docs/statistics.md: the reading of input files, intervals and
// bootstraps, Krippendorff's α, Fleiss' κ and number formatting. It speaks
// of no study design; the rooms below it answer one question each
// (docs/architecture.md#analysis). It is pure: plain values in, plain
// values out; no HTTP, no SQL.
package analysis

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"pragmalab/csvsafe"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxFieldLen bounds every field of an input file, so a malformed file cannot
// make the analysis hold arbitrarily large ids in memory.
const MaxFieldLen = 200

// InputError reports bad input at a line (1-based, the header is line 1) and
// column (the header name, or empty when the problem concerns a whole line
// or the file).
type InputError struct {
	Line   int
	Column string
	Msg    string
}

func (e *InputError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d, column %q: %s", e.Line, e.Column, e.Msg)
}

// TimeColumns are the optional columns every answer file may end with
// (docs/formats.md#answer-times): when the screen was shown and the answer
// arrived (RFC 3339), and the browser's response time in ms. Every reader
// accepts files with and without them and checks their values.
var TimeColumns = []string{"shown_at", "answered_at", "rt_ms"}

// maxRT bounds rt_ms: a day.
const maxRT = 24 * 60 * 60 * 1000

// Input reads a CSV file with a required header whose columns may come in
// any order; rows are handed out reordered to the wanted column list.
type Input struct {
	r     *csv.Reader
	Want  []string
	idx   []int    // position in the file of each wanted column
	Row   []string // reused: the current row in wanted order
	Line  int
	Times int // index in want of TimeColumns[0]
	// pick is the design version whose rows are read (0: every row), at
	// pickAt in the file (DesignVersionPick).
	pick, pickAt int
}

// NewInput reads the header and checks that it holds exactly the wanted
// columns (order free). Header names are matched after trimming spaces and a
// UTF-8 byte-order mark, case-insensitively, because spreadsheets add both.
func NewInput(r io.Reader, want []string, optional ...string) (*Input, error) {
	pick := 0
	if p, ok := r.(*DesignVersionPick); ok {
		r, pick = p.Reader, p.Version
	}
	required := len(want)
	want = append(want[:len(want):len(want)], optional...)
	times := len(want)
	want = append(want, TimeColumns...)
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &InputError{Line: 1, Msg: fmt.Sprintf("empty file: expected a header row with the columns %s", strings.Join(want, ", "))}
	}
	if err != nil {
		return nil, CsvError(err)
	}
	t := &Input{r: cr, Want: want, idx: make([]int, len(want)), Row: make([]string, len(want)), Line: 1, Times: times, pick: pick, pickAt: -1}
	for i := range t.idx {
		t.idx[i] = -1
	}
	for pos, h := range header {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")))
		if name == DesignVersionColumn {
			t.pickAt = pos
		}
		k := IndexOf(want, name)
		if k < 0 && name == DesignVersionColumn && pick > 0 {
			continue // read only to pick the rows
		}
		if k < 0 {
			return nil, &InputError{Line: 1, Column: h, Msg: fmt.Sprintf("unknown column (expected %s)", strings.Join(want, ", "))}
		}
		if t.idx[k] >= 0 {
			return nil, &InputError{Line: 1, Column: h, Msg: "column appears twice in the header"}
		}
		t.idx[k] = pos
	}
	for k, pos := range t.idx[:required] {
		if pos < 0 {
			return nil, &InputError{Line: 1, Column: want[k], Msg: "missing column in the header"}
		}
	}
	return t, nil
}

// ItemVersionColumn is the optional last column of the files that carry
// items (ratings, judgements): the version of the item an answer was given
// on. Files written before it existed have no such column and read the same.
const ItemVersionColumn = "item_version"

// CheckItemVersion checks the optional item_version field k of the current
// row: empty (absent) or a positive whole number.
func (t *Input) CheckItemVersion(k int) error {
	if k >= len(t.Row) || t.Row[k] == "" {
		return nil
	}
	if n, err := strconv.Atoi(t.Row[k]); err != nil || n < 1 {
		return t.Errf(k, "item_version %q is not a positive whole number", t.Row[k])
	}
	return nil
}

func IndexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Next returns the next row in wanted-column order (valid until the next
// call), or io.EOF. Fields are trimmed of surrounding spaces and checked
// against MaxFieldLen.
func (t *Input) Next() ([]string, error) {
	rec, err := t.r.Read()
	if err != nil {
		if err == io.EOF {
			return nil, err
		}
		return nil, CsvError(err)
	}
	t.Line, _ = t.r.FieldPos(0)
	if t.pick > 0 && t.pickAt >= 0 && t.pickAt < len(rec) && strings.TrimSpace(rec[t.pickAt]) != strconv.Itoa(t.pick) {
		return t.Next() // another design version's row
	}
	for k, pos := range t.idx {
		if pos < 0 { // an optional column the file does not have
			t.Row[k] = ""
			continue
		}
		// All surrounding white space, tabs too: "\tp1" and "p1" are one
		// participant, as " p1" and "p1" are. Exports neutralise formula
		// cells (csvsafe); reading undoes it.
		f := strings.TrimSpace(csvsafe.Unquote(rec[pos]))
		if len(f) > MaxFieldLen {
			return nil, t.Errf(k, "value longer than %d characters", MaxFieldLen)
		}
		// An id that is not UTF-8 (a file saved as Latin-1, say) would be
		// shown mangled and could match nothing; better to say so.
		if !utf8.ValidString(f) {
			return nil, t.Errf(k, "value %q is not valid UTF-8 (save the file as UTF-8)", f)
		}
		t.Row[k] = f
	}
	if err := t.checkTimes(); err != nil {
		return nil, err
	}
	return t.Row, nil
}

// Each calls f on every row of t in file order, each row valid only
// during its call, and returns the first error of reading or of f.
func (t *Input) Each(f func(row []string) error) error {
	for {
		row, err := t.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f(row); err != nil {
			return err
		}
	}
}

// ReadRows reads every row of t with parse, in file order, and fails on
// the first error; a file with no row fails with NoRows(what).
func ReadRows[T any](t *Input, what string, parse func(row []string) (T, error)) ([]T, error) {
	var out []T
	err := t.Each(func(row []string) error {
		v, err := parse(row)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, NoRows(what)
	}
	return out, nil
}

// NonEmpty checks that the first len(what) wanted columns of the current
// row are filled, failing with "empty <what>" on the first that is not.
func (t *Input) NonEmpty(what ...string) error {
	for k, w := range what {
		if t.Row[k] == "" {
			return t.Errf(k, "empty %s", w)
		}
	}
	return nil
}

// NotPooled checks that wanted column k of the current row, a what, is
// not a name the tables reserve for their pooled rows.
func (t *Input) NotPooled(k int, what string) error {
	if domain.IsPooledName(t.Row[k]) {
		return t.Errf(k, "%s", PooledNameMsg(what, t.Row[k]))
	}
	return nil
}

// checkTimes checks the optional time columns of the current row.
func (t *Input) checkTimes() error {
	for k := t.Times; k < t.Times+2; k++ {
		if v := t.Row[k]; v != "" {
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				return t.Errf(k, "%q is not an RFC 3339 time (like 2026-12-01T09:30:00Z)", v)
			}
		}
	}
	if v := t.Row[t.Times+2]; v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 0 || n > maxRT {
			return t.Errf(t.Times+2, "%q is not a response time in milliseconds (0 to %d)", v, maxRT)
		}
	}
	return nil
}

// NoRows is the error of a file holding nothing but its header. It names
// the header's line: a line 2 may not exist, and a quoted header name may
// run over several lines.
func NoRows(what string) *InputError {
	return &InputError{Line: 1, Msg: "no " + what + ": the file has a header but no rows"}
}

// Errf builds an InputError for wanted column k of the current row.
func (t *Input) Errf(k int, format string, a ...any) *InputError {
	return &InputError{Line: t.Line, Column: t.Want[k], Msg: fmt.Sprintf(format, a...)}
}

// CsvError turns encoding/csv's errors into an InputError with the line.
func CsvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return &InputError{Line: pe.Line, Msg: "wrong number of fields (the header has a different number of columns)"}
		}
		return &InputError{Line: pe.Line, Msg: fmt.Sprintf("%v (character %d)", pe.Err, pe.Column)}
	}
	return err
}

// ParseYesNo parses a yes/no field, reporting an empty one apart: each
// caller decides whether its column may be empty.
func ParseYesNo(s string) (v, empty, ok bool) {
	switch strings.ToLower(s) {
	case "yes", "y", "true", "1":
		return true, false, true
	case "no", "n", "false", "0":
		return false, false, true
	case "":
		return false, true, true
	}
	return false, false, false
}

// PooledNameMsg is the message of an input error for a reserved name.
func PooledNameMsg(what, name string) string {
	return fmt.Sprintf("%s %q is reserved: %q and %q (in any case) name the pooled rows of the tables; rename it", what, name, domain.TypeAll, domain.Overall)
}

// OrderTypes returns names (item types or kinds, each once) in the order
// tables list them (docs/statistics.md#conventions): the item types of domain.TableTypes
// in that order, then any other name in the order given; a pooled name is
// left out.
func OrderTypes(names []string) []string {
	out := make([]string, 0, len(names))
	for _, t := range domain.TableTypes {
		if slices.Contains(names, t) {
			out = append(out, t)
		}
	}
	for _, n := range names {
		if !slices.Contains(domain.TableTypes, n) && !domain.IsPooledName(n) {
			out = append(out, n)
		}
	}
	return out
}
