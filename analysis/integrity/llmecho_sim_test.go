package integrity

import (
	"math"
	"math/rand/v2"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
	"strconv"
	"testing"
)

// echoSim is one simulated batch of the crowd design for the LLM-echo
// simulation (docs/statistics.md#llm-echo): Items (item, condition) pairs,
// half trigger half cancel, rated by Raters participants from the crowd
// generative model (docs/statistics.md#the-generative-models); a model
// answers like a typical participant (offset 3.6, spread 1.1) whose noise
// has SD ModelNoise; participant 0 is honest, or copies the model's answer
// and with probability CopyNoise moves it one point up or down.
type echoSim struct {
	Items, Raters int
	ModelNoise    float64
	Copier        bool
	CopyNoise     float64
}

func (s echoSim) draw(rng *rand.Rand) ([]EchoRating, []ModelAnswer) {
	var ls []float64
	var conds []string
	for i := range s.Items {
		it := plan.DrawCrowdItem(rng, rng.IntN(4), plan.CrowdDesign{})
		c := toplines.Trigger
		if i%2 == 1 {
			c = toplines.Cancel
		}
		ls = append(ls, it.Latent[c])
		conds = append(conds, c.String())
	}
	var ms []ModelAnswer
	for i, l := range ls {
		ms = append(ms, ModelAnswer{Model: "m", Item: "i" + strconv.Itoa(i), Condition: conds[i],
			Rating: int(plan.Rate(plan.CrowdOffsetMu, 1.1, l, s.ModelNoise*rng.NormFloat64()))})
	}
	var rs []EchoRating
	for p := range s.Raters {
		a := plan.CrowdOffsetMu + plan.CrowdOffsetSD*rng.NormFloat64()
		sp := math.Exp(plan.CrowdSpreadMu + plan.CrowdSpreadSD*rng.NormFloat64())
		for i, l := range ls {
			v := int(plan.Rate(a, sp, l, rng.NormFloat64()))
			if p == 0 && s.Copier {
				v = ms[i].Rating
				if rng.Float64() < s.CopyNoise {
					v = jitter(rng, v)
				}
			}
			rs = append(rs, EchoRating{Participant: "p" + strconv.Itoa(p), Item: ms[i].Item, Condition: conds[i], Rating: v})
		}
	}
	return rs, ms
}

// jitter moves a rating one point up or down at random, inwards at an end.
func jitter(rng *rand.Rand, v int) int {
	switch {
	case v == 1:
		return 2
	case v == 7:
		return 6
	case rng.IntN(2) == 0:
		return v - 1
	}
	return v + 1
}

// flagRate is the share of runs in which participant 0 is flagged.
func (s echoSim) flagRate(seed uint64, runs int, opt EchoOptions) float64 {
	rng := rand.New(rand.NewPCG(seed, 0x11ec40))
	flagged := 0
	for range runs {
		rs, ms := s.draw(rng)
		if LLMEcho(rs, ms, opt)[0].Flagged {
			flagged++
		}
	}
	return float64(flagged) / float64(runs)
}

// TestLLMEchoSimulation is the simulation of docs/statistics.md#llm-echo:
// one batch of the default design (30 items, 5 participants) per run,
// 4,000 runs per case with fixed seeds. Each claim must hold with a margin
// of two Monte-Carlo standard errors at the claimed rate, so a rate that
// only reaches the target by the luck of the seed fails.
func TestLLMEchoSimulation(t *testing.T) {
	const runs = 4000
	se := func(p float64) float64 { return math.Sqrt(p * (1 - p) / runs) }
	opt := DefaultEchoOptions()
	cases := []struct {
		name   string
		sim    echoSim
		seed   uint64
		check  func(rate float64) bool
		target string
	}{
		{"honest, model noise 1", echoSim{ModelNoise: 1}, 11, func(r float64) bool { return r <= 0.02-2*se(0.02) }, "≤ 2 %"},
		{"honest, model noise 0.5", echoSim{ModelNoise: 0.5}, 12, func(r float64) bool { return r <= 0.02-2*se(0.02) }, "≤ 2 %"},
		// The idealised model with no noise at all, the worst case for
		// honest participants: reported, held to 3 %.
		{"honest, model noise 0", echoSim{ModelNoise: 0}, 13, func(r float64) bool { return r <= 0.03-2*se(0.03) }, "≤ 3 %"},
		{"copier 25 %, model noise 1", echoSim{ModelNoise: 1, Copier: true, CopyNoise: 0.25}, 21, func(r float64) bool { return r >= 0.95+2*se(0.95) }, "≥ 95 %"},
		{"copier 25 %, model noise 0.5", echoSim{ModelNoise: 0.5, Copier: true, CopyNoise: 0.25}, 22, func(r float64) bool { return r >= 0.95+2*se(0.95) }, "≥ 95 %"},
		{"copier 25 %, model noise 0", echoSim{ModelNoise: 0, Copier: true, CopyNoise: 0.25}, 23, func(r float64) bool { return r >= 0.95+2*se(0.95) }, "≥ 95 %"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.sim.Items, c.sim.Raters = 30, 5
			rate := c.sim.flagRate(c.seed, runs, opt)
			t.Logf("%s: flagged in %.2f %% of %d runs (target %s)", c.name, 100*rate, runs, c.target)
			if !c.check(rate) {
				t.Errorf("%s: flagged in %.2f %% of %d runs, want %s with a margin of two Monte-Carlo SEs", c.name, 100*rate, runs, c.target)
			}
		})
	}
}

// TestLLMEchoSimulationNoisier reports the copier at 30 % and 40 % noise,
// for the table of docs/statistics.md#llm-echo (no target: the power falls
// as the copy gets noisier).
func TestLLMEchoSimulationNoisier(t *testing.T) {
	if testing.Short() {
		t.Skip("reporting only")
	}
	opt := DefaultEchoOptions()
	for _, cn := range []float64{0.3, 0.4} {
		for _, tau := range []float64{0, 0.5, 1} {
			r := echoSim{Items: 30, Raters: 5, ModelNoise: tau, Copier: true, CopyNoise: cn}.flagRate(31, 4000, opt)
			t.Logf("copier %.0f %%, model noise %.1f: flagged in %.2f %%", 100*cn, tau, 100*r)
			if r < 0.5 {
				t.Errorf("copier %.0f %%, model noise %.1f: flagged in %.2f %% only", 100*cn, tau, 100*r)
			}
		}
	}
}
