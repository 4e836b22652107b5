package plan

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// TestPlanRefusesSizesBeyondItsBounds: every size is refused before
// anything is simulated, with a sentence naming the flag and its limit
// (docs/cli.md#analyze-plan) — --participants 1000000000 once took 24 GB.
func TestPlanRefusesSizesBeyondItsBounds(t *testing.T) {
	pilot := SimulateCrowd(rand.New(rand.NewPCG(5, 6)), CrowdDesign{Items: 20, Batches: 5, PerBatch: 4})
	many := make([]int, MaxPlanSizes+1)
	for i := range many {
		many[i] = 100 + i
	}
	for _, c := range []struct {
		opt  PlanOptions
		want string
	}{
		{PlanOptions{Participants: []int{1_000_000_000}}, "--participants: 1000000000 is not a number of participants the planner simulates (1 to 5000)"},
		{PlanOptions{Participants: []int{100, 0}}, "--participants: 0 is not"},
		{PlanOptions{Participants: many}, "--participants: 13 numbers of participants; the planner takes at most 12"},
		{PlanOptions{Participants: []int{100}, Items: 1_000_000}, "--items: 1000000 is not a number of items the planner simulates (0 for the pilot's, or 1 to 5000)"},
		{PlanOptions{Participants: []int{100}, Draws: 1_000_000_000}, "--draws: 1000000000 is not a number of simulated studies the planner makes (1 to 50)"},
		{PlanOptions{Participants: []int{100}, Options: toplines.Options{Bootstrap: analysisBootstrap(10_000_000)}}, "--bootstrap: 10000000 replicates; the planner takes 100 to 5000"},
	} {
		_, err := PlanToplines(context.Background(), pilot, c.opt)
		if err == nil || domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt.Participants[:min(2, len(c.opt.Participants))], err, c.want)
		}
	}
	// A pilot whose participants each rate 1,000 screens: 5,000 of them
	// would make 5 million ratings per simulated study.
	wide := SimulateCrowd(rand.New(rand.NewPCG(5, 6)), CrowdDesign{Items: 1000, Batches: 5, PerBatch: 2})
	_, err := PlanToplines(context.Background(), wide, PlanOptions{Participants: []int{5000}, Options: toplines.DefaultOptions()})
	if err == nil || !strings.Contains(err.Error(), "--participants: 5000 participants rating up to 1000 screens each make 5000000 ratings per simulated study; the planner simulates at most 1000000 (with this pilot, at most 1000 participants)") {
		t.Errorf("5 million ratings per study: %v", err)
	}
	for _, w := range []float64{0, -1, 2, 1e300, nanValue()} {
		if err := CheckTarget(w); err == nil || !strings.Contains(err.Error(), "is not a width (a number above 0 and below 2") {
			t.Errorf("target %v: %v", w, err)
		}
	}
}

// TestPlanStopsWhenCancelled: a plan of many simulated studies stops at
// the next study once its context is cancelled, with the context's
// error, whether planning widths at N or searching for a target.
func TestPlanStopsWhenCancelled(t *testing.T) {
	pilot := SimulateCrowd(rand.New(rand.NewPCG(5, 6)), CrowdDesign{Items: 40, Batches: 10, PerBatch: 2})
	for _, name := range []string{"PlanToplines", "PlanWidth"} {
		ctx, cancel := context.WithCancel(context.Background())
		studies := 0
		opt := PlanOptions{Participants: []int{60, 240, 960, 3000}, Draws: MaxPlanDraws, simulated: func() { studies++; cancel() }}
		opt.Options = toplines.DefaultOptions()
		opt.Options.Bootstrap.Replicates = MinPlanReplicates
		var err error
		if name == "PlanToplines" {
			_, err = PlanToplines(ctx, pilot, opt)
		} else {
			_, err = PlanWidth(ctx, pilot, opt, domain.TypeAll, "pearson_r", 0.001)
		}
		if !errors.Is(err, context.Canceled) || studies != 1 {
			t.Errorf("%s: cancelled after the first of %d studies: %d simulated, error %v", name, 4*MaxPlanDraws, studies, err)
		}
	}
	// Cancelled while a study's toplines are computed: computeToplines
	// returns at once, leaving the computation behind.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := computeToplines(ctx, pilot, toplines.DefaultOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("computeToplines on a cancelled context: %v", err)
	}
}

func analysisBootstrap(replicates int) analysis.Bootstrap {
	return analysis.Bootstrap{Replicates: replicates, Seed: 1}
}

func nanValue() float64 { return math.NaN() }
