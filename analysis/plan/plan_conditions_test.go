package plan

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"pragmalab/analysis/conditions"
)

// judgementStudy draws a Latin-square judgement study of n participants
// rating items items in two conditions on a 7-point scale from a known
// model: each item's mean in each condition (the condition's mean, 4.6
// or 3.6, plus an item effect, SD 0.6), each participant's bias (SD 0.7),
// the rating noise (SD 1.0), rounded and clipped to the scale.
func judgementStudy(rng *rand.Rand, n, items int) *conditions.Ratings {
	names := []string{"control", "target"}
	mu := make([][2]float64, items)
	for i := range mu {
		a := 0.6 * rng.NormFloat64()
		mu[i] = [2]float64{4.6 + a + 0.3*rng.NormFloat64(), 3.6 + a + 0.3*rng.NormFloat64()}
	}
	rs := &conditions.Ratings{ScalePoints: 7, ScaleFrom: "flag", Conditions: names}
	for p := range n {
		b := 0.7 * rng.NormFloat64()
		for i := range items {
			c := (i + p) % 2
			y := min(7, max(1, math.Round(mu[i][c]+b+rng.NormFloat64())))
			rs.Rows = append(rs.Rows, conditions.Rating{Participant: "p" + strconv.Itoa(p), Item: "i" + strconv.Itoa(i), Condition: names[c], Value: int(y)})
		}
	}
	return rs
}

// TestPlanConditionsPredictsTheWidth (docs/statistics.md#planning-a-judgement-study):
// from each of 24 pilots of 20 participants drawn from a known model, the
// planner predicts the width of the difference's 95 % interval at 20 and
// at 80 participants; averaged over the pilots, the prediction is within
// 20 % of the mean width of 40 studies of that size drawn from the model
// itself (one pilot's prediction varies more: a pilot of 20 pins down
// the items' interaction with the condition only roughly), and every
// pilot predicts a narrower interval at 80.
func TestPlanConditionsPredictsTheWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 13))
	opt := ConditionsPlanOptions{Options: conditions.Options{HighPass: 5, LowPass: 3, MaxFailed: 3}, Participants: []int{20, 80}, Draws: 8, Seed: 1}
	truth := make([]float64, len(opt.Participants))
	for k, n := range opt.Participants {
		const studies = 40
		for range studies {
			res, err := conditions.Compute(judgementStudy(rng, n, 24), opt.Options)
			if err != nil {
				t.Fatal(err)
			}
			ci := res.Differences[0].MeanRatingCI
			truth[k] += (ci[1] - ci[0]) / studies
		}
	}
	const pilots = 24
	ratio := make([]float64, len(opt.Participants))
	var p *ConditionsPlan
	var pilot *conditions.Ratings
	for range pilots {
		pilot = judgementStudy(rng, 20, 24)
		var err error
		if p, err = PlanConditions(context.Background(), pilot, opt); err != nil {
			t.Fatal(err)
		}
		if len(p.Plans) != 2 || len(p.Plans[0].Differences) != 1 {
			t.Fatalf("plan: %+v", p)
		}
		for k := range opt.Participants {
			ratio[k] += *p.Plans[k].Differences[0].RatingWidth / truth[k] / pilots
		}
		if w0, w1 := *p.Plans[0].Differences[0].RatingWidth, *p.Plans[1].Differences[0].RatingWidth; w1 >= w0 {
			t.Errorf("80 participants predict %.3f, not narrower than 20's %.3f", w1, w0)
		}
		if s := p.Plans[1].Differences[0].ItemsShare; s == nil || *s < 0 || *s > 1 {
			t.Errorf("items' share at 80 participants: %v", s)
		}
	}
	for k, n := range opt.Participants {
		t.Logf("%d participants: studies drawn from the model %.3f wide; predicted over the pilots %.2f of it on average", n, truth[k], ratio[k])
		if ratio[k] < 0.8 || ratio[k] > 1.2 {
			t.Errorf("%d participants: the predicted width is %.2f of the true one on average over %d pilots", n, ratio[k], pilots)
		}
	}
	// Too small a pilot, one condition, and sizes beyond the bounds are
	// refused with the reason.
	if _, err := PlanConditions(context.Background(), judgementStudy(rng, 6, 24), opt); err == nil {
		t.Error("a pilot of 6 participants was planned from")
	}
	bad := opt
	bad.Participants = []int{MaxPlanParticipants + 1}
	if _, err := PlanConditions(context.Background(), pilot, bad); err == nil {
		t.Error("a plan beyond the participants' bound was made")
	}
}
