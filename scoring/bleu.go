package scoring

import (
	"math"
	"strings"
	"unicode"
)

// Tokenize splits text into lower-cased words: runs of letters and digits,
// so punctuation and Italian apostrophes ("l'Italia" → "l", "italia") do not
// glue words together.
func Tokenize(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// BLEU4 is sentence-level BLEU-4 (Papineni et al. 2002: geometric mean of the
// clipped 1- to 4-gram precisions, times the brevity penalty) of hyp against
// one reference, smoothed as "BLEU+1" (Lin & Och 2004): one is added to the
// matches and to the total of the 2-, 3- and 4-gram precisions, so a
// sentence sharing words but no 4-gram does not score 0 and short options
// stay comparable. Unigram precision is not smoothed: no shared word at all
// gives 0.
func BLEU4(hyp, ref []string) float64 {
	if len(hyp) == 0 || len(ref) == 0 {
		return 0
	}
	logSum := 0.0
	for n := 1; n <= 4; n++ {
		match, total := clippedMatches(hyp, ref, n)
		if n > 1 {
			match, total = match+1, total+1
		}
		if match == 0 || total == 0 {
			return 0
		}
		logSum += math.Log(float64(match) / float64(total))
	}
	bp := 1.0
	if c, r := len(hyp), len(ref); c < r {
		bp = math.Exp(1 - float64(r)/float64(c))
	}
	return bp * math.Exp(logSum/4)
}

// clippedMatches counts hyp's n-grams found in ref, each at most as often as
// it occurs in ref, and hyp's n-grams in all.
func clippedMatches(hyp, ref []string, n int) (match, total int) {
	if len(hyp) < n {
		return 0, 0
	}
	refCounts := map[string]int{}
	for i := 0; i+n <= len(ref); i++ {
		refCounts[strings.Join(ref[i:i+n], " ")]++
	}
	for i := 0; i+n <= len(hyp); i++ {
		g := strings.Join(hyp[i:i+n], " ")
		if refCounts[g] > 0 {
			refCounts[g]--
			match++
		}
		total++
	}
	return match, total
}
