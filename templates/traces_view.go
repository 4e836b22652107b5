package templates

import (
	"fmt"

	"pragmalab/domain"
)

// traceLabel summarises a participant's behavioural traces for the
// participants table: answer changes, time hidden and the median time to
// the first interaction; "–" when no answer has a trace (JavaScript off).
func traceLabel(t domain.TraceSummary) string {
	if t.Answers == 0 {
		return "–"
	}
	return fmt.Sprintf("%d changes · %.0f s hidden · first input %d ms", t.Changes, float64(t.HiddenMS)/1000, t.MedianFirstInputMS)
}
