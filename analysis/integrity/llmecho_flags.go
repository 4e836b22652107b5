package integrity

import (
	"fmt"
	"pragmalab/domain"
	"slices"
)

// The participant-level integrity flags that a ratings export
// carries the evidence for (docs/statistics.md#integrity-flags), in the
// order they are listed.
// They are the names of the participants export's integrity_flags
// (domain.IntegrityFlagNames), so a file and the platform agree.
const (
	FlagHoneypot       = domain.FlagHoneypot
	FlagSyntheticInput = domain.FlagSyntheticInput
	FlagWebdriver      = domain.FlagWebdriver
	FlagPasteInText    = domain.FlagPasteInText
	FlagNoPointerOrKey = domain.FlagNoPointerOrKey
	FlagLLMEcho        = domain.FlagLLMEcho
	FlagSpeed          = domain.FlagSpeed
	FlagStraightLine   = domain.FlagStraightLine
)

// IntegrityFlagNames lists every flag in its order.
var IntegrityFlagNames = domain.IntegrityFlagNames

// IntegrityOptions are the thresholds of the flags: the LLM-echo's, and
// the study's data-quality rules (FastMS, ExcludeFastPercent,
// ExcludeMedianRT, ExcludeRun of domain.CrowdSettings, each off at 0 as in
// a study's settings).
type IntegrityOptions struct {
	Echo    EchoOptions
	Quality domain.CrowdSettings
	// Reference, when not empty, is the trusted humans' ratings: llm_echo
	// is then the rule of docs/statistics.md#llm-echo-against-a-reference
	// with Fit, not the pool's own humans.
	Reference []EchoRating
	Fit       FitOptions
}

// SignalSummary sums a participant's integrity signals over the answers
// that carry each one.
type SignalSummary struct {
	UntrustedEvents   int `json:"untrusted_events"`
	Pastes            int `json:"pastes"`
	WebdriverAnswers  int `json:"webdriver_answers"`
	PointerOrKeyShown int `json:"pointer_or_key_measured"`
	PointerOrKeyYes   int `json:"pointer_or_key_answers"`
	HoneypotAnswers   int `json:"honeypot_answers"`
	// MachineInstructed screens carried the hidden instruction
	// (docs/studies.md#machine-instruction); MachineObeyed of them were
	// answered as it asked.
	MachineInstructed  int    `json:"machine_instructed"`
	MachineObeyed      int    `json:"machine_obeyed"`
	Honeypot           string `json:"honeypot"` // the first filled honeypot, as typed
	AnswersWithSignals int    `json:"answers_with_signals"`
}

// ParticipantIntegrity is one participant's flags with their evidence.
type ParticipantIntegrity struct {
	Participant string `json:"participant_id"`
	Answers     int    `json:"answers"`
	// Flags are the flags met, in IntegrityFlagNames order; Evidence says,
	// for each, what met it.
	Flags    []string          `json:"flags"`
	Evidence map[string]string `json:"evidence"`
	Signals  SignalSummary     `json:"signals"`
	// LongestRun, MedianRT (ms, 0 unknown) and FastShare (over Timed
	// answers) are the data-quality measures of docs/studies.md#data-quality-flags.
	LongestRun int     `json:"longest_identical_run"`
	MedianRT   int     `json:"median_rt_ms"`
	FastShare  float64 `json:"fast_share"`
	Timed      int     `json:"timed_answers"`
	// LLMEcho is nil without models, or with a reference;
	// LLMEchoReference nil without a reference.
	LLMEcho          *EchoResult `json:"llm_echo"`
	LLMEchoReference *FitResult  `json:"llm_echo_reference"`
}

// Integrity computes every participant's flags from a ratings file's rows
// and, with answers, the LLM-echo against each model
// (docs/statistics.md#integrity-flags). Participants come in the order the
// rows first name them. An empty signal is never evidence.
func Integrity(rows []IntegrityRow, answers []ModelAnswer, opt IntegrityOptions) []ParticipantIntegrity {
	var order []string
	byP := map[string][]IntegrityRow{}
	var data []EchoRating
	for _, r := range rows {
		if _, ok := byP[r.Participant]; !ok {
			order = append(order, r.Participant)
		}
		byP[r.Participant] = append(byP[r.Participant], r)
		if r.Check == "" {
			data = append(data, EchoRating{Participant: r.Participant, Item: r.Item, Condition: r.Condition, Rating: r.Rating})
		}
	}
	echo := map[string]*EchoResult{}
	fits := referenceFits(data, answers, opt)
	if len(answers) > 0 && len(opt.Reference) == 0 {
		res := LLMEcho(data, answers, opt.Echo)
		for i := range res {
			echo[res[i].Participant] = &res[i]
		}
	}
	out := make([]ParticipantIntegrity, 0, len(order))
	for _, p := range order {
		pi := participantIntegrity(p, byP[p], opt.Quality)
		if f := fits[p]; f != nil {
			pi.LLMEchoReference = f
			if f.Flagged {
				pi.add(FlagLLMEcho, f.Reason)
			}
		}
		if e := echo[p]; e != nil {
			pi.LLMEcho = e
			if e.Flagged {
				pi.add(FlagLLMEcho, e.Reason)
			}
		}
		pi.sortFlags()
		out = append(out, pi)
	}
	return out
}

