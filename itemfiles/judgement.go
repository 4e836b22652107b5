package itemfiles

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"pragmalab/csvsafe"
	"pragmalab/domain"
)

// The items file of a judgement study (docs/items.md#judgement-items,
// docs/formats.md#judgement-items-csv): one row per item and condition,
// the rows of one item sharing its id, so a minimal pair is one item in
// two conditions. The rows are grouped into one domain.Item of type
// judgement whose Variants hold the texts by condition. Any bad row
// refuses the whole file, naming its line and field.

// JudgementColumns are the columns (CSV) and keys (JSON Lines) of a
// judgement items file, in the order the writers use.
var JudgementColumns = []string{"item", "condition", "sentence", "context", "check", "training"}

var requiredJudgementColumns = []string{"item", "condition", "sentence"}

// implicatureOnly are the implicature file's columns a judgement file has
// not: named as such when they appear, so a file meant for another kind of
// study is told apart from a typo.
var implicatureOnly = []string{"id", "type", "utterance", "implicature", "cancellation", "negation", "strengthening", "neutral"}

// JudgementRules are the study's own rules a judgement items file is held
// to: its settings, whose conditions the rows must be in and against whose
// scale the practice ranges are checked.
type JudgementRules struct {
	Settings domain.CrowdSettings
}

// judgementRow is one row of the file, its values by column and the line
// it starts on.
type judgementRow struct {
	line int
	v    map[string]string
}

// ParseJudgementItemFile reads a judgement items file — JSON Lines when
// the name or the first character says so, else CSV, as ParseItemFile
// decides — and groups its rows into items, in the order of their first
// row.
func ParseJudgementItemFile(name string, r io.Reader, rules JudgementRules) ([]domain.Item, error) {
	br := bufio.NewReader(r)
	if err := checkEncoding("file", br, false); err != nil {
		return nil, err
	}
	ext := strings.ToLower(filepath.Ext(name))
	first, _ := br.Peek(8)
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(first, []byte("\xef\xbb\xbf")), " \t\r\n")
	var rows []judgementRow
	var err error
	if ext == ".jsonl" || ext == ".json" || ext == ".ndjson" || (ext != ".csv" && len(trimmed) > 0 && trimmed[0] == '{') {
		rows, err = judgementJSONLRows(br)
	} else {
		rows, err = judgementCSVRows(br)
	}
	if err != nil {
		return nil, err
	}
	return groupJudgementRows(rows, rules)
}

// judgementColumn checks a column (or key) name of a judgement file.
func judgementColumn(line int, name string) error {
	if slices.Contains(JudgementColumns, name) {
		return nil
	}
	if slices.Contains(implicatureOnly, name) {
		return lineError(line, name, "is an implicature item's column; a judgement study's items file has the columns %s (docs/items.md#judgement-items)", strings.Join(JudgementColumns, ", "))
	}
	return lineError(line, name, "unknown column (columns: %s)", strings.Join(JudgementColumns, ", "))
}

func judgementCSVRows(br *bufio.Reader) ([]judgementRow, error) {
	cr, col, err := readCSVHeader(br, func(h string) error { return judgementColumn(1, h) })
	if err != nil {
		return nil, err
	}
	for _, f := range requiredJudgementColumns {
		if _, ok := col[f]; !ok {
			return nil, lineError(1, "", "missing column %q (a judgement items file has %s)", f, strings.Join(JudgementColumns, ", "))
		}
	}
	var rows []judgementRow
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
			continue
		}
		if len(rec) != len(col) {
			return nil, lineError(line, "", "has %d fields, the header has %d", len(rec), len(col))
		}
		v := map[string]string{}
		for name, i := range col {
			v[name] = csvsafe.Unquote(rec[i])
		}
		rows = append(rows, judgementRow{line, v})
	}
	if len(rows) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "the file has a header but no items")
	}
	return rows, nil
}

