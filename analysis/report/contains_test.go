package report

import (
	"fmt"
	"math/rand/v2"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strconv"
	"testing"
)

// TestEveryIntervalHoldsItsEstimate draws random data sets of every kind —
// small, skewed towards one answer, degenerate — and checks that every
// non-null X_ci95 holds X (docs/statistics.md#every-interval-holds-its-estimate).
func TestEveryIntervalHoldsItsEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	bs := analysis.Bootstrap{Replicates: 80, Seed: 5}
	checked := 0
	check := func(what string, x *float64, ci *analysis.CI) {
		t.Helper()
		if ci == nil {
			return
		}
		checked++
		if x == nil {
			t.Errorf("%s: interval %v without an estimate", what, *ci)
			return
		}
		if !(ci[0] <= *x && *x <= ci[1]) {
			t.Errorf("%s = %v, interval %v leaves it out", what, *x, *ci)
		}
	}
	for trial := range 60 {
		skew := []float64{0.5, 0.85, 0.97, 1}[trial%4] // share of the dominant answer
		name := fmt.Sprintf("trial %d (skew %.2f)", trial, skew)

		rs := randomRatings(rng, skew)
		if rs != nil {
			top := toplines.ComputeToplines(rs, toplines.Options{HighPass: 5, LowPass: 3, MaxFailed: 3, Bootstrap: bs})
			for g, tt := range top.ByType {
				pre := name + " toplines " + g + "/"
				check(pre+toplines.MImplicature, tt.ImplicatureRecognition, tt.ImplicatureRecognitionCI)
				check(pre+toplines.MCancellation, tt.CancellationRecognition, tt.CancellationRecognitionCI)
				check(pre+toplines.MBeliefUpdate, tt.BeliefUpdate, tt.BeliefUpdateCI)
				check(pre+toplines.MNegation, tt.NegationCancellation, tt.NegationCancellationCI)
				check(pre+toplines.MStrengthen, tt.Strengthening, tt.StrengtheningCI)
				check(pre+toplines.MUnchanged, tt.Unchanged, tt.UnchangedCI)
				check(pre+"pearson_r", tt.PearsonR, tt.PearsonRCI)
			}
		}

		ag := agreement.ComputeAgreementWith(randomJudgements(rng, skew), bs)
		for g, a := range ag.ByType {
			for qi, q := range []agreement.Question{a.Plausibility, a.Cancellation} {
				pre := fmt.Sprintf("%s agreement %s/%d ", name, g, qi)
				checkBinary := func(pre string, b agreement.Binary) {
					check(pre+"raw", b.Raw, b.RawCI)
					check(pre+"kappa", b.Kappa, b.KappaCI)
					check(pre+"pabak", b.PABAK, b.PABAKCI)
					check(pre+"fleiss", b.FleissKappa, b.FleissKappaCI)
				}
				checkBinary(pre, q.Binary)
				check(pre+"light", q.LightsKappa, q.LightsKappaCI)
				check(pre+"alpha", q.KrippendorffAlpha, q.KrippendorffAlphaCI)
				for k, p := range a.Pairs {
					checkBinary(fmt.Sprintf("%spair %d ", pre, k), []agreement.Binary{p.Plausibility, p.Cancellation}[qi])
				}
			}
		}

		c := contextsurvey.ComputeContextWith(randomContext(rng, skew), bs)
		all := []*contextsurvey.ContextStats{c.Overall}
		for _, s := range c.Surveys {
			all = append(all, s)
		}
		for _, kp := range c.ByKindPeriod {
			for _, s := range kp {
				all = append(all, s)
			}
		}
		for k, s := range all {
			pre := fmt.Sprintf("%s context %d ", name, k)
			check(pre+"fleiss", s.FleissKappa, s.FleissKappaCI)
			check(pre+"alpha_n", s.KrippendorffAlphaNominal, s.KrippendorffAlphaNominalCI)
			check(pre+"alpha_o", s.KrippendorffAlphaOrdinal, s.KrippendorffAlphaOrdinalCI)
			check(pre+"full", s.FullConsensus, s.FullConsensusCI)
			check(pre+"majority", s.MajorityConsensus, s.MajorityConsensusCI)
			for j := range s.CumulativeJudgements {
				check(pre+"cj"+strconv.Itoa(j), s.CumulativeJudgements[j], s.CumulativeJudgementsCI[j])
				check(pre+"ci"+strconv.Itoa(j), s.CumulativeItems[j], s.CumulativeItemsCI[j])
			}
		}

		e := modelhuman.ComputeExplanations(randomExplanations(rng, skew))
		tables := []*modelhuman.Explanations{e}
		for _, m := range e.ByModel {
			tables = append(tables, m)
		}
		for _, x := range tables {
			for kind, row := range x.Table {
				for strat, cell := range row {
					pre := name + " explanations " + kind + "/" + strat + "/"
					check(pre+"acceptable", cell.Acceptable(), cell.AcceptableCI())
					for j := range modelhuman.Judgments {
						check(pre+modelhuman.Judgments[j], cell.Share(j), cell.ShareCI(j))
					}
				}
			}
		}
	}
	if checked < 5000 {
		t.Errorf("only %d intervals checked: the generators make too little data", checked)
	}
}