// participantIntegrity sums one participant's signals and applies the
// signal and data-quality flags.
func participantIntegrity(p string, rows []IntegrityRow, set domain.CrowdSettings) ParticipantIntegrity {
	pi := ParticipantIntegrity{Participant: p, Answers: len(rows), Evidence: map[string]string{}, Flags: []string{}}
	ratings := make([]int, len(rows))
	rts := make([]int, len(rows))
	for i, r := range rows {
		ratings[i], rts[i] = r.Rating, r.RT
		pi.Signals.addRow(r)
	}
	pi.signalFlags()
	q := domain.CrowdQualityOf(ratings, rts, set.FastMS)
	pi.LongestRun, pi.MedianRT, pi.FastShare, pi.Timed = q.LongestRun, q.MedianRT, q.FastShare, q.Timed
	// The study's own rules, each under the flag it names.
	for _, reason := range set.FastAnswerReasons(q) {
		pi.add(FlagSpeed, reason)
	}
	if reason, ok := set.StraightLineReason(q); ok {
		pi.add(FlagStraightLine, reason)
	}
	return pi
}

func (s *SignalSummary) addRow(r IntegrityRow) {
	if r.UntrustedEvents >= 0 || r.Pastes >= 0 || r.Webdriver >= 0 || r.PointerOrKey >= 0 || r.Honeypot != "" {
		s.AnswersWithSignals++
	}
	s.UntrustedEvents += max(r.UntrustedEvents, 0)
	s.Pastes += max(r.Pastes, 0)
	if r.Webdriver == 1 {
		s.WebdriverAnswers++
	}
	if r.PointerOrKey >= 0 {
		s.PointerOrKeyShown++
		s.PointerOrKeyYes += r.PointerOrKey
	}
	if r.Machine >= 0 {
		s.MachineInstructed++
		s.MachineObeyed += r.Machine
	}
	if r.Honeypot != "" {
		if s.HoneypotAnswers == 0 {
			s.Honeypot = r.Honeypot
		}
		s.HoneypotAnswers++
	}
}

// signalFlags applies the flags of the integrity signals: each needs a
// signal that was measured and says so; an empty one says nothing.
func (pi *ParticipantIntegrity) signalFlags() {
	s := pi.Signals
	if s.HoneypotAnswers > 0 {
		pi.add(FlagHoneypot, fmt.Sprintf("the hidden field filled on %d of %d answers (%q)", s.HoneypotAnswers, pi.Answers, s.Honeypot))
	}
	if s.UntrustedEvents > 0 {
		pi.add(FlagSyntheticInput, fmt.Sprintf("%d input events dispatched by a script", s.UntrustedEvents))
	}
	if s.WebdriverAnswers > 0 {
		pi.add(FlagWebdriver, fmt.Sprintf("navigator.webdriver on %d of %d answers", s.WebdriverAnswers, pi.Answers))
	}
	if s.Pastes > 0 {
		pi.add(FlagPasteInText, fmt.Sprintf("%d paste or drop events on text fields", s.Pastes))
	}
	if s.PointerOrKeyShown > 0 && s.PointerOrKeyYes == 0 {
		pi.add(FlagNoPointerOrKey, fmt.Sprintf("no pointer or key event before any of the %d answers measured", s.PointerOrKeyShown))
	}
	if domain.ObeyedMachineInstruction(s.MachineInstructed, s.MachineObeyed) {
		pi.add(domain.FlagMachineInstruction, fmt.Sprintf("obeyed %d of %d hidden instructions", s.MachineObeyed, s.MachineInstructed))
	}
}

// add records a flag (once) and its evidence.
func (pi *ParticipantIntegrity) add(flag, evidence string) {
	if prev, ok := pi.Evidence[flag]; ok {
		pi.Evidence[flag] = prev + "; " + evidence
		return
	}
	pi.Flags = append(pi.Flags, flag)
	pi.Evidence[flag] = evidence
}

func (pi *ParticipantIntegrity) sortFlags() {
	slices.SortFunc(pi.Flags, func(a, b string) int {
		return slices.Index(IntegrityFlagNames, a) - slices.Index(IntegrityFlagNames, b)
	})
}

// Closest is the model the participant echoes, else the assessed model
// with the largest gap; nil when none was assessed.
func (e *EchoResult) Closest() *EchoModel {
	if e == nil {
		return nil
	}
	var best *EchoModel
	for i := range e.Models {
		m := &e.Models[i]
		if m.Items == 0 {
			continue
		}
		if m.Model == e.Echoes || best == nil || (e.Echoes == "" && m.Gap > best.Gap) {
			best = m
			if m.Model == e.Echoes {
				return best
			}
		}
	}
	return best
}
