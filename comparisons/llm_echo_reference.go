package comparisons

import (
	"fmt"
	"slices"
	"strings"

	"pragmalab/analysis/integrity"
)

// PoolCaveat ends the participants table's LLM-echo sentence when the
// study has fewer than two trusted participants: the pool rule compares
// each participant with the others, whom agents in the majority would be
// (docs/statistics.md#llm-echo-measured).
const PoolCaveat = "Compared with the other participants, not with people you trust: if agents were many, they would hide among themselves. Mark two or more participants you trust (Trust) to compare with them instead."

// referenceVerdicts runs the reference rule
// (docs/statistics.md#llm-echo-against-a-reference) when at least two of
// the study's participants are trusted: their ratings are the reference,
// and they are measured and never flagged. nil when fewer are trusted
// (or none of them rated).
func referenceVerdicts(ratings []integrity.EchoRating, trusted []string, answers []integrity.ModelAnswer, names []string) *echoVerdicts {
	var ref []integrity.EchoRating
	for _, r := range ratings {
		if slices.Contains(trusted, r.Participant) {
			ref = append(ref, r)
		}
	}
	n := len(integrity.FitReferenceIDs(ref))
	if n < 2 {
		return nil
	}
	e := &echoVerdicts{flagged: map[string]string{}}
	for _, res := range integrity.LLMEchoReference(ratings, ref, answers, integrity.DefaultFitOptions()) {
		if res.Flagged {
			e.flagged[res.Participant] = res.Reason
		}
	}
	e.said = fmt.Sprintf("LLM-echo: assessed against the answer distributions of %s and the ratings of %d trusted participants; %d flagged.",
		strings.Join(names, ", "), n, len(e.flagged))
	return e
}
