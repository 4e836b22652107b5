package report

import (
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"testing"
)

// TestPairedSharesByHand: a model and the humans on the same 10 items,
// the model hitting 7 (5 with the humans, 2 alone), the humans 5.
//
//	Wilson(7, 10) = [0.3968, 0.8922] and Wilson(5, 10) = [0.2366, 0.7634]
//	(the textbook values); φ = (5·3 − 2·0)/√(7·3·5·5) = 0.6547;
//	D = 0.2; lower = 0.2 − √(0.3032² − 2φ·0.3032·0.2634 + 0.2634²) = −0.0382;
//	upper = 0.2 + √(0.1922² − 2φ·0.1922·0.2634 + 0.2634²) = 0.4001.
func TestPairedSharesByHand(t *testing.T) {
	var p toplines.PairedShares
	for i := range 10 {
		p.Add(i < 7, i < 5)
	}
	if p != (toplines.PairedShares{Both: 5, OnlyA: 2, OnlyB: 0, Neither: 3}) {
		t.Fatalf("table %+v", p)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 5e-5 }
	if ci := analysis.Wilson(7, 10); !near(ci[0], 0.3968) || !near(ci[1], 0.8922) {
		t.Errorf("Wilson(7, 10) = %v", ci)
	}
	ci := p.DiffCI()
	if ci == nil || !near(ci[0], -0.0382) || !near(ci[1], 0.4001) {
		t.Errorf("difference interval %v, want [−0.0382, 0.4001]", ci)
	}
	// Every item agreeing: the difference is 0 and its interval symmetric
	// and not degenerate (7 of 10 both: ±0.1110).
	same := toplines.PairedShares{Both: 7, Neither: 3}
	if ci := same.DiffCI(); ci == nil || !near(ci[0], -0.1110) || !near(ci[1], 0.1110) {
		t.Errorf("agreeing verdicts: %v, want ±0.1110", ci)
	}
	// Swapping the two mirrors the interval.
	if sw := (toplines.PairedShares{Both: 5, OnlyB: 2, Neither: 3}).DiffCI(); !near(sw[0], -ci[1]) || !near(sw[1], -ci[0]) {
		t.Errorf("swapped %v, want the mirror of %v", sw, ci)
	}
	if (toplines.PairedShares{}).DiffCI() != nil {
		t.Error("no items, no interval")
	}
}

// TestItemHitIsTheToplinesRule: the per-item verdicts add up to the
// toplines' shares.
func TestItemHitIsTheToplinesRule(t *testing.T) {
	rs := syntheticRatingsT(t, 4000, 60, 3)
	top := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	all := top.ByType[domain.TypeAll]
	for m, want := range map[string]*float64{toplines.MImplicature: all.ImplicatureRecognition, toplines.MCancellation: all.CancellationRecognition,
		toplines.MBeliefUpdate: all.BeliefUpdate, toplines.MNegation: all.NegationCancellation, toplines.MStrengthen: all.Strengthening, toplines.MUnchanged: all.Unchanged} {
		hits, n := 0, 0
		for i := range top.Items {
			if h, ok := top.Items[i].Hit(m); ok {
				n++
				if h {
					hits++
				}
			}
		}
		if want == nil || n == 0 || math.Abs(float64(hits)/float64(n)-*want) > 1e-12 || n != all.Items-all.LeftOut[m] {
			t.Errorf("%s: %d of %d items, toplines %v on %d", m, hits, n, want, all.Items-all.LeftOut[m])
		}
	}
}
