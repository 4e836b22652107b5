package itemfiles

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// noBreakAbbrev holds Italian abbreviations after which a period never ends
// a sentence because a name, number or noun always follows ("on. Moro",
// "art. 87", "n. 240", "Sig. Rossi"). Sentence-final ones such as "ecc."
// and "etc." are left out: before a capital they do end the sentence.
var noBreakAbbrev = map[string]bool{
	"on": true, "onn": true, "sig": true, "sigg": true, "sigra": true, "dott": true,
	"dr": true, "prof": true, "avv": true, "ing": true, "sen": true, "dep": true,
	"pres": true, "mons": true, "card": true, "gen": true, "col": true, "magg": true,
	"cap": true, "cav": true, "comm": true, "rag": true, "geom": true, "arch": true,
	"sant": true, "ss": true, "st": true, "mr": true, "mrs": true, "avv.ti": true,
	"art": true, "artt": true, "n": true, "nn": true, "num": true, "nr": true,
	"pag": true, "pagg": true, "p": true, "pp": true, "par": true, "co": true,
	"lett": true, "cfr": true, "vd": true, "es": true, "ca": true, "cit": true,
	"op": true, "vol": true, "voll": true,
	"cod": true, "reg": true, "dir": true, "sez": true, "tit": true, "cost": true,
	"d.lgs": true, "d.l": true, "d.p.r": true, "l": true, "c.d": true, "cd": true,
	"s.p.a": true, "spa": true, "ecc.mo": true, "ill.mo": true, "gent": true,
	"egr": true, "preg": true, "dott.ssa": true, "prof.ssa": true, "sig.ra": true,
}

// SplitSentences splits an Italian passage into sentences. A sentence ends
// at ".", "!", "?", "…" or "..." (with any closing quotes or brackets after
// it) when whitespace and then a capital letter or a digit follow, possibly
// behind opening quotes or brackets; a period after an abbreviation from
// noBreakAbbrev, after a single capital initial ("A. Moro") or inside a
// dotted abbreviation ("d.P.R.") does not end one. Quoted speech is split
// like the rest: the IMPAQTS passages count sentences that way (the target
// plus four before it). The sentences are the text's own substrings,
// trimmed, so joining them with spaces gives the text back up to whitespace.
func SplitSentences(text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	var out []string
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isTerminator(r) {
			i += size
			continue
		}
		end, ok := sentenceEnd(text, i)
		if !ok {
			i = end
			continue
		}
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
		i = end
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func isTerminator(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

func isCloser(r rune) bool {
	switch r {
	case '"', '”', '»', '’', '\'', ')', ']':
		return true
	}
	return false
}

func isOpener(r rune) bool {
	switch r {
	case '"', '“', '«', '‘', '\'', '(', '[', '‹':
		return true
	}
	return false
}

// sentenceEnd looks at the terminator at i. It returns the end of the
// sentence (after terminators and closers) and whether a sentence ends
// there; when it does not, the returned position is where to go on.
func sentenceEnd(text string, i int) (int, bool) {
	j := i
	dots := 0
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !isTerminator(r) {
			break
		}
		if r == '.' {
			dots++
		}
		j += size
	}
	runEnd := j
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !isCloser(r) {
			break
		}
		j += size
	}
	end := j
	if end == len(text) {
		return end, true
	}
	// Whitespace must follow: "1.000", "www.x.it" and "(...)»." stay whole.
	ws := 0
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsSpace(r) {
			break
		}
		ws++
		j += size
	}
	if ws == 0 || !startsSentence(text[j:]) {
		return end, false
	}
	// A lone period right after the word may belong to an abbreviation.
	if dots == 1 && runEnd-i == 1 && end == runEnd && isAbbreviation(text[:i]) {
		return end, false
	}
	return end, true
}

// startsSentence reports whether s begins like a sentence: openers, then a
// capital letter or a digit.
func startsSentence(s string) bool {
	for _, r := range s {
		switch {
		case isOpener(r):
			continue
		case unicode.IsUpper(r) || unicode.IsDigit(r):
			return true
		default:
			return false
		}
	}
	return false
}

// isAbbreviation reports whether the word ending before is (the text up to a
// period) is an abbreviation or an initial.
func isAbbreviation(before string) bool {
	k := len(before)
	for k > 0 {
		r, size := utf8.DecodeLastRuneInString(before[:k])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		k -= size
	}
	word := before[k:]
	if word == "" {
		return false
	}
	if utf8.RuneCountInString(word) == 1 {
		r, _ := utf8.DecodeRuneInString(word)
		// "A. Moro": a capital initial; "n." is in the list below.
		if unicode.IsUpper(r) {
			return true
		}
	}
	lw := strings.ToLower(word)
	if noBreakAbbrev[lw] {
		return true
	}
	// Dotted abbreviations such as "d.P.R" or "U.S.A" ("S.p.A." too).
	if strings.Contains(strings.Trim(word, "."), ".") {
		return true
	}
	return false
}
