package plan

import (
	"math/rand/v2"
	"pragmalab/analysis/agreement"
	"strconv"
)

// SyntheticJudgements draws n plausibility judgements for `bench quality`:
// n/perItem items, each judged by perItem of the annotators (drawn without
// replacement), annotator a right with a chance spread evenly from 0.95 down
// to 0.55, true class yes with chance 0.7. Items have no type, so the
// annotator models are fitted once, over every item.
func SyntheticJudgements(n, annotators, perItem int, seed uint64) []agreement.Judgement {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	names := make([]string, annotators)
	acc := make([]float64, annotators)
	for a := range annotators {
		names[a] = "a" + strconv.Itoa(a)
		acc[a] = 0.95 - 0.4*float64(a)/float64(max(annotators-1, 1))
	}
	perItem = min(perItem, annotators)
	js := make([]agreement.Judgement, 0, n)
	for i := 0; len(js) < n; i++ {
		item := "i" + strconv.Itoa(i)
		yes := rng.Float64() < 0.7
		for _, a := range rng.Perm(annotators)[:min(perItem, n-len(js))] {
			v := yes
			if rng.Float64() >= acc[a] {
				v = !v
			}
			js = append(js, agreement.Judgement{Annotator: names[a], Item: item, Plausible: v})
		}
	}
	return js
}
