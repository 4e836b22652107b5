// Package echobench simulates the studies of `pragmalab bench integrity`
// (docs/statistics.md#llm-echo-measured) and assesses each with the
// LLM-echo rules of analysis/integrity.
package echobench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"pragmalab/analysis"
	"pragmalab/analysis/integrity"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
)

// The simulated studies of `pragmalab bench integrity`
// (docs/statistics.md#llm-echo-measured): a pool of honest raters, one
// honest rater who rates every item at its typical value, and agents who
// copy a model's answers with a quarter moved one point; two models
// answering with distributions; three trusted reference humans. Each
// study is assessed without a reference (the pool's own humans, the rule
// of docs/statistics.md#llm-echo) and with the reference
// (docs/statistics.md#llm-echo-against-a-reference).

// EchoGenerators are the generators of honest ratings the bench draws
// from: "crowd" is the project's own generative model
// (docs/statistics.md#the-generative-models), "styles" an ordinal one
// with leniency, noise and response styles of its own.
var EchoGenerators = []string{"crowd", "styles"}

// EchoBenchConfig sizes the bench.
type EchoBenchConfig struct {
	// Studies per cell (generator × model noise × agent share).
	Studies int
	// Pool is the participants of a study, agents included; Reference the
	// trusted humans.
	Pool, Reference int
	// MinItems–MaxItems: each study's items (every participant rates
	// all), drawn uniformly.
	MinItems, MaxItems       int
	ModelNoises, AgentShares []float64
	Generators               []string
	Seed                     uint64
	// Workers run cells in parallel (each cell has its own random stream,
	// so the result does not depend on it).
	Workers int
}

// DefaultEchoBenchConfig is the bench of docs/statistics.md#llm-echo-measured.
func DefaultEchoBenchConfig() EchoBenchConfig {
	return EchoBenchConfig{Studies: 150, Pool: 12, Reference: 3, MinItems: 10, MaxItems: 60,
		ModelNoises: []float64{0, 0.25, 0.5, 0.75, 1}, AgentShares: []float64{0, 0.25, 0.5, 0.75},
		Generators: EchoGenerators, Seed: 44, Workers: 2}
}

// Validate bounds the bench.
func (c EchoBenchConfig) Validate() error {
	switch {
	case c.Studies < 1 || c.Studies > 100000:
		return fmt.Errorf("studies must be 1–100,000, got %d", c.Studies)
	case c.Pool < 2 || c.Pool > 200:
		return fmt.Errorf("pool must be 2–200, got %d", c.Pool)
	case c.Reference < 2 || c.Reference > 50:
		return fmt.Errorf("reference must be 2–50, got %d", c.Reference)
	case c.MinItems < 4 || c.MaxItems < c.MinItems || c.MaxItems > 500:
		return fmt.Errorf("items must be 4–500 with min ≤ max, got %d–%d", c.MinItems, c.MaxItems)
	case len(c.ModelNoises) == 0 || len(c.AgentShares) == 0 || len(c.Generators) == 0:
		return fmt.Errorf("need at least one model noise, agent share and generator")
	}
	for _, t := range c.ModelNoises {
		if !(t >= 0 && t <= 3) {
			return fmt.Errorf("model noise must be 0–3, got %g", t)
		}
	}
	for _, s := range c.AgentShares {
		if !(s >= 0 && s < 1) {
			return fmt.Errorf("agent share must be at least 0 and below 1, got %g", s)
		}
	}
	for _, g := range c.Generators {
		if echoWorldOf(g) == nil {
			return fmt.Errorf("unknown generator %q (crowd, styles)", g)
		}
	}
	return nil
}

// EchoBenchStudy is one simulated study's counts, under each rule.
type EchoBenchStudy struct {
	Generator  string
	ModelNoise float64
	AgentShare float64
	Items      int
	// Agents, Honest (noisy honest raters) and Typical (the one honest
	// rater at each item's typical value) in the pool.
	Agents, Honest, Typical int
	// Pool: flagged without a reference; Ref: with the trusted reference;
	// RefAnswers: with it, when the models file gives only the answers (no
	// distribution).
	Pool, Ref, RefAnswers EchoBenchFlags
}

