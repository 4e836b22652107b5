package domain

import (
	"fmt"
	"strings"
)

// The participant-level integrity flags (docs/studies.md#integrity-flags,
// names in docs/formats.md#crowd-participants-export). A flag marks a
// participant for the researcher's review: nothing excludes or rejects on
// it automatically.
const (
	FlagHoneypot       = "honeypot"
	FlagSyntheticInput = "synthetic_input"
	FlagWebdriver      = "webdriver"
	FlagPasteInText    = "paste_in_text"
	FlagNoPointerOrKey = "no_pointer_or_key"
	FlagLLMEcho        = "llm_echo"
	FlagSpeed          = "speed"
	FlagStraightLine   = "straight_line"
	// FlagMachineInstruction is the opt-in hidden instruction's flag
	// (docs/studies.md#machine-instruction), raised by ObeyedMachineInstruction.
	FlagMachineInstruction = "machine_instruction"
	// FlagClockMismatch and FlagUnscriptedSignals come from what the
	// server holds (docs/studies.md#server-evidence): a reported time its
	// clock contradicts, or the script's fields without the page's token.
	FlagClockMismatch     = "clock_mismatch"
	FlagUnscriptedSignals = "unscripted_signals"
)

// IntegrityFlagNames are every flag IntegrityFlags may give, in its order.
var IntegrityFlagNames = []string{FlagHoneypot, FlagSyntheticInput, FlagWebdriver, FlagPasteInText,
	FlagNoPointerOrKey, FlagLLMEcho, FlagSpeed, FlagStraightLine, FlagMachineInstruction,
	FlagClockMismatch, FlagUnscriptedSignals}

// IntegrityEvidence sums a participant's integrity signals over their
// answers (rating screens and questionnaire). Every count is over signals
// that were sent: an answer without them (no JavaScript) adds nothing, so
// a missing signal is never evidence.
type IntegrityEvidence struct {
	Answers          int // answers counted (rating screens and questionnaire)
	HoneypotAnswers  int // answers with the honeypot filled
	UntrustedEvents  int // input events dispatched by a script, summed
	UntrustedAnswers int // answers with at least one
	WebdriverAnswers int // answers sent with navigator.webdriver true
	// SignalledAnswers have a pointer_or_key signal (the script ran);
	// PointerOrKeyAnswers of them had a real pointer or key event.
	SignalledAnswers, PointerOrKeyAnswers int
	// TextPastes counts paste and drop events on free-text fields that
	// forbid pasting, TextForms the forms with such a field whose signal
	// was sent (a paste where pasting is allowed is no evidence).
	TextPastes, TextForms int
	// LLMEcho is the hook for the LLM-echo check (docs/studies.md#integrity-flags): the
	// caller that compared the participant's answers with a model's sets
	// it, with LLMEchoEvidence its explanation; the store never does.
	LLMEcho         bool
	LLMEchoEvidence string
	// MachineInstructed counts the rating screens that carried the hidden
	// instruction (crowd_ratings.machine_instruction not NULL),
	// MachineObeyed those answered with the point it asked.
	MachineInstructed, MachineObeyed int
	// The server's evidence (AddScreen; docs/studies.md#server-evidence),
	// over the rating screens whose script token was checked
	// (ScriptChecked): ClockReported of them reported a time,
	// ClockContradicted a time the server's clock contradicts (the first
	// worded in ClockExample), Unsent answered a screen the server never
	// sent, Unscripted carried the script's fields without its token.
	ScriptChecked, ClockReported, ClockContradicted, Unsent, Unscripted int
	ClockExample                                                        string
}

// Add counts one answer's signals and honeypot; text says whether the form
// had a free-text field that forbids pasting (its pastes then count for
// paste_in_text).
func (e *IntegrityEvidence) Add(s AnswerSignals, honeypot string, text bool) {
	e.Answers++
	if honeypot != "" {
		e.HoneypotAnswers++
	}
	if s.UntrustedEvents.Valid && s.UntrustedEvents.N > 0 {
		e.UntrustedEvents += s.UntrustedEvents.N
		e.UntrustedAnswers++
	}
	if s.Webdriver.Valid && s.Webdriver.N > 0 {
		e.WebdriverAnswers++
	}
	if s.PointerOrKey.Valid {
		e.SignalledAnswers++
		if s.PointerOrKey.N > 0 {
			e.PointerOrKeyAnswers++
		}
	}
	if text && s.Pastes.Valid {
		e.TextForms++
		e.TextPastes += s.Pastes.N
	}
}

// IntegrityFlag is one flag with the evidence the review page shows.
type IntegrityFlag struct {
	Name, Evidence string
}