func judgementJSONLRows(br *bufio.Reader) ([]judgementRow, error) {
	var rows []judgementRow
	err := eachJSONObject(br, func(line int, obj map[string]json.RawMessage) error {
		v := map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := judgementColumn(line, k); err != nil {
				return err
			}
			raw := obj[k]
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				var n json.Number
				// An id or a practice point may be written as a number.
				if (k == "item" || k == "training") && json.Unmarshal(raw, &n) == nil {
					s = n.String()
				} else if string(raw) != "null" {
					return lineError(line, k, "must be a string")
				}
			}
			v[k] = s
		}
		for _, f := range requiredJudgementColumns {
			if _, ok := v[f]; !ok {
				return lineError(line, f, "is missing")
			}
		}
		rows = append(rows, judgementRow{line, v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "the file is empty")
	}
	return rows, nil
}

// fieldLineError words err (a *domain.FieldError or other) at line.
func fieldLineError(line int, err error) error {
	var fe *domain.FieldError
	if errors.As(err, &fe) {
		return lineError(line, fe.Field, "%s", fe.Msg)
	}
	return lineError(line, "", "%s", domain.ErrorMessage(err))
}

// groupJudgementRows groups the rows of a judgement items file into
// items and holds each to the study's rules: every row valid on its own
// (texts, check, training, a practice range on the study's scale), a
// condition the study declares, an item+condition once, an attention
// check or practice item in one row, and every data item in every
// declared condition (domain.Item.ValidateJudgementItem).
func groupJudgementRows(rows []judgementRow, rules JudgementRules) ([]domain.Item, error) {
	declared := rules.Settings.Conditions
	if len(declared) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "the study names no conditions yet: name them in its settings (conditions) before importing its items, as the items file's condition column writes them")
	}
	type group struct {
		item      domain.Item
		firstLine int
		condLine  map[string]int
	}
	var order []string
	groups := map[string]*group{}
	for _, row := range rows {
		cond := strings.TrimSpace(row.v["condition"])
		one := domain.Item{Key: row.v["item"], Type: domain.TypeJudgement, Check: row.v["check"], Training: row.v["training"],
			Variants: map[string]domain.Variant{cond: {Context: row.v["context"], Sentence: row.v["sentence"]}}}
		if cond == "" {
			return nil, lineError(row.line, "condition", "is empty (the study's conditions: %s)", strings.Join(declared, ", "))
		}
		if err := one.Validate(); err != nil {
			return nil, fieldLineError(row.line, err)
		}
		if !slices.Contains(declared, cond) {
			return nil, lineError(row.line, "condition", "item %q is in the condition %q, which the study does not declare (its conditions: %s)", one.Key, cond, strings.Join(declared, ", "))
		}
		if one.Training != "" {
			if _, err := rules.Settings.PracticeRangeOf(one.Training); err != nil {
				return nil, lineError(row.line, "training", "%s", domain.ErrorMessage(err))
			}
		}
		g, ok := groups[one.Key]
		if !ok {
			g = &group{item: one, firstLine: row.line, condLine: map[string]int{cond: row.line}}
			groups[one.Key] = g
			order = append(order, one.Key)
			continue
		}
		if prev, dup := g.condLine[cond]; dup {
			return nil, lineError(row.line, "condition", "item %q is given twice in the condition %q (first on line %d)", one.Key, cond, prev)
		}
		if !g.item.IsData() || !one.IsData() {
			role, first := "an attention check", g.firstLine
			if g.item.Training != "" || one.Training != "" {
				role = "a practice item"
			}
			field := "check"
			if role == "a practice item" {
				field = "training"
			}
			return nil, lineError(row.line, field, "item %q is %s and is given in a second condition (%q; first on line %d); give it one row, in one condition", one.Key, role, cond, first)
		}
		g.condLine[cond] = row.line
		g.item.Variants[cond] = one.Variants[cond]
	}
	items := make([]domain.Item, 0, len(order))
	for _, key := range order {
		g := groups[key]
		if err := g.item.ValidateJudgementItem(declared); err != nil {
			return nil, fieldLineError(g.firstLine, err)
		}
		items = append(items, g.item)
	}
	return items, nil
}

