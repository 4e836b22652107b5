package integrity

import (
	"encoding/csv"
	"fmt"
	"io"
	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/csvsafe"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// IntegrityRow is one row of a ratings file as `analyze integrity` reads
// it. A signal is -1 when its field is empty (the page's script did not
// run, or the column is absent): an empty signal is no evidence.
type IntegrityRow struct {
	Participant, Item, Condition, Check string
	Rating                              int
	Line                                int
	// RT is the answer's response time in ms: rt_ms, else answered_at −
	// shown_at; 0 when unknown.
	RT                                               int
	UntrustedEvents, Pastes, Webdriver, PointerOrKey int
	Honeypot                                         string
	// Machine is the machine_instruction column: 1 obeyed, 0 not, -1 no
	// hidden instruction on the screen (or no column).
	Machine int
}

// ReadIntegrityRatings reads a ratings file (docs/formats.md#ratings-file)
// with or without the answer times, traces and integrity signals, with
// the checks of ReadRatings (the same errors, naming line and column);
// a signal must be empty or a whole number (0–100,000 for the counts, 0 or
// 1 for webdriver and pointer_or_key). Rows come in file order.
func ReadIntegrityRatings(r io.Reader) ([]IntegrityRow, error) {
	sig := len(toplines.RatingsColumns) + 1 + len(analysis.TraceColumns)
	var out []IntegrityRow
	b, err := toplines.ReadRatingsFile(r, func(t *analysis.Input, row []string) error {
		ir, err := integrityRow(t, row, sig)
		out = append(out, ir)
		return err
	})
	if err != nil {
		return nil, err
	}
	if _, err := b.Done(toplines.ReadOptions{}); err != nil {
		return nil, err
	}
	return out, nil
}

// integrityRow builds the row once ReadRatings' checks passed; sig is the
// index of the first signal column.
func integrityRow(t *analysis.Input, row []string, sig int) (IntegrityRow, error) {
	v, _ := strconv.Atoi(row[toplines.ColRating])
	ir := IntegrityRow{Participant: row[toplines.ColParticipant], Item: row[toplines.ColItem], Condition: row[toplines.ColCondition],
		Check: strings.ToLower(row[toplines.ColCheck]), Rating: v, Line: t.Line, Honeypot: row[sig+4]}
	ir.RT = rowRT(t)
	ir.Machine = -1
	if m := row[toplines.RatingsMachineAt]; m != "" {
		ir.Machine, _ = strconv.Atoi(m) // checked by checkMachine
	}
	limits := []int{domain.MaxSignalCount, domain.MaxSignalCount, 1, 1}
	dst := []*int{&ir.UntrustedEvents, &ir.Pastes, &ir.Webdriver, &ir.PointerOrKey}
	for i, limit := range limits {
		*dst[i] = -1
		f := row[sig+i]
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 || n > limit {
			return ir, t.Errf(sig+i, "%s %q is not empty or a whole number from 0 to %d", analysis.SignalColumns[i], f, limit)
		}
		*dst[i] = n
	}
	return ir, nil
}

// rowRT is the current row's response time: rt_ms, else answered_at −
// shown_at (both already checked), else 0.
func rowRT(t *analysis.Input) int {
	if v := t.Row[t.Times+2]; v != "" {
		n, _ := strconv.Atoi(v)
		if n > 0 {
			return n
		}
	}
	shown, err1 := time.Parse(time.RFC3339Nano, t.Row[t.Times])
	answered, err2 := time.Parse(time.RFC3339Nano, t.Row[t.Times+1])
	if err1 != nil || err2 != nil || !answered.After(shown) {
		return 0
	}
	return int(answered.Sub(shown) / time.Millisecond)
}

// modelsColumns are the columns of a models file `analyze integrity` reads;
// ignoredModelColumns the other columns of a likert job's results CSV
// (docs/formats.md#scoring-results), accepted and not used.
var (
	modelsColumns       = []string{"model", "item_id", "condition", "number", "label"}
	ignoredModelColumns = []string{"item_type", "mean", "not_asked", "number_fwd", "number_rev"}
)

// ReadModelAnswers reads a models file (docs/formats.md#models-file): the
// columns model, item_id and number or label (number when both), and
// optionally condition; a likert job's results CSV as it is, or the
// alt-test's model,item_id,label. A rating must be a whole number from 1
// to points. With the columns p_1 … p_points (a likert job's results) each
// answer carries the model's distribution (rowDist). Bad input is an *InputError naming line and column.
func ReadModelAnswers(r io.Reader, points int) ([]ModelAnswer, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &analysis.InputError{Line: 1, Msg: "empty file: expected a header row with the columns model, item_id and number or label (condition optional)"}
	}
	if err != nil {
		return nil, analysis.CsvError(err)
	}
	// The reader reuses its record; errors name the normalised header.
	header = slices.Clone(header)
	for i, h := range header {
		header[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")))
	}
	idx, err := modelHeader(header)
	if err != nil {
		return nil, err
	}
	value := idx["number"]
	if value < 0 {
		value = idx["label"]
	}
	probs, err := probColumns(header, points)
	if err != nil {
		return nil, err
	}
	var out []ModelAnswer
	seen := map[echoKey]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, analysis.CsvError(err)
		}
		line, _ := cr.FieldPos(0)
		a, err := modelRow(rec, idx, value, line, points, header)
		if err != nil {
			return nil, err
		}
		if a.Dist, err = rowDist(rec, probs, header, line); err != nil {
			return nil, err
		}
		k := echoKey{a.Model + "\x00" + a.Item, a.Condition}
		if prev, ok := seen[k]; ok {
			return nil, &analysis.InputError{Line: line, Msg: fmt.Sprintf("model %q answers item %q in condition %q twice (lines %d and %d)", a.Model, a.Item, a.Condition, prev, line)}
		}
		seen[k] = line
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, analysis.NoRows("model answers")
	}
	return out, nil
}

