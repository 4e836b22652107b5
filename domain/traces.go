package domain

import "strconv"

// AnswerTrace is how a crowd participant gave one answer, as the page's
// script measured it (docs/studies.md#behavioural-traces): Changes, the
// times the answer was changed before it was sent; HiddenMS, the time the
// page was hidden (another tab, another window) while the screen was up;
// FirstInputMS, from the page's first paint to the participant's first
// interaction. Set is false without JavaScript: nothing was measured.
type AnswerTrace struct {
	Set          bool
	Changes      int
	HiddenMS     int
	FirstInputMS int
	// Signals and Honeypot are parsed apart from the three figures above
	// (docs/studies.md#integrity-signals): a malformed trace never loses
	// them, nor they the trace.
	Signals  AnswerSignals
	Honeypot string
	// Script is the server's verdict on the page's script token
	// (ScriptVerdict; docs/studies.md#server-evidence): N 1 when the
	// answer carried the page's token, 0 when not; invalid when not
	// checked (an answer stored before the check existed).
	Script Signal
}

// MaxAnswerChanges bounds the answer changes a page may report: far more
// than anyone clicks on one seven-point scale.
const MaxAnswerChanges = 1000

// ParseAnswerTrace reads the three hidden fields the page's script fills
// (answer_changes, hidden_ms, first_input_ms). All empty is no trace
// (JavaScript off); otherwise each must be a whole number, changes 0 to
// MaxAnswerChanges and the times 0 to MaxRT ms, or the error (EINVALID)
// names the field and the value.
func ParseAnswerTrace(changes, hidden, firstInput string) (AnswerTrace, error) {
	if changes == "" && hidden == "" && firstInput == "" {
		return AnswerTrace{}, nil
	}
	t := AnswerTrace{Set: true}
	for _, f := range []struct {
		name, v string
		max     int
		dst     *int
	}{{"answer_changes", changes, MaxAnswerChanges, &t.Changes}, {"hidden_ms", hidden, MaxRT, &t.HiddenMS}, {"first_input_ms", firstInput, MaxRT, &t.FirstInputMS}} {
		if len(f.v) > 9 {
			return AnswerTrace{}, Errorf(EINVALID, "%s %.12q…: not a whole number from 0 to %d", f.name, f.v, f.max)
		}
		n, err := strconv.Atoi(f.v)
		if err != nil || n < 0 || n > f.max {
			return AnswerTrace{}, Errorf(EINVALID, "%s %q: not a whole number from 0 to %d", f.name, f.v, f.max)
		}
		*f.dst = n
	}
	return t, nil
}