// judgementRows are an item's rows as the files write them: one per
// condition, in the study's order of conditions (then any other, by name).
func judgementRows(it domain.Item, conditions []string) [][]string {
	var conds []string
	for _, c := range conditions {
		if _, ok := it.Variants[c]; ok {
			conds = append(conds, c)
		}
	}
	for _, c := range slices.Sorted(maps.Keys(it.Variants)) {
		if !slices.Contains(conds, c) {
			conds = append(conds, c)
		}
	}
	var rows [][]string
	for _, c := range conds {
		v := it.Variants[c]
		rows = append(rows, []string{it.Key, c, v.Sentence, v.Context, it.Check, it.Training})
	}
	return rows
}

// WriteJudgementItemsCSV writes judgement items in the import format, one
// row per item and condition (the conditions in the study's order), so
// the file imports again as it is; formula cells are neutralised.
func WriteJudgementItemsCSV(w io.Writer, items []domain.Item, conditions []string) error {
	cw := csvsafe.NewWriter(w)
	cw.Write(JudgementColumns)
	for _, it := range items {
		for _, r := range judgementRows(it, conditions) {
			cw.Write(r)
		}
	}
	cw.Flush()
	return cw.Error()
}

// JudgementTemplateCSV is the judgement items template of a study with
// the given conditions (docs/items.md#judgement-items): a minimal pair —
// one item with a sentence in each condition —, an attention check of
// each side and a practice item, so it imports into the study as it
// stands. Its sentences are German, the language of the example study
// the docs follow; the researcher replaces them.
func JudgementTemplateCSV(conditions []string) []byte {
	if len(conditions) == 0 {
		conditions = []string{"control", "target"}
	}
	pair := []string{
		"Der Koch hat die Suppe versalzen.",
		"Der Koch hat die Suppe versalzt.",
		"Die Suppe wurde vom Koch versalzen.",
	}
	var b bytes.Buffer
	w := csvsafe.NewWriter(&b)
	w.Write(JudgementColumns)
	for i, c := range conditions {
		s := pair[i%len(pair)]
		if i >= len(pair) {
			s = fmt.Sprintf("%s (%s)", s, c)
		}
		w.Write([]string{"1", c, s, "In der Küche:", "", ""})
	}
	w.Write([]string{"check-high", conditions[0], "Die Sonne scheint am Tag.", "", "high", ""})
	w.Write([]string{"check-low", conditions[0], "Tag am scheint die Sonne der.", "", "low", ""})
	w.Write([]string{"practice-1", conditions[0], "Das Kind spielt im Garten.", "", "", "high"})
	w.Flush()
	return b.Bytes()
}

// CheckJudgementItem holds one judgement item, given whole (a design
// file's), to the rules the items file's rows are held to: its texts and
// role (domain.Item.Validate), the study's conditions
// (domain.Item.ValidateJudgementItem) and a practice range on the study's
// scale.
func CheckJudgementItem(it *domain.Item, s domain.CrowdSettings) error {
	it.Type = domain.TypeJudgement
	if err := it.Validate(); err != nil {
		return err
	}
	if err := it.ValidateJudgementItem(s.Conditions); err != nil {
		return err
	}
	if it.Training != "" {
		if _, err := s.PracticeRangeOf(it.Training); err != nil {
			return &domain.FieldError{Field: "training", Msg: domain.ErrorMessage(err)}
		}
	}
	return nil
}

// WriteJudgementItemsJSONL writes judgement items as JSON Lines in the
// import format: one object a row, item and condition, keys the columns
// (empty optional columns left out).
func WriteJudgementItemsJSONL(w io.Writer, items []domain.Item, conditions []string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		for _, r := range judgementRows(it, conditions) {
			obj := map[string]string{}
			for i, c := range JudgementColumns {
				if r[i] != "" || i < len(requiredJudgementColumns) {
					obj[c] = r[i]
				}
			}
			if err := enc.Encode(obj); err != nil {
				return err
			}
		}
	}
	return nil
}
