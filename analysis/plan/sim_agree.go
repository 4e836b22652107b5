package plan

import (
	"math"
	"math/rand/v2"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/domain"
	"strconv"
)

// The expert studies' generative models of the coverage study
// (docs/statistics.md#the-generative-models).

// AgreementDesign is annotators × items, every annotator judging every
// item, the items spread over the types as in the crowd study.
type AgreementDesign struct{ Annotators, Items int }

// Expert agreement: an item is clear (80 %) or doubtful (20 %), for
// plausibility and, independently, for cancellation. Annotator a says yes
// with probability logistic(logit(p) + bias_a), p = 0.93 (clear) or 0.40
// (doubtful) for plausibility, 0.92 or 0.45 for cancellation; only an
// annotator who found the item plausible answers the cancellation
// question. The annotators are fixed (the same people in every data set),
// so the truth is the population of items.
var (
	agreePlausBias = []float64{0.4, -0.4, 0}
	agreeCancBias  = []float64{-0.3, 0.3, 0}
)

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
func logit(p float64) float64    { return math.Log(p / (1 - p)) }

func yesProb(clear bool, pClear, pDoubt, bias float64) float64 {
	p := pDoubt
	if clear {
		p = pClear
	}
	return logistic(logit(p) + bias)
}

// simulateAgreement draws the judgements of one data set.
func simulateAgreement(rng *rand.Rand, d AgreementDesign) []agreement.Judgement {
	types := crowdTypes(d.Items)
	var js []agreement.Judgement
	for i := range d.Items {
		plausClear, cancClear := rng.Float64() < 0.8, rng.Float64() < 0.8
		for a := range d.Annotators {
			j := agreement.Judgement{Annotator: "a" + strconv.Itoa(a), Item: "i" + strconv.Itoa(i), Type: domain.TableTypes[types[i]]}
			j.Plausible = rng.Float64() < yesProb(plausClear, 0.93, 0.40, agreePlausBias[a%len(agreePlausBias)])
			if j.Plausible {
				j.HasCancellation = true
				j.CancellationCorrect = rng.Float64() < yesProb(cancClear, 0.92, 0.45, agreeCancBias[a%len(agreeCancBias)])
			}
			js = append(js, j)
		}
	}
	return js
}

// agreementTruth is the agreement of the design's annotators over n items
// of the population (n large: the statistics are consistent).
func agreementTruth(seed uint64, d AgreementDesign, n int) *agreement.Agreement {
	rng := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	ag, _ := agreement.ComputeAgreementOn(simulateAgreement(rng, AgreementDesign{d.Annotators, n}), analysis.Bootstrap{})
	return ag
}

// ContextDesign is surveys × items, each item answered by Annotators.
type ContextDesign struct{ Surveys, Items, Annotators int }

// Context: item i needs d_i ~ N(−0.6, 1.5²) added sentences; an
// annotator's answer is x = d_i + N(0, 0.9²) rounded to 0…5, above 5.5
// insufficient. Kinds alternate, periods cycle through three.
func simulateContext(rng *rand.Rand, d ContextDesign) []contextsurvey.ContextAnswer {
	var as []contextsurvey.ContextAnswer
	for s := range d.Surveys {
		for i := range d.Items {
			need := -0.6 + 1.5*rng.NormFloat64()
			for a := range d.Annotators {
				x := need + 0.9*rng.NormFloat64()
				ans := contextsurvey.ContextAnswer{Annotator: "a" + strconv.Itoa(a), Survey: "s" + strconv.Itoa(s+1), Item: "i" + strconv.Itoa(i),
					Kind: []string{"implicature", "presupposition"}[i%2], Period: "p" + strconv.Itoa(i%3), Sufficient: true}
				switch {
				case x >= contextsurvey.MaxAddedSentences+0.5:
					ans.Sentences, ans.Sufficient = contextsurvey.MaxAddedSentences, false
				default:
					ans.Sentences = max(0, int(math.Round(x)))
				}
				as = append(as, ans)
			}
		}
	}
	return as
}

// contextTruth is the overall context measures over n items.
func contextTruth(seed uint64, annotators, n int) *contextsurvey.ContextStats {
	rng := rand.New(rand.NewPCG(seed, 0x14057b7ef767814f))
	return contextsurvey.ComputeContextWith(simulateContext(rng, ContextDesign{1, n, annotators}), analysis.Bootstrap{}).Overall
}

// ExplanationDesign is kinds × strategies, Outputs outputs per cell (the
// same passages for every strategy of a kind), each rated once by one of
// Experts experts in turn.
type ExplanationDesign struct{ Kinds, Strategies, Outputs, Experts int }

// Explanations: passage i has a difficulty u_i ~ N(0, 1), strategy s a
// quality 0.2 + 0.3·s, expert e a leniency from −0.3 to 0.3; the output's
// latent quality q = quality + u_i + leniency + N(0, 0.5²) is cut at 1.2,
// 0.6, 0, −1.5 into totally correct, correct among options, partially
// correct, totally wrong, answer not given.
func simulateExplanations(rng *rand.Rand, d ExplanationDesign) []modelhuman.ExplanationRating {
	var rs []modelhuman.ExplanationRating
	for k := range d.Kinds {
		kind := "kind" + strconv.Itoa(k+1)
		u := make([]float64, d.Outputs)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		for s := range d.Strategies {
			for i := range d.Outputs {
				e := (i + s) % d.Experts
				lenient := -0.3
				if d.Experts > 1 {
					lenient += 0.6 * float64(e) / float64(d.Experts-1)
				}
				q := 0.2 + 0.3*float64(s) + u[i] + lenient + 0.5*rng.NormFloat64()
				j := 4
				for c, cut := range []float64{1.2, 0.6, 0, -1.5} {
					if q > cut {
						j = c
						break
					}
				}
				rs = append(rs, modelhuman.ExplanationRating{Annotator: "e" + strconv.Itoa(e), Item: "p" + strconv.Itoa(i), Kind: kind,
					Strategy: "s" + strconv.Itoa(s+1), Judgment: j})
			}
		}
	}
	return rs
}

// explanationsTruth is the explanation table's counts over n outputs per
// cell, by kind and strategy (with the pooled "all").
func explanationsTruth(seed uint64, d ExplanationDesign, n int) map[[2]string]*modelhuman.JudgmentShares {
	rng := rand.New(rand.NewPCG(seed, 0x4cf5ad432745937f))
	d.Outputs = n
	out := map[[2]string]*modelhuman.JudgmentShares{}
	for _, r := range simulateExplanations(rng, d) {
		for _, k := range []string{r.Kind, domain.TypeAll} {
			for _, s := range []string{r.Strategy, domain.TypeAll} {
				c := out[[2]string{k, s}]
				if c == nil {
					c = &modelhuman.JudgmentShares{}
					out[[2]string{k, s}] = c
				}
				c.N++
				c.Counts[r.Judgment]++
			}
		}
	}
	return out
}
