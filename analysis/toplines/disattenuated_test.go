package toplines

import (
	"math"
	"math/rand/v2"
	"pragmalab/domain"
	"strings"
	"testing"
)

// noisyItems draws nItems items whose population means (without and with
// cancellation) have SD 1 and correlation rho, each mean observed through
// n ratings with noise SD sigma: the reliability of either set of means is
// 1/(1 + sigma²/n).
func noisyItems(rng *rand.Rand, nItems, n int, rho, sigma float64) []ItemMeans {
	items := make([]ItemMeans, nItems)
	for i := range items {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		truth := [2]float64{a, rho*a + math.Sqrt(1-rho*rho)*b}
		m := &items[i]
		m.Type = domain.TableTypes[0]
		for c := range NumConditions {
			m.MeanZ[c] = math.NaN()
		}
		for k, c := range []Condition{Trigger, Cancel} {
			var s, ss float64
			zs := make([]float64, n)
			for j := range zs {
				zs[j] = truth[k] + sigma*rng.NormFloat64()
				s += zs[j]
			}
			mean := s / float64(n)
			for _, z := range zs {
				ss += (z - mean) * (z - mean)
			}
			m.MeanZ[c], m.N[c], m.SS[c] = mean, n, ss
		}
	}
	return items
}

// TestDisattenuatedKnownReliability: on items of known reliability the
// reliabilities are recovered, and the corrected r recovers the true
// correlation that the observed r misses.
func TestDisattenuatedKnownReliability(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, c := range []struct {
		n          int
		rho, sigma float64
	}{{10, 0.99, 1}, {20, 0.9, 2}, {5, 0.75, 1}, {50, 0.5, 3}} {
		items := noisyItems(rng, 4000, c.n, c.rho, c.sigma)
		tt := TypeToplinesOf(items, domain.TypeAll)
		rel := 1 / (1 + c.sigma*c.sigma/float64(c.n))
		if tt.ReliabilityTrigger == nil || tt.ReliabilityCancel == nil || tt.PearsonRDisattenuated == nil {
			t.Fatalf("n=%d: reliabilities or corrected r missing: %+v", c.n, tt)
		}
		for _, got := range []float64{*tt.ReliabilityTrigger, *tt.ReliabilityCancel} {
			if math.Abs(got-rel) > 0.02 {
				t.Errorf("n=%d σ=%g: reliability %.4f, want %.4f", c.n, c.sigma, got, rel)
			}
		}
		if got := *tt.PearsonRDisattenuated; math.Abs(got-c.rho) > 0.02 {
			t.Errorf("n=%d ρ=%g: corrected r %.4f, want ρ", c.n, c.rho, got)
		}
		// The observed r is the attenuated one, ρ·rel, and stays beside it.
		if got := *tt.PearsonR; math.Abs(got-c.rho*rel) > 0.02 {
			t.Errorf("n=%d ρ=%g: observed r %.4f, want ρ·rel = %.4f", c.n, c.rho, got, c.rho*rel)
		}
	}
}

// TestDisattenuatedNoNoise: items measured without noise have reliability
// 1 and the corrected r is the observed r.
func TestDisattenuatedNoNoise(t *testing.T) {
	items := noisyItems(rand.New(rand.NewPCG(1, 2)), 50, 4, 0.8, 0)
	tt := TypeToplinesOf(items, domain.TypeAll)
	if *tt.ReliabilityTrigger != 1 || *tt.ReliabilityCancel != 1 || math.Abs(*tt.PearsonRDisattenuated-*tt.PearsonR) > 1e-12 {
		t.Fatalf("no noise: reliabilities %v %v, corrected %v, observed %v", *tt.ReliabilityTrigger, *tt.ReliabilityCancel, *tt.PearsonRDisattenuated, *tt.PearsonR)
	}
}

// TestDisattenuatedUndefined: where the means vary no more than their
// noise, the corrected r is n/a with the reason, and the observed r is
// still reported; one rating per cell leaves the noise unknown.
func TestDisattenuatedUndefined(t *testing.T) {
	items := noisyItems(rand.New(rand.NewPCG(3, 4)), 200, 2, 0.5, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range items { // pure noise: the means' spread is their noise
		for _, c := range []Condition{Trigger, Cancel} {
			a, b := rng.NormFloat64(), rng.NormFloat64()
			items[i].MeanZ[c], items[i].SS[c] = (a+b)/2, (a-b)*(a-b)/2
		}
	}
	var tt *TypeToplines
	for seed := range 20 { // a draw with a reliability ≤ 0
		rng = rand.New(rand.NewPCG(uint64(seed), 9))
		for i := range items {
			for _, c := range []Condition{Trigger, Cancel} {
				a, b := rng.NormFloat64(), rng.NormFloat64()
				items[i].MeanZ[c], items[i].SS[c] = (a+b)/2, (a-b)*(a-b)/2
			}
		}
		if tt = TypeToplinesOf(items, domain.TypeAll); tt.PearsonRDisattenuated == nil {
			break
		}
	}
	if tt.PearsonRDisattenuated != nil || !strings.Contains(tt.PearsonRDisattenuatedNA, "reliability is 0 or less") || tt.PearsonR == nil {
		t.Fatalf("pure noise: corrected %v, reason %q, observed %v", tt.PearsonRDisattenuated, tt.PearsonRDisattenuatedNA, tt.PearsonR)
	}
	for i := range items {
		items[i].N = [NumConditions]int{Trigger: 1, Cancel: 1}
		items[i].SS = [NumConditions]float64{}
	}
	tt = TypeToplinesOf(items, domain.TypeAll)
	if tt.PearsonRDisattenuated != nil || !strings.Contains(tt.PearsonRDisattenuatedNA, "two ratings") || tt.PearsonR == nil {
		t.Fatalf("one rating per cell: corrected %v, reason %q", tt.PearsonRDisattenuated, tt.PearsonRDisattenuatedNA)
	}
}
