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
func signalValues(tr domain.AnswerTrace) []any {
	s := tr.Signals
	return []any{signalValue(s.UntrustedEvents), signalValue(s.Pastes), signalValue(s.Webdriver), signalValue(s.PointerOrKey), tr.Honeypot}
}

// TraceColumns close the ratings export (docs/formats.md#ratings-export):
// the trace, then the integrity signals and the honeypot
// (docs/studies.md#integrity-signals).
var TraceColumns = append([]string{"answer_changes", "hidden_ms", "first_input_ms"}, SignalColumns...)

// SignalColumns are the integrity signals' columns, in the table and in the
// exports, after first_input_ms.
var SignalColumns = []string{"untrusted_events", "pastes", "webdriver", "pointer_or_key", "honeypot"}

// signalSQL lists SignalColumns for a query on the table aliased r.
const signalSQL = `r.untrusted_events, r.pastes, r.webdriver, r.pointer_or_key, r.honeypot`

// signalField is one signal in an export: empty when not sent.
func signalField(s domain.Signal) string {
	if !s.Valid {
		return ""
	}
	return strconv.Itoa(s.N)
}

// traceFields are the values of TraceColumns, empty without a trace.
func traceFields(tr domain.AnswerTrace) []string {
	s := tr.Signals
	sig := []string{signalField(s.UntrustedEvents), signalField(s.Pastes), signalField(s.Webdriver), signalField(s.PointerOrKey), tr.Honeypot}
	if !tr.Set {
		return append([]string{"", "", ""}, sig...)
	}
	return append([]string{strconv.Itoa(tr.Changes), strconv.Itoa(tr.HiddenMS), strconv.Itoa(tr.FirstInputMS)}, sig...)
}

// traceDest returns the scan destinations of answer_changes, hidden_ms,
// first_input_ms and SignalColumns, and the function that fills tr after
// the scan.
func traceDest(tr *domain.AnswerTrace) ([]any, func()) {
	var c, h, f, u, p, w, k sql.NullInt64
	var hp sql.NullString
	return []any{&c, &h, &f, &u, &p, &w, &k, &hp}, func() {
		sig := func(n sql.NullInt64) domain.Signal { return domain.Signal{Valid: n.Valid, N: int(n.Int64)} }
		*tr = domain.AnswerTrace{Set: c.Valid, Changes: int(c.Int64), HiddenMS: int(h.Int64), FirstInputMS: int(f.Int64),
			Signals:  domain.AnswerSignals{UntrustedEvents: sig(u), Pastes: sig(p), Webdriver: sig(w), PointerOrKey: sig(k)},
			Honeypot: hp.String}
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