// EchoBenchFlags counts the flagged of each kind.
type EchoBenchFlags struct{ Agents, Honest, Typical int }

// echoWorld is a generator of items and honest raters.
type echoWorld interface {
	item(rng *rand.Rand) float64 // the item's typical value on the scale
	rater(rng *rand.Rand) [3]float64
	rate(rng *rand.Rand, r [3]float64, typical float64) int
	noise() float64 // one person's rating noise SD on the scale
}

func echoWorldOf(name string) echoWorld {
	switch name {
	case "crowd":
		return crowdWorld{}
	case "styles":
		return stylesWorld{}
	}
	return nil
}

// crowdWorld is the crowd generative model: an item's latent ℓ (a trigger
// or cancel condition, at random), a rater's offset and spread; the
// typical value is the typical participant's 3.6 + 1.1·ℓ.
type crowdWorld struct{}

func (crowdWorld) item(rng *rand.Rand) float64 {
	it := plan.DrawCrowdItem(rng, rng.IntN(4), plan.CrowdDesign{})
	l := it.Latent[toplines.Trigger]
	if rng.IntN(2) == 1 {
		l = it.Latent[toplines.Cancel]
	}
	return plan.CrowdOffsetMu + 1.1*l
}

func (crowdWorld) rater(rng *rand.Rand) [3]float64 {
	return [3]float64{plan.CrowdOffsetMu + plan.CrowdOffsetSD*rng.NormFloat64(), math.Exp(plan.CrowdSpreadMu + plan.CrowdSpreadSD*rng.NormFloat64())}
}

func (crowdWorld) rate(rng *rand.Rand, r [3]float64, typical float64) int {
	l := (typical - plan.CrowdOffsetMu) / 1.1
	return int(plan.Rate(r[0], r[1], l, rng.NormFloat64()))
}

func (crowdWorld) noise() float64 { return 1.1 }

// stylesWorld is an ordinal generator of a different shape: an item's
// typical value uniform on 1.3–6.7; a rater's leniency N(0, 0.6²), noise
// SD uniform on 0.5–1.4 and response style (half plain, a quarter extreme
// stretching away from the midpoint by 1.4, a quarter midpoint shrinking
// towards it by 0.6); the rating round(4 + style·(typical − 4) + leniency
// + noise·ε), clamped to 1–7.
type stylesWorld struct{}

func (stylesWorld) item(rng *rand.Rand) float64 { return 1.3 + 5.4*rng.Float64() }

func (stylesWorld) rater(rng *rand.Rand) [3]float64 {
	style := 1.0
	switch u := rng.Float64(); {
	case u < 0.25:
		style = 1.4
	case u < 0.5:
		style = 0.6
	}
	return [3]float64{0.6 * rng.NormFloat64(), 0.5 + 0.9*rng.Float64(), style}
}

func (stylesWorld) rate(rng *rand.Rand, r [3]float64, typical float64) int {
	return clampPoint(4 + r[2]*(typical-4) + r[0] + r[1]*rng.NormFloat64())
}

func (stylesWorld) noise() float64 { return 0.95 }

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

func clampPoint(v float64) int { return int(max(1, min(7, math.Round(v)))) }

// modelDist is a model's distribution over 1–7: a normal of SD 0.7
// around its belief, cut at the half points (the ends open).
func modelDist(belief float64) []float64 {
	d := make([]float64, 7)
	prev := 0.0
	for k := 1; k <= 7; k++ {
		cdf := 1.0
		if k < 7 {
			cdf = analysis.NormCDF((float64(k) + 0.5 - belief) / 0.7)
		}
		d[k-1] = cdf - prev
		prev = cdf
	}
	return d
}

func distMode(d []float64) int {
	best := 0
	for k := range d {
		if d[k] > d[best] {
			best = k
		}
	}
	return best + 1
}

// echoBenchModels is the number of models each study gives; the agents
// copy the first.
const echoBenchModels = 2