// modelHeader maps each known column to its position (-1 when absent) and
// refuses an unknown or repeated column and a missing required one.
func modelHeader(header []string) (map[string]int, error) {
	idx := map[string]int{}
	for _, c := range modelsColumns {
		idx[c] = -1
	}
	for pos, name := range header {
		if slices.Contains(ignoredModelColumns, name) || isProbColumn(name) {
			continue
		}
		p, ok := idx[name]
		if !ok {
			return nil, &analysis.InputError{Line: 1, Column: name, Msg: "unknown column (expected model, item_id, number or label, condition, or the other columns of a likert job's results)"}
		}
		if p >= 0 {
			return nil, &analysis.InputError{Line: 1, Column: name, Msg: "column appears twice in the header"}
		}
		idx[name] = pos
	}
	for _, c := range []string{"model", "item_id"} {
		if idx[c] < 0 {
			return nil, &analysis.InputError{Line: 1, Column: c, Msg: "missing column in the header"}
		}
	}
	if idx["number"] < 0 && idx["label"] < 0 {
		return nil, &analysis.InputError{Line: 1, Column: "number", Msg: "missing column in the header (number or label)"}
	}
	return idx, nil
}

// isProbColumn reports p_1 … p_11, a likert result's distribution.
func isProbColumn(name string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "p_"))
	return strings.HasPrefix(name, "p_") && err == nil && n >= 1 && n <= 11
}

func modelRow(rec []string, idx map[string]int, value, line, points int, header []string) (ModelAnswer, error) {
	field := func(pos int) string {
		if pos < 0 {
			return ""
		}
		return strings.TrimSpace(csvsafe.Unquote(rec[pos]))
	}
	for _, pos := range []int{idx["model"], idx["item_id"], value, idx["condition"]} {
		if f := field(pos); len(f) > analysis.MaxFieldLen || !utf8.ValidString(f) {
			return ModelAnswer{}, &analysis.InputError{Line: line, Column: header[pos], Msg: fmt.Sprintf("value is longer than %d characters or not valid UTF-8", analysis.MaxFieldLen)}
		}
	}
	a := ModelAnswer{Model: field(idx["model"]), Item: field(idx["item_id"]), Condition: field(idx["condition"]), Line: line}
	switch {
	case a.Model == "":
		return a, &analysis.InputError{Line: line, Column: header[idx["model"]], Msg: "empty model"}
	case a.Item == "":
		return a, &analysis.InputError{Line: line, Column: header[idx["item_id"]], Msg: "empty item id"}
	}
	v := field(value)
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > points {
		return a, &analysis.InputError{Line: line, Column: header[value], Msg: fmt.Sprintf("rating %q is not a whole number from 1 to %d (the scale's points)", v, points)}
	}
	a.Rating = n
	return a, nil
}
