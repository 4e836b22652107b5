package analysis

import (
	"pragmalab/domain"
	"strconv"
)

// TraceColumns are the optional behavioural-trace columns of a ratings file
// (docs/formats.md#ratings-export): answer changes before sending, the time
// the page was hidden and the time from first paint to first interaction,
// each empty when the page's script did not run. The analysis does not use
// them; a reader checks them, so a file from the platform reads back.
var TraceColumns = []string{"answer_changes", "hidden_ms", "first_input_ms"}

// SignalColumns are the optional integrity-signal columns that follow the
// trace in a ratings file (docs/formats.md#ratings-export), the platform's
// own (domain.SignalColumns). The analysis does not use them; a file from
// the platform reads back.
var SignalColumns = domain.SignalColumns

// KeyColumns are the optional keystroke-summary columns of the judgements
// file (docs/formats.md#judgements-file), after SignalColumns
// (domain.KeyColumns); the analysis does not use them either.
var KeyColumns = domain.KeyColumns

// CheckTraces checks the optional trace fields from index k of the current
// row: empty or a whole number from 0 up (changes at most 1,000, times at
// most a day).
func (t *Input) CheckTraces(k int) error {
	for i, name := range TraceColumns {
		if k+i >= len(t.Row) || t.Row[k+i] == "" {
			continue
		}
		limit := maxRT
		if i == 0 {
			limit = 1000
		}
		if n, err := strconv.Atoi(t.Row[k+i]); err != nil || n < 0 || n > limit {
			return t.Errf(k+i, "%s %q is not a whole number from 0 to %d", name, t.Row[k+i], limit)
		}
	}
	return nil
}
