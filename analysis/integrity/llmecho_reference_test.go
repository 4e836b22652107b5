package integrity

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// boundaryCase is X on 20 items against a model answering 4: X agrees on
// 7 (A_m = 7/20), A gives X's rating and the model's on 4 of them (A_h =
// A_o = 2/20), and on every other item A and B sit on both sides of the
// model (no direction to test: p = 1). In floats 0.35 − 0.1 is
// 0.24999999999999997: gap and excess are both 0.25 only within rounding.
func boundaryCase(opt EchoOptions) EchoResult {
	x := cat(repeat(4, 7), repeat(5, 13))
	a := cat(repeat(4, 4), repeat(6, 16))
	b := repeat(2, 20)
	rs, ms := echoCase(map[string][]int{"X": x, "A": a, "B": b}, 20)
	return LLMEcho(rs, ms, opt)[0]
}

// TestLLMEchoThresholdTolerance (docs/statistics.md#llm-echo): the two
// boundary cases (a gap and an excess of exactly 0.25 against thresholds
// of 0.25) are both flagged, and a threshold a hair above is not.
func TestLLMEchoThresholdTolerance(t *testing.T) {
	am, ao := 7.0, 2.0
	if g := am/20 - ao/20; g >= 0.25 {
		t.Skipf("this platform's floats give 0.35 − 0.1 = %v: the case tests nothing", g)
	}
	base := EchoOptions{Points: 7, MinItems: 10, MinGap: 0.15, MinExcess: 0.25, Alpha: 0.01}
	for _, c := range []struct {
		name      string
		gap, exc  float64
		wantFlags bool
	}{
		{"excess exactly at 0.25", 0.15, 0.25, true},
		{"gap exactly at 0.25", 0.25, 0.2, true},
		{"both exactly at 0.25", 0.25, 0.25, true},
		{"excess threshold a hair above", 0.15, 0.25 + 1e-6, false},
		{"gap threshold a hair above", 0.25 + 1e-6, 0.2, false},
	} {
		opt := base
		opt.MinGap, opt.MinExcess = c.gap, c.exc
		res := boundaryCase(opt)
		m := res.Models[0]
		if math.Abs(m.Excess-0.25) > 1e-12 || math.Abs(m.Gap-0.25) > 1e-12 || m.PValue == nil || *m.PValue != 1 {
			t.Fatalf("%s: the case is not at the boundary: %+v", c.name, m)
		}
		if res.Flagged != c.wantFlags {
			t.Errorf("%s: flagged = %v, want %v (gap %.17g, excess %.17g)", c.name, res.Flagged, c.wantFlags, m.Gap, m.Excess)
		}
	}
}

func TestAtLeastAtMost(t *testing.T) {
	for _, c := range []struct {
		x, th   float64
		ge, le  bool
		comment string
	}{
		{0.35 - 0.1, 0.25, true, true, "rounding below"},
		{0.25, 0.25, true, true, "exact"},
		{0.25 - 2e-9, 0.25, false, true, "below beyond tolerance"},
		{0.25 + 2e-9, 0.25, true, false, "above beyond tolerance"},
	} {
		if atLeast(c.x, c.th) != c.ge || atMost(c.x, c.th) != c.le {
			t.Errorf("%s: atLeast(%v, %v) = %v, atMost = %v", c.comment, c.x, c.th, atLeast(c.x, c.th), atMost(c.x, c.th))
		}
	}
}

// refWorld draws a study of n items: honest raters (leniency and noise of
// their own around each item's typical value), reference humans from the
// same population, a model whose point is the typical value plus noise of
// SD tau, and a copier of it.
func refWorld(rng *rand.Rand, n, honest, refs int, tau float64) (pool, ref []EchoRating, answers []ModelAnswer) {
	typ := make([]float64, n)
	for i := range typ {
		typ[i] = 1.5 + 5*rng.Float64()
		answers = append(answers, ModelAnswer{Model: "m", Item: "i" + strconv.Itoa(i), Rating: clampTest(typ[i] + tau*rng.NormFloat64())})
	}
	human := func(id string) []EchoRating {
		len := 0.5 * rng.NormFloat64()
		sd := 0.7 + 0.6*rng.Float64()
		var out []EchoRating
		for i := range typ {
			out = append(out, EchoRating{Participant: id, Item: "i" + strconv.Itoa(i), Rating: clampTest(typ[i] + len + sd*rng.NormFloat64())})
		}
		return out
	}
	for h := range honest {
		pool = append(pool, human("h"+strconv.Itoa(h))...)
	}
	for i, a := range answers {
		pool = append(pool, EchoRating{Participant: "copy", Item: "i" + strconv.Itoa(i), Rating: a.Rating})
	}
	for r := range refs {
		ref = append(ref, human("r"+strconv.Itoa(r))...)
	}
	return pool, ref, answers
}

