package domain

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Typed justifications judged by how they were typed
// (docs/studies.md#typed-justifications): with CrowdSettings.Justifications
// on, one or two rating screens of a participant's batch ask "Why did you
// choose this rating?" in a text box. The page's script summarises the
// keystrokes in that box (TypingSummary) — never the keys, never the
// text's timeline — and the text itself is stored as the answer.
// Composing one's own words leaves marks that copying a given text does
// not: pauses before words and clauses longer than those within a word,
// revisions, and planning pauses between bursts of typing. An agent
// typing a model's text key by key, with even or merely jittered timing,
// leaves none of them.

// MaxJustifications is the most justification screens a batch may ask.
const MaxJustifications = 2

// MaxJustificationBytes bounds a stored justification.
const MaxJustificationBytes = 2000

// BurstPauseMS is the pause that ends a burst of typing (a P-burst:
// Chenoweth & Hayes 2001 use 2 s), and that counts as a long pause.
const BurstPauseMS = 2000

// The thresholds of the transcribed_text rule (docs/studies.md#typed-justifications).
const (
	// TypingMinKeys is the fewest key presses (letters, spaces,
	// punctuation, deletions) a justification needs to be judged.
	TypingMinKeys = 40
	// TypingMinTypedShare is the least share of the text's characters that
	// came from key presses: text dictated, pasted or filled otherwise is
	// not judged by its keys.
	TypingMinTypedShare = 0.8
	// WordPauseRatio is the ratio of the median pause before a word to the
	// median interval within a word from which the pauses show the
	// structure of composing.
	WordPauseRatio = 1.3
)

// TypingSummary is what the page's script sends of the keystrokes in a
// justification (never the keys): Keys, the trusted key presses counted
// (characters, spaces, punctuation, deletions; not modifiers, arrows or
// repeats); Revisions, Backspace and Delete among them; Typed and
// Inserted, the characters that arrived by key presses and otherwise
// (paste, drop, dictation, autocorrect, a script); Pastes, the paste and
// drop events; IKIMedian, IKIIQR and IKICVPct, the median, interquartile
// range and coefficient of variation (in %, over intervals under
// BurstPauseMS) of the intervals between key presses; WithinMS,
// WordPauseMS and ClausePauseMS, the median interval within a word, before
// a word's first letter, and before the first letter after a clause's
// punctuation (, . ; : ! ? then a space); LongPauses, the intervals of
// BurstPauseMS or more; Bursts, the runs of typing between them.
type TypingSummary struct {
	Keys, Revisions, Typed, Inserted, Pastes Signal
	IKIMedian, IKIIQR, IKICVPct              Signal
	WithinMS, WordPauseMS, ClausePauseMS     Signal
	LongPauses, Bursts                       Signal
}

// TypingFields are the form names of TypingSummary's fields, in its order.
var TypingFields = []string{"keys", "revisions", "typed_chars", "inserted_chars", "text_pastes",
	"iki_median_ms", "iki_iqr_ms", "iki_cv_pct", "within_word_ms", "word_pause_ms", "clause_pause_ms",
	"long_pauses", "bursts"}

// Fields are s's fields in TypingFields' order.
func (s *TypingSummary) Fields() []*Signal {
	return []*Signal{&s.Keys, &s.Revisions, &s.Typed, &s.Inserted, &s.Pastes, &s.IKIMedian, &s.IKIIQR, &s.IKICVPct,
		&s.WithinMS, &s.WordPauseMS, &s.ClausePauseMS, &s.LongPauses, &s.Bursts}
}

// ParseTypingSummary reads the fields get gives by name, each on its own
// and as leniently as ParseSignal: nothing in them refuses the answer.
func ParseTypingSummary(get func(name string) string) TypingSummary {
	var s TypingSummary
	for i, f := range s.Fields() {
		bound := MaxInterKeyMS
		switch TypingFields[i] {
		case "keys", "revisions", "typed_chars", "inserted_chars", "text_pastes", "long_pauses", "bursts":
			bound = MaxKeyChars
		case "iki_cv_pct":
			bound = 10000
		}
		*f = ParseSignal(get(TypingFields[i]), bound)
	}
	return s
}

// Justification is a typed justification: the text and how it was typed.
type Justification struct {
	Text   string
	Typing TypingSummary
}

// ParseJustification keeps at most MaxJustificationBytes of text, cut at
// a character's end.
func ParseJustification(text string, t TypingSummary) Justification {
	return Justification{Text: cutUTF8(text, MaxJustificationBytes), Typing: t}
}

// TypingVerdict is what the rule says of one justification.
type TypingVerdict int

const (
	// TypingNotAssessed: too few key presses, or too little of the text
	// typed (dictation, a paste), or no summary (no JavaScript).
	TypingNotAssessed TypingVerdict = iota
	// TypingComposed: at least one mark of composing.
	TypingComposed
	// TypingTranscribed: none.
	TypingTranscribed
)

