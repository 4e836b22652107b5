package plan

import (
	"math/rand/v2"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strings"
	"testing"
)

// TestPlanPredictsWidthsOfLargerStudies validates the planner by
// simulation (docs/statistics.md#planning-a-study): from pilots of 60
// participants drawn from the crowd model, the predicted widths at 240
// participants are within 25 % of the widths that simulated
// 240-participant studies of the same model actually get.
func TestPlanPredictsWidthsOfLargerStudies(t *testing.T) {
	const reps = 6
	pilotDesign := CrowdDesign{Items: 40, Batches: 10, PerBatch: 6}
	bigDesign := CrowdDesign{Items: 40, Batches: 10, PerBatch: 24}
	opt := toplines.DefaultOptions()
	opt.Bootstrap.Replicates = 400
	predicted, actual, level := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for r := range reps {
		rng := rand.New(rand.NewPCG(uint64(100+r), 7))
		pilot := SimulateCrowd(rng, pilotDesign)
		rep, err := PlanToplines(pilot, PlanOptions{Participants: []int{240}, Options: opt, Draws: 3})
		if err != nil {
			t.Fatal(err)
		}
		addWidths(predicted, rep.Plans[0].ByType[domain.TypeAll], 1.0/reps)
		big := SimulateCrowd(rand.New(rand.NewPCG(uint64(900+r), 11)), bigDesign)
		o := opt
		o.Bootstrap.Seed = uint64(r + 1)
		bt := toplines.ComputeToplines(big, o).ByType[domain.TypeAll]
		addWidths(actual, bt, 1.0/reps)
		for _, q := range PlanQuantities {
			if v, _ := bt.Quantity(q); v != nil {
				level[q] += *v / reps
			}
		}
	}
	checked := 0
	for q, a := range actual {
		if q != "pearson_r" && (level[q] < 0.05 || level[q] > 0.95) {
			// A share at 0 or 1 in the larger studies (cancellation and
			// negation in this model reach 1.00): its interval there is
			// the boundary's, not a width that scales with participants.
			t.Logf("%s: at %.2f in the larger studies, not compared", q, level[q])
			continue
		}
		checked++
		t.Logf("%s: predicted %.3f, simulated %.3f", q, predicted[q], a)
		if p := predicted[q]; p < 0.75*a || p > 1.25*a {
			t.Errorf("%s: predicted width %.3f at 240 participants, simulated studies have %.3f (not within 25%%)", q, p, a)
		}
	}
	if checked < 3 {
		t.Fatalf("only %d quantities had a width to compare: %v", checked, actual)
	}
}

func addWidths(acc map[string]float64, tt *toplines.TypeToplines, w float64) {
	for _, q := range PlanQuantities {
		if _, ci := tt.Quantity(q); ci != nil {
			acc[q] += w * (ci[1] - ci[0])
		}
	}
}

// TestPlanShrinksOnlyTheParticipantsShare: more participants give
// narrower intervals, never wider, and the items' share grows with N.
func TestPlanShrinksOnlyTheParticipantsShare(t *testing.T) {
	pilot := SimulateCrowd(rand.New(rand.NewPCG(3, 4)), CrowdDesign{Items: 40, Batches: 10, PerBatch: 6})
	opt := toplines.DefaultOptions()
	opt.Bootstrap.Replicates = 300
	rep, err := PlanToplines(pilot, PlanOptions{Participants: []int{60, 240, 960}, Options: opt, Draws: 3})
	if err != nil {
		t.Fatal(err)
	}
	w := func(i int) float64 {
		_, ci := rep.Plans[i].ByType[domain.TypeAll].Quantity(toplines.MBeliefUpdate)
		return ci[1] - ci[0]
	}
	if !(w(0) > w(1) && w(1) > w(2)) {
		t.Errorf("belief-update widths %.3f, %.3f, %.3f at 60, 240, 960: want them to shrink", w(0), w(1), w(2))
	}
	s0 := rep.Plans[0].ItemsShare[domain.TypeAll][toplines.MBeliefUpdate]
	s2 := rep.Plans[2].ItemsShare[domain.TypeAll][toplines.MBeliefUpdate]
	if s0 == nil || s2 == nil || *s2 < *s0 {
		t.Errorf("the items' share should grow with N: %v at 60, %v at 960", s0, s2)
	}
	// the centre is the pilot's own estimate
	p, _ := rep.Pilot.ByType[domain.TypeAll].Quantity(toplines.MBeliefUpdate)
	q, _ := rep.Plans[1].ByType[domain.TypeAll].Quantity(toplines.MBeliefUpdate)
	if p == nil || q == nil || *p != *q {
		t.Errorf("plan not centred on the pilot's estimate: %v vs %v", q, p)
	}
}

// TestPlanRefusesWhatItCannotPlan: N ≤ 0, and a pilot too small to say
// how participants vary, are refused with a sentence saying why.
func TestPlanRefusesWhatItCannotPlan(t *testing.T) {
	pilot := SimulateCrowd(rand.New(rand.NewPCG(5, 6)), CrowdDesign{Items: 20, Batches: 5, PerBatch: 4})
	if _, err := PlanToplines(pilot, PlanOptions{Participants: []int{100, 0}}); err == nil || !strings.Contains(err.Error(), "0 is not a number of participants") {
		t.Errorf("N = 0: %v", err)
	}
	one := SimulateCrowd(rand.New(rand.NewPCG(5, 6)), CrowdDesign{Items: 20, Batches: 1, PerBatch: 1})
	if _, err := PlanToplines(one, PlanOptions{Participants: []int{100}}); err == nil || !strings.Contains(err.Error(), "cannot plan from fewer than 10") {
		t.Errorf("one participant: %v", err)
	}
}