// TestLLMEchoReferenceExactCopy: an exact copy of a model is δ = 1 within
// rounding, flagged at MinFollow = 1 (the tolerance) and its reason
// names the model; the honest raters' δ are near 0.
func TestLLMEchoReferenceExactCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool, ref, answers := refWorld(rng, 40, 4, 6, 1)
	opt := DefaultFitOptions()
	opt.MinFollow = 1
	var copyRes *FitResult
	res := LLMEchoReference(pool, ref, answers, opt)
	for i := range res {
		if res[i].Participant == "copy" {
			copyRes = &res[i]
		}
	}
	m := copyRes.Models[0]
	if m.Follow == nil || math.Abs(*m.Follow-1) > 1e-9 || !copyRes.Flagged || copyRes.Echoes != "m" {
		t.Fatalf("exact copy: %+v", copyRes)
	}
	if *m.PValue != 0 {
		t.Errorf("exact copy: p = %v, want 0 (a fit without residual)", *m.PValue)
	}
	for _, r := range res {
		if r.Participant != "copy" && r.Flagged {
			t.Errorf("honest %s flagged: %s", r.Participant, r.Reason)
		}
	}
}

// TestLLMEchoReferenceAgentMajority: the pool rule's failure
// (docs/statistics.md#llm-echo-measured), a pool of 50
// copiers and 30 honest raters. Against the pool's own humans (the rule
// without a reference) the copiers hide; against 6 trusted humans they do
// not, and the honest raters are not flagged.
func TestLLMEchoReferenceAgentMajority(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 40
	pool, ref, answers := refWorld(rng, n, 30, 6, 1)
	var copies []EchoRating
	for c := range 49 { // "copy" is the 50th
		for i, a := range answers {
			v := a.Rating
			if rng.Float64() < 0.25 {
				v = jitter(rng, v)
			}
			copies = append(copies, EchoRating{Participant: "c" + strconv.Itoa(c), Item: "i" + strconv.Itoa(i), Rating: v})
		}
	}
	pool = append(pool, copies...)
	count := func(flagged func(string) bool) (agents, honest int) {
		for c := range 49 {
			if flagged("c" + strconv.Itoa(c)) {
				agents++
			}
		}
		if flagged("copy") {
			agents++
		}
		for h := range 30 {
			if flagged("h" + strconv.Itoa(h)) {
				honest++
			}
		}
		return
	}
	byRef := map[string]bool{}
	for _, r := range LLMEchoReference(pool, ref, answers, DefaultFitOptions()) {
		byRef[r.Participant] = r.Flagged
	}
	byPool := map[string]bool{}
	for _, r := range LLMEcho(pool, answers, DefaultEchoOptions()) {
		byPool[r.Participant] = r.Flagged
	}
	ra, rh := count(func(p string) bool { return byRef[p] })
	pa, _ := count(func(p string) bool { return byPool[p] })
	t.Logf("with the reference %d of 50 copiers and %d of 30 honest flagged; against the pool %d of 50 copiers", ra, rh, pa)
	if ra < 45 || rh > 1 {
		t.Errorf("with a trusted reference: %d of 50 copiers flagged (want ≥ 45), %d of 30 honest (want ≤ 1)", ra, rh)
	}
	if pa >= 25 {
		t.Errorf("against the pool's own humans %d of 50 copiers flagged: the failure this rule answers is gone, update the docs", pa)
	}
}

func clampTest(v float64) int { return int(max(1, min(7, math.Round(v)))) }
