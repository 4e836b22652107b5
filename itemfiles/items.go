package itemfiles

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"pragmalab/domain"
	"slices"
	"strings"

	"pragmalab/csvsafe"
)

// itemFileFields are the column names (CSV) and keys (JSON Lines) of an
// implicature item file (docs/formats.md#items-csv): the item's field names,
// plus check for attention checks and training for crowd training items.
var itemFileFields = []string{"id", "type", "context", "utterance", "implicature", "cancellation", "negation", "strengthening", "neutral", "check", "training"}

var requiredItemFields = []string{"id", "type", "utterance", "implicature", "cancellation"}

// maxItemLine bounds one CSV record or JSON line; past it the file is
// rejected rather than read into memory without end.
const maxItemLine = 1 << 20

func lineError(line int, field, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if field != "" {
		return domain.Errorf(domain.EINVALID, "line %d, field %q: %s", line, field, msg)
	}
	return domain.Errorf(domain.EINVALID, "line %d: %s", line, msg)
}

func setItemField(it *domain.Item, field, v string) {
	switch field {
	case "id":
		it.Key = v
	case "type":
		it.Type = v
	case "context":
		it.Context = v
	case "utterance":
		it.Utterance = v
	case "implicature":
		it.Implicature = v
	case "cancellation":
		it.Cancellation = v
	case "negation":
		it.Negation = v
	case "strengthening":
		it.Strengthening = v
	case "neutral":
		it.Neutral = v
	case "check":
		it.Check = v
	case "training":
		it.Training = v
	}
}

func isItemField(name string) bool {
	for _, f := range itemFileFields {
		if f == name {
			return true
		}
	}
	return false
}

// ParseItemsCSV reads an implicature item CSV (header required, column order
// free). Any bad row rejects the whole file with an error naming its line and
// field.
func ParseItemsCSV(r io.Reader) ([]domain.Item, error) { return parseItemsCSV(r, nil) }

// ItemCheck is a study's own rule on an item read from a file (the
// conditions it declares, say): its error, a *domain.FieldError or any
// other, rejects the whole file, named by the item's line.
type ItemCheck func(*domain.Item) error

// readCSVHeader reads past a byte-order mark (spreadsheet programs write
// one) and reads the header of an items CSV file: each column, lower-cased
// and trimmed, must pass known and appear once. It returns the reader at
// the first row and each column's index. The items files of both kinds
// read their headers with it.
func readCSVHeader(br *bufio.Reader, known func(column string) error) (*csv.Reader, map[string]int, error) {
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	cr := csv.NewReader(&limitedLines{r: br, max: maxItemLine})
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, domain.Errorf(domain.EINVALID, "the file is empty")
	}
	if err != nil {
		return nil, nil, csvError(err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if err := known(h); err != nil {
			return nil, nil, err
		}
		if _, dup := col[h]; dup {
			return nil, nil, lineError(1, "", "column %q appears twice", h)
		}
		col[h] = i
	}
	return cr, col, nil
}

func parseItemsCSV(r io.Reader, check ItemCheck) ([]domain.Item, error) {
	br := bufio.NewReader(r)
	if err := checkEncoding("file", br, false); err != nil {
		return nil, err
	}
	cr, col, err := readCSVHeader(br, func(h string) error {
		if !isItemField(h) {
			return lineError(1, "", "unknown column %q (columns: %s)", h, strings.Join(itemFileFields, ", "))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, f := range requiredItemFields {
		if _, ok := col[f]; !ok {
			return nil, lineError(1, "", "missing column %q", f)
		}
	}
	var items []domain.Item
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // blank line
		}
		if len(rec) != len(col) {
			return nil, lineError(line, "", "has %d fields, the header has %d", len(rec), len(col))
		}
		var it domain.Item
		for name, i := range col {
			// Exports neutralise formula cells; the import undoes it.
			setItemField(&it, name, csvsafe.Unquote(rec[i]))
		}
		if err := checkItem(&it, line, seen, check); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "the file has a header but no items")
	}
	return items, nil
}

// checkItem validates an item read at line and checks its id is new.
func checkItem(it *domain.Item, line int, seen map[string]int, check ItemCheck) error {
	err := it.Validate()
	if err == nil && check != nil {
		err = check(it)
	}
	if err != nil {
		var fe *domain.FieldError
		if errors.As(err, &fe) {
			return lineError(line, fe.Field, "%s", fe.Msg)
		}
		return lineError(line, "", "%v", err)
	}
	if prev, dup := seen[it.Key]; dup {
		return lineError(line, "id", "duplicate id %q (first on line %d)", it.Key, prev)
	}
	seen[it.Key] = line
	return nil
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return lineError(pe.StartLine, "", "%v", pe.Err)
	}
	var le *lineTooLong
	if errors.As(err, &le) {
		return lineError(le.line, "", "longer than %d bytes", maxItemLine)
	}
	return domain.Errorf(domain.EINVALID, "cannot read the file: %v", err)
}

// ParseItemsJSONL reads implicature items as JSON Lines, one object a line
// with the item's field names as keys (docs/formats.md#items-json-lines).
func ParseItemsJSONL(r io.Reader) ([]domain.Item, error) { return parseItemsJSONL(r, nil) }

// ParseItemsJSONLChecked is ParseItemsJSONL with the study's own check.
func ParseItemsJSONLChecked(r io.Reader, check ItemCheck) ([]domain.Item, error) {
	return parseItemsJSONL(r, check)
}