// Verdict judges one justification's typing
// (docs/studies.md#typed-justifications). It is judged only with at least
// TypingMinKeys key presses and TypingMinTypedShare of the characters
// typed; it is transcribed when it shows no mark of composing: no
// revision, no long pause after the first key press, and a median pause
// before words under WordPauseRatio times the median interval within
// words (or neither measured).
func (s TypingSummary) Verdict() TypingVerdict {
	if !s.Keys.Valid || s.Keys.N < TypingMinKeys || !s.Typed.Valid || !s.Inserted.Valid {
		return TypingNotAssessed
	}
	if total := s.Typed.N + s.Inserted.N; total == 0 || float64(s.Typed.N) < TypingMinTypedShare*float64(total) {
		return TypingNotAssessed
	}
	if s.Revisions.Valid && s.Revisions.N > 0 {
		return TypingComposed
	}
	if s.LongPauses.Valid && s.LongPauses.N > 0 {
		return TypingComposed
	}
	if s.WithinMS.Valid && s.WordPauseMS.Valid && s.WithinMS.N > 0 &&
		float64(s.WordPauseMS.N) >= WordPauseRatio*float64(s.WithinMS.N) {
		return TypingComposed
	}
	return TypingTranscribed
}

// TranscribedText tells whether the participant-level flag
// FlagTranscribedText is raised: at least one justification was judged,
// and every one judged looks transcribed. assessed and transcribed count
// the participant's justifications of each verdict.
func TranscribedText(assessed, transcribed int) bool {
	return assessed > 0 && transcribed == assessed
}

// KeyEvent is one key press of a simulated or reference timeline: its time
// in ms and what it was (KeyChar, KeySpace, KeyPunct, KeyDelete), never
// which key.
type KeyEvent struct {
	AtMS float64
	Kind KeyKind
}

// KeyKind is the class of a key press the summary distinguishes.
type KeyKind int

const (
	KeyChar KeyKind = iota
	KeySpace
	KeyPunct
	KeyDelete
)

// SummariseKeys is the summary of a timeline of key presses, computed as
// static/app.js computes it in the browser (the reference for the tests
// and the docs' simulations); typed and inserted are the characters that
// came by keys and otherwise.
func SummariseKeys(ev []KeyEvent, typed, inserted int) TypingSummary {
	set := func(n int) Signal { return Signal{Valid: true, N: n} }
	s := TypingSummary{Keys: set(len(ev)), Typed: set(typed), Inserted: set(inserted), Pastes: set(0),
		Revisions: set(0), LongPauses: set(0), Bursts: set(0)}
	var all, short, within, word, clause []float64
	for i, e := range ev {
		if e.Kind == KeyDelete {
			s.Revisions.N++
		}
		if i == 0 {
			s.Bursts.N = 1
			continue
		}
		d := e.AtMS - ev[i-1].AtMS
		all = append(all, d)
		if d >= BurstPauseMS {
			s.LongPauses.N++
			s.Bursts.N++
		} else {
			short = append(short, d)
		}
		prev := ev[i-1].Kind
		switch {
		case e.Kind == KeyChar && prev == KeyChar:
			within = append(within, d)
		case e.Kind == KeyChar && prev == KeySpace:
			if i >= 2 && ev[i-2].Kind == KeyPunct {
				clause = append(clause, d)
			} else {
				word = append(word, d)
			}
		}
	}
	med := func(xs []float64) Signal {
		if len(xs) == 0 {
			return Signal{}
		}
		return set(int(math.Round(quantile7(xs, 0.5))))
	}
	geo := func(xs []float64) Signal {
		if len(xs) == 0 {
			return Signal{}
		}
		var sum float64
		for _, x := range xs {
			sum += math.Log(max(x, 1))
		}
		return set(int(math.Round(math.Exp(sum / float64(len(xs))))))
	}
	s.IKIMedian, s.ClausePauseMS = med(all), med(clause)
	s.WithinMS, s.WordPauseMS = geo(within), geo(word)
	if len(all) > 0 {
		s.IKIIQR = set(int(math.Round(quantile7(all, 0.75) - quantile7(all, 0.25))))
	}
	if len(short) > 1 {
		mean, sd := meanSD(short)
		if mean > 0 {
			s.IKICVPct = set(int(math.Round(100 * sd / mean)))
		}
	}
	return s
}

// quantile7 is R's type 7 quantile of xs at p (xs is not changed).
func quantile7(xs []float64, p float64) float64 {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	h := float64(len(ys)-1) * p
	lo := int(math.Floor(h))
	if lo+1 < len(ys) {
		return ys[lo] + (h-float64(lo))*(ys[lo+1]-ys[lo])
	}
	return ys[lo]
}

// meanSD is the mean and the sample standard deviation of xs.
func meanSD(xs []float64) (float64, float64) {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// typingEvidence words the transcribed_text flag's evidence.
func typingEvidence(assessed int) string {
	if assessed == 1 {
		return "the one justification judged was typed without a revision, a long pause or pauses before words"
	}
	return fmt.Sprintf("all %d justifications judged were typed without a revision, a long pause or pauses before words", assessed)
}

// cutUTF8 keeps at most n bytes of v, cut at a character's end, as valid
// UTF-8.
func cutUTF8(v string, n int) string {
	if len(v) > n {
		v = v[:n]
		for len(v) > 0 && !utf8.ValidString(v) {
			v = v[:len(v)-1]
		}
	}
	return strings.ToValidUTF8(v, "\uFFFD")
}
