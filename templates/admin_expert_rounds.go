package templates

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// round1 is round 1's batch once experts have it: its id, number and the
// experts on it; ok is false before round 1 starts.
func (v ExpertStudyView) round1() (batchID int64, number int, names []string, ok bool) {
	for _, a := range v.Assignments {
		if a.Round != 1 {
			continue
		}
		if !ok {
			batchID, number, ok = a.BatchID, a.BatchNumber, true
		}
		if a.BatchID == batchID {
			names = append(names, a.Annotator)
		}
	}
	return batchID, number, names, ok
}

// round1Heading heads the round 1 form: how to start it, or how to add
// experts to its batch.
func (v ExpertStudyView) round1Heading() string {
	if _, n, names, ok := v.round1(); ok {
		return fmt.Sprintf("Round 1: batch #%d, with %s; add experts to it", n, strings.Join(names, ", "))
	}
	return "Round 1: one batch, two or more experts"
}

// Sentence writes a refusal as a sentence: capital first letter, full
// stop at the end.
func Sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	r, size := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[size:]
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") && !strings.HasSuffix(msg, "!") {
		msg += "."
	}
	return msg
}
