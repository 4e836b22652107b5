package scoring

import (
	"math"
	"regexp"
	"slices"
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

// Reading a sampled reply (docs/scoring.md, "Reading replies"). ParseLetter
// applies three rules in order and stops at the first that finds a letter:
//
//  1. an explicit answer marker: "Answer: C", "the answer is B",
//     "Risposta: B", "la risposta è B", "la risposta corretta è
//     l'opzione D", a parenthesised "(B)" or a bold "**B**";
//  2. a reply that is only a letter, with optional brackets and
//     punctuation ("b)", " C.", "[D]");
//  3. an option letter standing alone as a word ("A good explanation is C"
//     reads C): an English article ("A good …") and an Italian elision
//     ("D'altronde", "C'è") are not answers.
//
// A rule that finds two different letters offered as answers makes the
// reply ambiguous: X, as is a reply no rule reads.

// markerRe finds answer phrases; group 1 is the letter, in either case
// (a lower-case one is checked by markerLetter).
var markerRe = regexp.MustCompile(`(?i)\b(?:answer|risposta)(?:\s+(?:corretta|giusta|correct|finale))?\b[\s*_]*(?:(?:is|è|e'|sarebbe|would\s+be|will\s+be)[\s*_]+|[:=：\-–][\s*_]*)?(?:(?:option|opzione|letter|lettera|la|l'opzione)\s+)?[(\["'“]?([A-Da-d])`)

// wrapRe finds a letter in parentheses or bold: "(B)", "**C**", "**C.**".
var wrapRe = regexp.MustCompile(`\(([A-D])\)|\*\*\(?([A-D])[.):]?\*\*`)

// onlyLetterRe is a reply that is only a letter with optional wrapping.
var onlyLetterRe = regexp.MustCompile(`^[\s(\[{*"'“#>]*([A-Da-d])[\s)\]}*"'”.,:;!]*$`)

// articleFollowers are words after which a capital "A" is still the option
// ("A is correct", "A or C", "A è corretta") and not the English article.
var articleFollowers = []string{"or", "and", "nor", "o", "oppure", "e", "vs", "is", "è", "was", "seems", "sembra", "because", "perché", "poiché", "since", "would", "should", "fits", "best", "describes", "descrive", "matches", "corrisponde", "represents", "rappresenta", "correct", "corretta", "giusta"}

// ParseLetter reads the chosen option of a reply by the rules above; allowed
// are the option letters ("A", "B" for True/False). It returns Refusal ("X")
// when the reply names no allowed letter or more than one.
func ParseLetter(reply string, allowed []string) string {
	ok := func(l string) bool { return slices.Contains(allowed, l) }
	var found []string
	for _, m := range markerRe.FindAllStringSubmatchIndex(reply, -1) {
		if l, good := markerLetter(reply, m[2], m[3]); good && ok(l) {
			found = append(found, l)
		}
	}
	for _, m := range wrapRe.FindAllStringSubmatch(reply, -1) {
		if l := m[1] + m[2]; ok(l) {
			found = append(found, l)
		}
	}
	if l, done := decide(found); done {
		return l
	}
	if m := onlyLetterRe.FindStringSubmatch(reply); m != nil {
		if l := strings.ToUpper(m[1]); ok(l) {
			return l
		}
		return Refusal
	}
	found = found[:0]
	for i, r := range reply {
		l := string(r)
		if !ok(l) || !standsAlone(reply, i) {
			continue
		}
		found = append(found, l)
	}
	if l, done := decide(found); done {
		return l
	}
	return Refusal
}

// decide turns the letters a rule found into an answer: none means the
// rule does not apply (done false); one distinct letter is the answer;
// several distinct letters are ambiguous (Refusal).
func decide(found []string) (string, bool) {
	if len(found) == 0 {
		return "", false
	}
	for _, l := range found[1:] {
		if l != found[0] {
			return Refusal, true
		}
	}
	return found[0], true
}

// markerLetter checks the letter after an answer marker, at reply[i:j]: an
// upper-case one counts unless it starts an elision ("D'altronde"); a
// lower-case one only when no word follows ("risposta: b", not "the
// answer is a bit unclear").
func markerLetter(reply string, i, j int) (string, bool) {
	l := reply[i:j]
	next, _ := utf8.DecodeRuneInString(reply[j:])
	if unicode.IsLetter(next) || unicode.IsDigit(next) || elision(reply, j) {
		return "", false
	}
	if l == strings.ToLower(l) {
		rest := strings.TrimLeft(reply[j:], " \t")
		if r, _ := utf8.DecodeRuneInString(rest); len(rest) < len(reply[j:]) && unicode.IsLetter(r) {
			return "", false
		}
	}
	return strings.ToUpper(l), true
}

// elision reports whether reply[j:] starts with an apostrophe followed by a
// letter, as after the "D" of "D'altronde" or the "C" of "C'è".
func elision(reply string, j int) bool {
	r, size := utf8.DecodeRuneInString(reply[j:])
	if r != '\'' && r != '’' {
		return false
	}
	next, _ := utf8.DecodeRuneInString(reply[j+size:])
	return unicode.IsLetter(next)
}

// standsAlone reports whether the capital letter at reply[i] is a word of
// its own and reads as an option: not inside a word, not joined by a
// hyphen or dash ("A-D", "B2B"), not an elision and not the English
// article before a word ("A good explanation").
func standsAlone(reply string, i int) bool {
	prev, _ := utf8.DecodeLastRuneInString(reply[:i])
	if i > 0 && joinsBefore(prev) {
		return false
	}
	j := i + 1
	next, size := utf8.DecodeRuneInString(reply[j:])
	if joinsAfter(next) || elision(reply, j) {
		return false
	}
	return reply[i] != 'A' || size == 0 || !unicode.IsSpace(next) || !readsAsArticle(reply[j:])
}

// joinsBefore reports whether a letter preceded by r is part of a word,
// a hyphenated or dashed pair, an elision or an identifier.
func joinsBefore(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '–' || r == '\'' || r == '’' || r == '_'
}

// joinsAfter reports whether a letter followed by r is part of a word,
// a hyphenated or dashed pair or an identifier.
func joinsAfter(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '–' || r == '_'
}

// readsAsArticle reports whether an "A" followed by rest (which starts
// with a space) is the English article: a lower-case word follows, and
// not one of the articleFollowers that make the "A" an option.
func readsAsArticle(rest string) bool {
	word := strings.TrimLeftFunc(rest, unicode.IsSpace)
	if r, _ := utf8.DecodeRuneInString(word); !unicode.IsLower(r) {
		return false
	}
	end := strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(word)
	}
	return !slices.Contains(articleFollowers, strings.ToLower(word[:end]))
}

var trueFalseRe = regexp.MustCompile(`(?i)\b(true|false|vero|falso|vera|falsa)\b`)

// ParseTrueFalse reads a True/False reply given the option order: the
// letter if ParseLetter finds one, otherwise the word True or False (or
// Vero, Falso) if only one of the two occurs. ok is false when the reply
// answers neither: such a sample is unparseable, not a False answer.
func ParseTrueFalse(reply string, o Order) (isTrue, ok bool) {
	if l := ParseLetter(reply, letters[:2]); l != Refusal {
		return l == o.letterOfTrue(), true
	}
	words := map[bool]bool{}
	for _, m := range trueFalseRe.FindAllString(reply, -1) {
		w := strings.ToLower(m)
		words[w == "true" || w == "vero" || w == "vera"] = true
	}
	if len(words) == 1 {
		return words[true], true
	}
	return false, false
}
