package plan

import (
	"context"
	"math"
	"math/rand/v2"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"testing"
)

// PlanWidth finds the participants whose predicted width is the target:
// asked for the width the planner predicts at 150 participants, it answers
// near 150, the planner's width at its answer is the target within 10 %,
// and a target below the items' floor is out of reach. The pilot has 200
// items, so that participants carry much of the uncertainty.
func TestPlanWidthFindsParticipants(t *testing.T) {
	pilot := SimulateCrowd(rand.New(rand.NewPCG(100, 7)), CrowdDesign{Items: 200, Batches: 10, PerBatch: 6})
	opt := PlanOptions{Draws: 3, Options: toplines.DefaultOptions()}
	opt.Options.Bootstrap.Replicates = 300
	o := opt
	o.Participants = []int{150}
	rep, err := PlanToplines(context.Background(), pilot, o)
	if err != nil {
		t.Fatal(err)
	}
	_, ci := rep.Plans[0].ByType[domain.TypeAll].Quantity("pearson_r")
	target := ci[1] - ci[0]
	wp, err := PlanWidth(context.Background(), pilot, opt, domain.TypeAll, "pearson_r", target)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("target %.3f: %d participants (width %.3f, floor %.3f), points %v", target, wp.Participants, wp.Width, wp.Floor, wp.Points)
	if !wp.Reachable || wp.Participants < 100 || wp.Participants > 225 {
		t.Fatalf("target %.3f (the width at 150): %d participants", target, wp.Participants)
	}
	o.Participants = []int{wp.Participants}
	at, err := PlanToplines(context.Background(), pilot, o)
	if err != nil {
		t.Fatal(err)
	}
	_, ci = at.Plans[0].ByType[domain.TypeAll].Quantity("pearson_r")
	if w := ci[1] - ci[0]; math.Abs(w-target) > 0.1*target {
		t.Errorf("the planner's width at %d participants is %.4f, target %.4f", wp.Participants, w, target)
	}
	if wp.Floor >= target {
		t.Errorf("floor %.3f above a reachable target %.3f", wp.Floor, target)
	}
	far, err := PlanWidth(context.Background(), pilot, opt, domain.TypeAll, "pearson_r", wp.Floor*0.5+1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if far.Reachable || far.Participants != 0 {
		t.Errorf("a target below the items' floor %.3f: %+v", wp.Floor, far)
	}
	// out of reach only when the studies simulated at the cap miss it
	if !far.has(far.Cap) || far.point(far.Cap).Width <= far.Target || far.Cap != MaxPlanParticipants {
		t.Errorf("out of reach without the cap's (%d) studies missing %.3f: %v", far.Cap, far.Target, far.Points)
	}
	// the width's range over re-fitted pilots, at the answer and, out of
	// reach, at the cap (docs/statistics.md#how-sure-is-a-planned-width)
	for _, c := range []struct {
		wp *WidthPlan
		w  float64
	}{{wp, wp.Width}, {far, far.point(far.Cap).Width}} {
		if r := c.wp.WidthRange; r == nil || r.Low > c.w || r.High < c.w || r.High <= r.Low {
			t.Errorf("target %.3f: width %.3f, range %+v", c.wp.Target, c.w, r)
		}
	}
	if _, err := PlanWidth(context.Background(), pilot, opt, domain.TypeAll, "kappa", 0.1); err == nil {
		t.Error("an unknown quantity was planned")
	}
	if _, err := PlanWidth(context.Background(), pilot, opt, domain.TypeAll, toplines.MBeliefUpdate, 0); err == nil {
		t.Error("a zero width was planned")
	}
}
