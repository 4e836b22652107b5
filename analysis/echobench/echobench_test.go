package echobench

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"pragmalab/analysis/integrity"
)

// TestLLMEchoReferenceTypicalRater: an honest rater who gives every item
// its typical value (rounded) is closer to a good model than any noisy
// human, and is still not flagged: the reference humans' weight of the
// model says how far a human-like predictor follows it.
func TestLLMEchoReferenceTypicalRater(t *testing.T) {
	flagged := 0
	const runs = 200
	for run := range runs {
		rng := rand.New(rand.NewPCG(uint64(run), 9))
		typ := make([]float64, 40)
		var answers []integrity.ModelAnswer
		var pool, ref []integrity.EchoRating
		for i := range typ {
			typ[i] = 1.5 + 5*rng.Float64()
			d := modelDist(typ[i] + 0.5*rng.NormFloat64())
			answers = append(answers, integrity.ModelAnswer{Model: "m", Item: "i" + strconv.Itoa(i), Rating: distMode(d), Dist: d})
			pool = append(pool, integrity.EchoRating{Participant: "typical", Item: "i" + strconv.Itoa(i), Rating: clampPoint(typ[i])})
		}
		for r := range 3 {
			w := stylesWorld{}
			rr := w.rater(rng)
			for i := range typ {
				ref = append(ref, integrity.EchoRating{Participant: "r" + strconv.Itoa(r), Item: "i" + strconv.Itoa(i), Rating: w.rate(rng, rr, typ[i])})
			}
		}
		if integrity.LLMEchoReference(pool, ref, answers, integrity.DefaultFitOptions())[0].Flagged {
			flagged++
		}
	}
	if flagged > runs*5/100 {
		t.Errorf("the typical-value rater is flagged in %d of %d runs against a good model (want ≤ 5 %%)", flagged, runs)
	}
}
