package runner

import (
	"fmt"
	"pragmalab/domain"
)

// SyntheticItems makes n implicature items with every follow-up, in the
// published data set's type mix (46 scalar, 31 discourse, 144 synthetic,
// 50 natural of 271), for benchmarks and tests. The texts are placeholders.
func SyntheticItems(n int) []domain.Item {
	mix := []struct {
		typ  string
		frac float64
	}{{domain.TypeScalar, 46.0 / 271}, {domain.TypeDiscourse, 31.0 / 271}, {domain.TypeSynthetic, 144.0 / 271}, {domain.TypeNatural, 50.0 / 271}}
	out := make([]domain.Item, 0, n)
	for i := range n {
		typ := mix[len(mix)-1].typ
		acc := 0.0
		for _, m := range mix {
			acc += m.frac
			if float64(i)+0.5 < acc*float64(n) {
				typ = m.typ
				break
			}
		}
		k := fmt.Sprintf("x%03d", i+1)
		out = append(out, domain.Item{
			Key: k, Type: typ,
			Context:       "S1: Do you need help with anything, " + k + "?",
			Utterance:     "S2: I think C was looking for someone to do task " + k + ".",
			Implicature:   "You can help by doing task " + k + " for C.",
			Cancellation:  "S2: Though they must be done with " + k + " by now.",
			Negation:      "S2: Though, I don't mean to imply that you should do " + k + ".",
			Strengthening: "S2: They asked me to find someone for " + k + " today.",
			Neutral:       "S2: The weather was nice when " + k + " came up.",
		})
	}
	return out
}