// eachJSONObject calls fn with each non-empty line of a JSON Lines file
// as one object, with its line number; a UTF-8 byte-order mark is read
// past, and a line that is not an object, holds a key twice or is too
// long is refused naming it. The items files of both kinds read with it.
func eachJSONObject(br *bufio.Reader, fn func(line int, obj map[string]json.RawMessage) error) error {
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64*1024), maxItemLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(b) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			return lineError(line, "", "not a JSON object: %v", err)
		}
		if k, dup := duplicateKey(b); dup {
			return lineError(line, k, "appears twice in the object; which value is meant cannot be told")
		}
		if err := fn(line, obj); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return lineError(line+1, "", "longer than %d bytes", maxItemLine)
		}
		return domain.Errorf(domain.EINVALID, "cannot read the file: %v", err)
	}
	return nil
}

func parseItemsJSONL(r io.Reader, check ItemCheck) ([]domain.Item, error) {
	br := bufio.NewReader(r)
	if err := checkEncoding("file", br, false); err != nil {
		return nil, err
	}
	var items []domain.Item
	seen := map[string]int{}
	err := eachJSONObject(br, func(line int, obj map[string]json.RawMessage) error {
		var it domain.Item
		// In key order: the same file must always get the same message.
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			raw := obj[k]
			if !isItemField(k) {
				return lineError(line, k, "unknown field (fields: %s)", strings.Join(itemFileFields, ", "))
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				if k == "id" {
					var n json.Number
					if json.Unmarshal(raw, &n) == nil {
						s = n.String()
					} else {
						return lineError(line, k, "must be a string")
					}
				} else if string(raw) != "null" {
					return lineError(line, k, "must be a string")
				}
			}
			setItemField(&it, k, s)
		}
		for _, f := range requiredItemFields {
			if _, ok := obj[f]; !ok {
				return lineError(line, f, "is missing")
			}
		}
		if err := checkItem(&it, line, seen, check); err != nil {
			return err
		}
		items = append(items, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "the file is empty")
	}
	return items, nil
}

// WriteItemsCSV writes items in the import format, so an export can be
// imported again; formula cells are neutralised (csvsafe) and the reader
// undoes it.
func WriteItemsCSV(w io.Writer, items []domain.Item) error {
	cw := csvsafe.NewWriter(w)
	cw.Write(itemFileFields)
	for _, it := range items {
		cw.Write([]string{it.Key, it.Type, it.Context, it.Utterance, it.Implicature, it.Cancellation, it.Negation, it.Strengthening, it.Neutral, it.Check, it.Training})
	}
	cw.Flush()
	return cw.Error()
}

// WriteItemsJSONL writes items as JSON Lines in the import format.
func WriteItemsJSONL(w io.Writer, items []domain.Item) error {
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

// limitedLines fails a read once a single line grows past max bytes, so a
// 10 MB line is refused instead of being buffered whole.
type limitedLines struct {
	r     *bufio.Reader
	max   int
	run   int
	lines int
}

type lineTooLong struct{ line int }

func (e *lineTooLong) Error() string { return fmt.Sprintf("line %d is too long", e.line) }

func (l *limitedLines) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			l.lines++
			l.run = 0
			continue
		}
		l.run++
		if l.run > l.max {
			return i, &lineTooLong{line: l.lines + 1}
		}
	}
	return n, err
}

// newFieldError returns a *domain.FieldError naming the file's column.
func newFieldError(field, format string, a ...any) error {
	return &domain.FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// ParseItemFile reads implicature items as JSON Lines when the file's name
// says so or its first character opens an object, else as CSV. Both
// parsers name a file that is not UTF-8 alike, so the message is the
// parser's whichever is chosen.
func ParseItemFile(name string, r io.Reader) ([]domain.Item, error) {
	return ParseItemFileChecked(name, r, nil)
}

// ParseItemFileChecked is ParseItemFile with the study's own check of
// each item (nil: none).
func ParseItemFileChecked(name string, r io.Reader, check ItemCheck) ([]domain.Item, error) {
	br := bufio.NewReader(r)
	ext := strings.ToLower(filepath.Ext(name))
	first, _ := br.Peek(8)
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(first, []byte("\xef\xbb\xbf")), " \t\r\n")
	if ext == ".jsonl" || ext == ".json" || ext == ".ndjson" || (ext != ".csv" && len(trimmed) > 0 && trimmed[0] == '{') {
		return parseItemsJSONL(br, check)
	}
	return parseItemsCSV(br, check)
}

// duplicateKey finds a key that appears twice in one object of a JSON
// value, at any depth. encoding/json keeps the last value silently, so a
// line such as {"id":"a","id":"b"} would import something else than it
// shows; the value is known to be valid JSON.
func duplicateKey(b []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		keys  map[string]bool
		isObj bool
		key   bool // the next token in this object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if top != nil && top.isObj {
					top.key = true // the value of a key ends here
				}
				stack = append(stack, &frame{keys: map[string]bool{}, isObj: d == '{', key: true})
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if top == nil || !top.isObj {
			continue
		}
		if top.key {
			k, _ := tok.(string)
			if top.keys[k] {
				return k, true
			}
			top.keys[k] = true
			top.key = false
		} else {
			top.key = true
		}
	}
}
