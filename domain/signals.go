package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxHoneypot bounds what is kept of a filled honeypot, in bytes: enough to
// show the reviewer what the program typed, no room for a payload.
const MaxHoneypot = 200

// Signal is one integrity signal of an answer: Valid is false when the
// page did not send it (no JavaScript) or sent nonsense; an invalid signal
// is no evidence either way.
type Signal struct {
	Valid bool
	N     int
}

// AnswerSignals are the integrity signals the page's script measured on
// one screen (docs/studies.md#integrity-signals): UntrustedEvents, the
// input events with isTrusted false (dispatched by a script, not the
// user agent); Pastes, the paste and drop events on text fields;
// Webdriver, navigator.webdriver as 1 or 0; PointerOrKey, 1 when any
// pointer or key event came before the answer.
type AnswerSignals struct {
	UntrustedEvents, Pastes, Webdriver, PointerOrKey Signal
}

// SignalColumns are the integrity signals' columns, in the tables, the
// exports and the files the analysis reads back, after first_input_ms
// (docs/formats.md#ratings-export).
var SignalColumns = []string{"untrusted_events", "pastes", "webdriver", "pointer_or_key", "honeypot"}

// KeyColumns are the keystroke summary's columns
// (docs/studies.md#keystroke-summaries), in the tables and the files of
// forms with free text, after SignalColumns.
var KeyColumns = []string{"typed_chars", "inserted_chars", "iki_median_ms", "iki_iqr_ms"}

// MaxSignalCount clamps the counted signals: more events than any screen
// gets from a person, still recorded as "many".
const MaxSignalCount = 100000

// ParseSignal reads one signal field leniently, because the answer must
// never be lost to it: empty, not a whole number or negative is no
// signal; above max is clamped to max.
func ParseSignal(v string, max int) Signal {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 64 {
		return Signal{}
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return Signal{}
		}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n > max { // only digits: an error is an overflow
		return Signal{Valid: true, N: max}
	}
	return Signal{Valid: true, N: n}
}

// ParseAnswerSignals reads the four signal fields the page's script fills
// (untrusted_events, pastes, webdriver, pointer_or_key), each on its own:
// one malformed field leaves out only that field.
func ParseAnswerSignals(untrusted, pastes, webdriver, pointerOrKey string) AnswerSignals {
	return AnswerSignals{
		UntrustedEvents: ParseSignal(untrusted, MaxSignalCount),
		Pastes:          ParseSignal(pastes, MaxSignalCount),
		Webdriver:       ParseSignal(webdriver, 1),
		PointerOrKey:    ParseSignal(pointerOrKey, 1),
	}
}

// ParseHoneypot is what is kept of the honeypot field: "" when a person
// left it empty (spaces count as empty), else at most MaxHoneypot bytes
// of valid UTF-8.
func ParseHoneypot(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > MaxHoneypot {
		v = v[:MaxHoneypot]
		for len(v) > 0 && !utf8.ValidString(v) {
			v = v[:len(v)-1]
		}
	}
	return strings.ToValidUTF8(v, "\uFFFD")
}

// KeySummary summarises the keystrokes on a form's free-text fields
// (docs/studies.md#keystroke-summaries), never the keys themselves: Typed,
// the characters entered by key presses; Inserted, those that arrived
// otherwise (paste, drop, autofill, a script setting the value);
// IKIMedian and IKIIQR, the median and interquartile range of the
// intervals between key presses, in ms. Each is invalid when the page's
// script did not run or sent nonsense.
type KeySummary struct {
	Typed, Inserted, IKIMedian, IKIIQR Signal
}

// MaxKeyChars clamps the character counts: more than the longest free-text
// field holds many times over.
const MaxKeyChars = 1000000

// MaxInterKeyMS clamps the inter-key intervals: ten minutes between two key
// presses is already no typing.
const MaxInterKeyMS = 600000

// ParseKeySummary reads the four keystroke fields the page's script fills
// (typed_chars, inserted_chars, iki_median_ms, iki_iqr_ms), each on its own
// and as leniently as ParseSignal: nothing in them refuses the answer.
func ParseKeySummary(typed, inserted, median, iqr string) KeySummary {
	return KeySummary{
		Typed:     ParseSignal(typed, MaxKeyChars),
		Inserted:  ParseSignal(inserted, MaxKeyChars),
		IKIMedian: ParseSignal(median, MaxInterKeyMS),
		IKIIQR:    ParseSignal(iqr, MaxInterKeyMS),
	}
}

// Integrity is what an answer form other than the crowd's rating screen
// records beside the answer (docs/studies.md#integrity-signals): the
// signals, the honeypot, and on forms with free text the keystroke
// summary.
type Integrity struct {
	Signals  AnswerSignals
	Honeypot string
	Keys     KeySummary
}
