package scoring

import (
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// letters are the option letters of the multiple-choice task, in order; the
// True/False task uses the first two.
var letters = [4]string{"A", "B", "C", "D"}

// Refusal is the letter recorded when a reply names no option.
const Refusal = "X"

func validLetter(s string) bool {
	return s == "A" || s == "B" || s == "C" || s == "D"
}

// tokenLetter reads an option letter from one vocabulary token. Tokenizers
// spell the same choice several ways — "A", " A", "a", "▁A" (SentencePiece),
// "ĠA" (byte-level BPE), "(A", "A." — so whitespace, those word-start marks
// and bracketing punctuation are dropped and case is folded before the
// comparison.
func tokenLetter(tok string, allowed []string) (string, bool) {
	s := strings.TrimFunc(tok, func(r rune) bool {
		return unicode.IsSpace(r) || r == '▁' || r == 'Ġ' || r == 'Ċ' || strings.ContainsRune("()[]{}.:*\"'`", r)
	})
	if utf8.RuneCountInString(s) != 1 {
		return "", false
	}
	s = strings.ToUpper(s)
	for _, l := range allowed {
		if s == l {
			return l, true
		}
	}
	return "", false
}

// topLogprob is one candidate next token with its log-probability.
type topLogprob struct {
	Token   string
	Logprob float64
}

// letterLogprobs folds the candidates of one token position into one
// log-probability per allowed letter: tokens spelling the same letter
// (" A" and "A") are alternative ways of choosing it, so their
// probabilities add (log-sum-exp). Letters absent from the candidates are
// absent from the map.
func letterLogprobs(top []topLogprob, allowed []string) map[string]float64 {
	out := map[string]float64{}
	for _, t := range top {
		l, ok := tokenLetter(t.Token, allowed)
		if !ok || math.IsNaN(t.Logprob) {
			continue
		}
		if prev, seen := out[l]; seen {
			out[l] = logSumExp(prev, t.Logprob)
		} else {
			out[l] = t.Logprob
		}
	}
	return out
}

func logSumExp(a, b float64) float64 {
	m := math.Max(a, b)
	if math.IsInf(m, -1) {
		return m
	}
	return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
}

// pTrueFromLogprobs renormalises the two option log-probabilities:
// P(True) = e^lT / (e^lT + e^lF). A letter missing from the top candidates
// counts as probability 0 (its true value is below every listed one); ok is
// false when neither letter is there.
func pTrueFromLogprobs(lp map[string]float64, o Order) (p float64, ok bool) {
	tl := o.letterOfTrue()
	fl := "B"
	if tl == "B" {
		fl = "A"
	}
	lT, hasT := lp[tl]
	lF, hasF := lp[fl]
	switch {
	case hasT && hasF:
		return 1 / (1 + math.Exp(lF-lT)), true
	case hasT:
		return 1, true
	case hasF:
		return 0, true
	}
	return 0, false
}

// answerRe finds "answer is B", "Answer: (C)", "risposta: D" and the like,
// for replies that explain before answering.
var answerRe = regexp.MustCompile(`(?i:answer|risposta)(?i:\s+is)?\s*[:\-]?\s*[\(\[\*"']*([A-D])\b`)

// leadTrim drops the wrapping a reply may put before its letter.
func leadTrim(s string) string {
	return strings.TrimLeftFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("()[]{}*\"'`#>", r)
	})
}

// ParseLetter reads the chosen option from a reply: a reply starting with an
// allowed letter that is not the start of a word ("B", "b)", "**C**",
// "Answer: D"), otherwise the last "answer is X" phrase. Anything else is
// Refusal ("X").
func ParseLetter(reply string, allowed []string) string {
	s := leadTrim(reply)
	for _, p := range []string{"answer:", "the answer is", "answer is", "risposta:", "la risposta è"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			s = leadTrim(s[len(p):])
			break
		}
	}
	if r, size := utf8.DecodeRuneInString(s); size > 0 {
		next, _ := utf8.DecodeRuneInString(s[size:])
		// A lower-case "a " is more likely the article than option A.
		article := unicode.IsLower(r) && unicode.IsSpace(next)
		if !unicode.IsLetter(next) && !unicode.IsDigit(next) && !article {
			if l, ok := tokenLetter(string(r), allowed); ok {
				return l
			}
		}
	}
	ms := answerRe.FindAllStringSubmatch(reply, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		for _, l := range allowed {
			if ms[i][1] == l {
				return l
			}
		}
	}
	return Refusal
}

var trueFalseRe = regexp.MustCompile(`(?i)\b(true|false)\b`)

// ParseTrueFalse reads a True/False reply given the option order: the letter
// if the reply names one, otherwise the word "True" or "False" if exactly one
// of them occurs. ok is false when the reply answers neither.
func ParseTrueFalse(reply string, o Order) (isTrue, ok bool) {
	if l := ParseLetter(reply, letters[:2]); l != Refusal {
		return l == o.letterOfTrue(), true
	}
	words := map[string]bool{}
	for _, m := range trueFalseRe.FindAllString(reply, -1) {
		words[strings.ToLower(m)] = true
	}
	if len(words) == 1 {
		return words["true"], true
	}
	return false, false
}