// IntegrityFlags are the flags a participant meets, in IntegrityFlagNames'
// order (docs/studies.md#integrity-flags): e their integrity evidence, q
// their data-quality figures, s the study's settings (the speed and
// straight-line flags follow the study's own quality rules, as the
// participants table does).
func IntegrityFlags(e IntegrityEvidence, q CrowdQuality, s CrowdSettings) []IntegrityFlag {
	var out []IntegrityFlag
	add := func(ok bool, name, format string, args ...any) {
		if ok {
			out = append(out, IntegrityFlag{Name: name, Evidence: fmt.Sprintf(format, args...)})
		}
	}
	add(e.HoneypotAnswers > 0, FlagHoneypot, "hidden field filled on %s", answers(e.HoneypotAnswers))
	add(e.UntrustedEvents > 0, FlagSyntheticInput, "%d synthetic events on %s", e.UntrustedEvents, answers(e.UntrustedAnswers))
	add(e.WebdriverAnswers > 0, FlagWebdriver, "navigator.webdriver on %s", answers(e.WebdriverAnswers))
	add(e.TextPastes > 0, FlagPasteInText, "%d pastes or drops into fields that forbid pasting", e.TextPastes)
	add(e.SignalledAnswers > 0 && e.PointerOrKeyAnswers == 0, FlagNoPointerOrKey,
		"no pointer or key event on any of %s measured", answers(e.SignalledAnswers))
	add(e.LLMEcho, FlagLLMEcho, "%s", e.LLMEchoEvidence)
	var speed []string
	if q.Finished {
		speed = speedReasons(q, s)
	}
	add(len(speed) > 0, FlagSpeed, "%s", strings.Join(speed, "; "))
	run, straight := s.StraightLineReason(q)
	add(straight, FlagStraightLine, "%s", run)
	add(ObeyedMachineInstruction(e.MachineInstructed, e.MachineObeyed), FlagMachineInstruction,
		"obeyed %d of %d hidden instructions", e.MachineObeyed, e.MachineInstructed)
	add(e.ClockContradicted > 0 || e.Unsent >= MinUnsent, FlagClockMismatch, "%s", clockEvidence(e))
	add(e.Unscripted >= MinUnscripted, FlagUnscriptedSignals, "browser signals without the page's script token on %d of %s",
		e.Unscripted, answers(e.ScriptChecked))
	return out
}

// FlagNames are the names of fs, as the participants export joins them.
func FlagNames(fs []IntegrityFlag) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

func answers(n int) string {
	if n == 1 {
		return "1 answer"
	}
	return fmt.Sprintf("%d answers", n)
}

// speedReasons are the speed evidence against q: exceptionally fast
// (Prolific's definition, always on), then the study's own speed rules, as
// QualityReasons words them (fast-answer share, median response time, total
// time; not the hidden time).
func speedReasons(q CrowdQuality, s CrowdSettings) []string {
	var out []string
	if q.ExceptionallyFast {
		out = append(out, fmt.Sprintf("total time %d s, over %.0f SD below the mean (exceptionally fast)", q.TotalSeconds, ExceptionallyFastSD))
	}
	return append(append(out, s.FastAnswerReasons(q)...), qualityReasons(q, s.totalTimeRule)...)
}

// FastAnswerReasons are the study's rules on the answers' speed that q
// meets (the fast-answer share, the median response time), worded as
// QualityReasons words them: the speed flag of a file's answers, which
// have neither a total time nor Prolific's mean to compare with, is these.
func (s CrowdSettings) FastAnswerReasons(q CrowdQuality) []string {
	return qualityReasons(q, s.fastShareRule, s.medianRTRule)
}

// StraightLineReason is the study's straight-lining rule's reason when q
// meets it.
func (s CrowdSettings) StraightLineReason(q CrowdQuality) (string, bool) {
	return s.identicalRunRule(q)
}

// clockEvidence words the clock_mismatch flag's evidence: the reported
// times the server's clock contradicts, with the first as an example and
// the allowance, and the answers to screens never sent.
func clockEvidence(e IntegrityEvidence) string {
	var parts []string
	if e.ClockContradicted > 0 {
		parts = append(parts, fmt.Sprintf("reported time longer than the server measured on %d of %s (first: %s; allowance %d ms)",
			e.ClockContradicted, answers(e.ClockReported), e.ClockExample, ClockAllowanceMS))
	}
	if e.Unsent >= MinUnsent {
		parts = append(parts, fmt.Sprintf("%s to screens the server never sent", answers(e.Unsent)))
	}
	return strings.Join(parts, "; ")
}
