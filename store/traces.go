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

// signalValue is one integrity signal as stored: NULL when not sent.
func signalValue(s domain.Signal) any {
	if !s.Valid {
		return nil
	}
	return s.N
}

// signalValues are the stored values of SignalColumns, in their order.
func signalValues(tr domain.AnswerTrace) []any { return integrityValues(traceIntegrity(tr), false) }

// traceIntegrity is a rating's signals as the other answers carry them
// (no keystrokes on a rating screen).
func traceIntegrity(tr domain.AnswerTrace) domain.Integrity {
	return domain.Integrity{Signals: tr.Signals, Honeypot: tr.Honeypot}
}

// TraceColumns close the ratings export (docs/formats.md#ratings-export):
// the trace, then the integrity signals and the honeypot
// (docs/studies.md#integrity-signals).
var TraceColumns = append([]string{"answer_changes", "hidden_ms", "first_input_ms"}, SignalColumns...)

// SignalColumns are the integrity signals' columns (domain.SignalColumns).
var SignalColumns = domain.SignalColumns

// signalSQL lists SignalColumns for a query on the table aliased r.
var signalSQL = integritySQL("r", false)

// signalField is one signal in an export: empty when not sent.
func signalField(s domain.Signal) string {
	if !s.Valid {
		return ""
	}
	return strconv.Itoa(s.N)
}

// traceFields are the values of TraceColumns, empty without a trace.
func traceFields(tr domain.AnswerTrace) []string {
	sig := IntegrityRecord{Integrity: traceIntegrity(tr)}.fields(false)
	if !tr.Set {
		return append([]string{"", "", ""}, sig...)
	}
	return append([]string{strconv.Itoa(tr.Changes), strconv.Itoa(tr.HiddenMS), strconv.Itoa(tr.FirstInputMS)}, sig...)
}

// traceDest returns the scan destinations of answer_changes, hidden_ms,
// first_input_ms and SignalColumns, and the function that fills tr after
// the scan.
func traceDest(tr *domain.AnswerTrace) ([]any, func()) {
	var c, h, f sql.NullInt64
	var in IntegrityRecord
	sig, scanned := in.dest(false)
	return append([]any{&c, &h, &f}, sig...), func() {
		scanned()
		*tr = domain.AnswerTrace{Set: c.Valid, Changes: int(c.Int64), HiddenMS: int(h.Int64), FirstInputMS: int(f.Int64),
			Signals: in.Signals, Honeypot: in.Honeypot}
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