// simulate draws one study and assesses it under both rules.
func (c EchoBenchConfig) simulate(rng *rand.Rand, gen string, tau, share float64) EchoBenchStudy {
	w := echoWorldOf(gen)
	n := c.MinItems + rng.IntN(c.MaxItems-c.MinItems+1)
	st := EchoBenchStudy{Generator: gen, ModelNoise: tau, AgentShare: share, Items: n}
	typ := make([]float64, n)
	items := make([]string, n)
	for i := range typ {
		typ[i] = w.item(rng)
		items[i] = "i" + strconv.Itoa(i)
	}
	var answers []integrity.ModelAnswer
	copyOf := make([]int, n)
	for m := range echoBenchModels {
		name := "m" + strconv.Itoa(m)
		for i := range typ {
			d := modelDist(typ[i] + tau*w.noise()*rng.NormFloat64())
			a := integrity.ModelAnswer{Model: name, Item: items[i], Condition: "c", Rating: distMode(d), Dist: d}
			answers = append(answers, a)
			if m == 0 {
				copyOf[i] = a.Rating
			}
		}
	}
	st.Agents = int(math.Round(share * float64(c.Pool-1)))
	st.Typical = 1
	st.Honest = c.Pool - st.Agents - st.Typical
	kind := map[string]int{} // 0 honest, 1 typical, 2 agent
	var pool []integrity.EchoRating
	for p := range c.Pool {
		id := "p" + strconv.Itoa(p)
		k := 0
		switch {
		case p < st.Agents:
			k = 2
		case p == st.Agents:
			k = 1
		}
		kind[id] = k
		r := w.rater(rng)
		for i := range typ {
			var v int
			switch k {
			case 0:
				v = w.rate(rng, r, typ[i])
			case 1:
				v = clampPoint(typ[i])
			default:
				v = copyOf[i]
				if rng.Float64() < 0.25 {
					v = jitter(rng, v)
				}
			}
			pool = append(pool, integrity.EchoRating{Participant: id, Item: items[i], Condition: "c", Rating: v})
		}
	}
	var ref []integrity.EchoRating
	for q := range c.Reference {
		r := w.rater(rng)
		for i := range typ {
			ref = append(ref, integrity.EchoRating{Participant: "r" + strconv.Itoa(q), Item: items[i], Condition: "c", Rating: w.rate(rng, r, typ[i])})
		}
	}
	count := func(f *EchoBenchFlags, id string) {
		switch kind[id] {
		case 0:
			f.Honest++
		case 1:
			f.Typical++
		default:
			f.Agents++
		}
	}
	for _, r := range integrity.LLMEcho(pool, answers, integrity.DefaultEchoOptions()) {
		if r.Flagged {
			count(&st.Pool, r.Participant)
		}
	}
	for _, r := range integrity.LLMEchoReference(pool, ref, answers, integrity.DefaultFitOptions()) {
		if r.Flagged {
			count(&st.Ref, r.Participant)
		}
	}
	for i := range answers {
		answers[i].Dist = nil
	}
	for _, r := range integrity.LLMEchoReference(pool, ref, answers, integrity.DefaultFitOptions()) {
		if r.Flagged {
			count(&st.RefAnswers, r.Participant)
		}
	}
	return st
}

// EchoBench runs every cell's studies; the result is in cell order
// (generator, model noise, agent share) and does not depend on Workers.
// It stops early with ctx's error when ctx is done.
func EchoBench(ctx context.Context, c EchoBenchConfig) ([]EchoBenchStudy, error) {
	type cell struct {
		gen        string
		tau, share float64
		idx        int
	}
	var cells []cell
	for _, g := range c.Generators {
		for _, t := range c.ModelNoises {
			for _, s := range c.AgentShares {
				cells = append(cells, cell{g, t, s, len(cells)})
			}
		}
	}
	out := make([][]EchoBenchStudy, len(cells))
	work := make(chan cell)
	var wg sync.WaitGroup
	for range max(1, c.Workers) {
		wg.Go(func() {
			for ce := range work {
				rng := rand.New(rand.NewPCG(c.Seed, uint64(ce.idx)))
				res := make([]EchoBenchStudy, c.Studies)
				for i := range res {
					if ctx.Err() != nil {
						break
					}
					res[i] = c.simulate(rng, ce.gen, ce.tau, ce.share)
				}
				out[ce.idx] = res
			}
		})
	}
	for _, ce := range cells {
		work <- ce
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var all []EchoBenchStudy
	for _, r := range out {
		all = append(all, r...)
	}
	return all, nil
}