// skewed draws 0 with probability skew, else one of 1…k−1.
func skewed(rng *rand.Rand, skew float64, k int) int {
	if rng.Float64() < skew {
		return 0
	}
	return 1 + rng.IntN(k-1)
}

// randomRatings draws a small crowd study: 1–25 participants, 1–16 items,
// ratings leaning towards one value by skew, some constant raters and some
// careless ones. nil when the draw holds no analysable row.
func randomRatings(rng *rand.Rand, skew float64) *toplines.Ratings {
	nP, nI := 1+rng.IntN(25), 1+rng.IntN(16)
	var rows []toplines.RatingRow
	for p := range nP {
		pid := "p" + strconv.Itoa(p)
		constant := rng.IntN(8) == 0
		for i := range nI {
			if rng.IntN(3) == 0 {
				continue
			}
			v := 7 - skewed(rng, skew, 7)
			if constant {
				v = 4
			}
			rows = append(rows, toplines.RatingRow{Participant: pid, Batch: "b", Item: "i" + strconv.Itoa(i), Type: domain.TableTypes[i%len(domain.TableTypes)],
				Condition: toplines.ConditionNames[rng.IntN(int(toplines.NumConditions))], Rating: v})
		}
		for c := range rng.IntN(4) {
			rows = append(rows, toplines.RatingRow{Participant: pid, Batch: "b", Item: "check" + strconv.Itoa(c), Condition: domain.ConditionTrigger,
				Rating: 1 + rng.IntN(7), Check: []string{"high", "low"}[c%2]})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	rs, err := toplines.NewRatings(rows)
	if err != nil {
		panic(err)
	}
	return rs
}

func randomJudgements(rng *rand.Rand, skew float64) []agreement.Judgement {
	nA, nI := 2+rng.IntN(3), 1+rng.IntN(20)
	var js []agreement.Judgement
	for i := range nI {
		for a := range nA {
			if nA > 2 && rng.IntN(4) == 0 {
				continue
			}
			j := agreement.Judgement{Annotator: "a" + strconv.Itoa(a), Item: "i" + strconv.Itoa(i), Type: domain.TableTypes[i%3]}
			j.Plausible = skewed(rng, skew, 2) == 0
			if j.Plausible && rng.IntN(5) > 0 {
				j.HasCancellation, j.CancellationCorrect = true, skewed(rng, skew, 2) == 0
			}
			js = append(js, j)
		}
	}
	return js
}

func randomContext(rng *rand.Rand, skew float64) []contextsurvey.ContextAnswer {
	var as []contextsurvey.ContextAnswer
	for s := range 1 + rng.IntN(3) {
		for i := range 1 + rng.IntN(12) {
			for a := range 1 + rng.IntN(4) {
				k := skewed(rng, skew, contextsurvey.MaxAddedSentences+2)
				as = append(as, contextsurvey.ContextAnswer{Annotator: "a" + strconv.Itoa(a), Survey: "s" + strconv.Itoa(s), Item: "i" + strconv.Itoa(i),
					Kind: []string{"imp", "pre"}[i%2], Period: "p" + strconv.Itoa(i%3),
					Sentences: min(k, contextsurvey.MaxAddedSentences), Sufficient: k <= contextsurvey.MaxAddedSentences})
			}
		}
	}
	return as
}

func randomExplanations(rng *rand.Rand, skew float64) []modelhuman.ExplanationRating {
	var rs []modelhuman.ExplanationRating
	for k := range 1 + rng.IntN(2) {
		for s := range 1 + rng.IntN(3) {
			for i := range 1 + rng.IntN(15) {
				for m := range 1 + rng.IntN(2) {
					rs = append(rs, modelhuman.ExplanationRating{Annotator: "e" + strconv.Itoa(i%3), Item: "i" + strconv.Itoa(i),
						Kind: "k" + strconv.Itoa(k), Strategy: "s" + strconv.Itoa(s), Model: "m" + strconv.Itoa(m), Judgment: skewed(rng, skew, 5)})
				}
			}
		}
	}
	return rs
}
