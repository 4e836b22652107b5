package store

import (
	"database/sql"
	"pragmalab/domain"
	"slices"
	"strconv"
)

// traceValue is one field of an answer's trace as stored: NULL without a
// trace.
func traceValue(tr domain.AnswerTrace, v int) any {
	if !tr.Set {
		return nil
	}
	return v
}

// TraceColumns close the ratings export (docs/formats.md#ratings-export).
var TraceColumns = []string{"answer_changes", "hidden_ms", "first_input_ms"}

// traceFields are the values of TraceColumns, empty without a trace.
func traceFields(tr domain.AnswerTrace) []string {
	if !tr.Set {
		return []string{"", "", ""}
	}
	return []string{strconv.Itoa(tr.Changes), strconv.Itoa(tr.HiddenMS), strconv.Itoa(tr.FirstInputMS)}
}

// traceDest returns the scan destinations of answer_changes, hidden_ms and
// first_input_ms, and the function that fills tr after the scan.
func traceDest(tr *domain.AnswerTrace) ([]any, func()) {
	var c, h, f sql.NullInt64
	return []any{&c, &h, &f}, func() {
		*tr = domain.AnswerTrace{Set: c.Valid, Changes: int(c.Int64), HiddenMS: int(h.Int64), FirstInputMS: int(f.Int64)}
	}
}

// summariseTraces sums one participant's answer traces.
func summariseTraces(trs []domain.AnswerTrace) domain.TraceSummary {
	var out domain.TraceSummary
	var first []int
	for _, t := range trs {
		if !t.Set {
			continue
		}
		out.Answers++
		out.Changes += t.Changes
		out.HiddenMS += t.HiddenMS
		first = append(first, t.FirstInputMS)
	}
	if n := len(first); n > 0 {
		slices.Sort(first)
		out.MedianFirstInputMS = first[n/2]
		if n%2 == 0 {
			out.MedianFirstInputMS = (first[n/2-1] + first[n/2]) / 2
		}
	}
	return out
}

// traceSum is a participant's trace figure for the export: "" when none of
// their answers has a trace.
func traceSum(t domain.TraceSummary, v int) string {
	if t.Answers == 0 {
		return ""
	}
	return strconv.Itoa(v)
}
