package toplines

import (
	"math"
	"pragmalab/analysis"
)

// Hit says whether an item meets a True/False measure by its mean z-scores
// — the verdict the toplines count for it (docs/statistics.md#toplines) —
// and ok is false when the item lacks a condition the measure compares.
// measure is one of MImplicature, MCancellation, MBeliefUpdate, MNegation,
// MStrengthen, MUnchanged.
func (m *ItemMeans) Hit(measure string) (hit, ok bool) {
	if !m.Has(Trigger) {
		return false, false
	}
	zt := m.MeanZ[Trigger]
	switch measure {
	case MImplicature:
		return analysis.Above(zt, 0), true
	case MCancellation:
		return analysis.Above(zt, m.MeanZ[Cancel]), m.Has(Cancel)
	case MBeliefUpdate:
		return analysis.Above(zt, 0) && analysis.Above(zt, m.MeanZ[Cancel]), m.Has(Cancel)
	case MNegation:
		return analysis.Above(zt, m.MeanZ[Negation]), m.Has(Negation)
	case MStrengthen:
		return analysis.Above(m.MeanZ[Strengthen], zt), m.Has(Strengthen)
	case MUnchanged:
		return analysis.Above(m.MeanZ[Neutral], 0) == analysis.Above(zt, 0), m.Has(Neutral)
	}
	return false, false
}

// PairedShares are two shares over the same n items — e.g. a model's and
// the humans' implicature recognition — as the counts of a 2 × 2 table:
// Both items hit by A and B, OnlyA, OnlyB, and Neither.
type PairedShares struct {
	Both, OnlyA, OnlyB, Neither int
}

// Add counts one item.
func (p *PairedShares) Add(a, b bool) {
	switch {
	case a && b:
		p.Both++
	case a:
		p.OnlyA++
	case b:
		p.OnlyB++
	default:
		p.Neither++
	}
}

// N is the number of items.
func (p PairedShares) N() int { return p.Both + p.OnlyA + p.OnlyB + p.Neither }

// A and B are the two shares (undefined, ok false, on no items).
func (p PairedShares) A() (float64, bool) { return p.share(p.Both + p.OnlyA) }
func (p PairedShares) B() (float64, bool) { return p.share(p.Both + p.OnlyB) }

func (p PairedShares) share(hits int) (float64, bool) {
	if p.N() == 0 {
		return 0, false
	}
	return float64(hits) / float64(p.N()), true
}

// DiffCI is the 95 % interval of A − B by Newcombe's hybrid score method
// for paired data (Newcombe 1998, Statistics in Medicine 17:2635, method
// 10): the Wilson intervals [l₁, u₁] of A and [l₂, u₂] of B are combined
// with the correlation φ of the two verdicts over the items,
//
//	lower = D − √((A−l₁)² − 2φ(A−l₁)(u₂−B) + (u₂−B)²)
//	upper = D + √((u₁−A)² − 2φ(u₁−A)(B−l₂) + (B−l₂)²)
//
// with D = A − B and φ = 0 when a margin of the table is empty. It stays
// inside [−1, 1] and, unlike the Wald interval, is not degenerate when
// every item agrees. nil on no items.
func (p PairedShares) DiffCI() *analysis.CI {
	n := p.N()
	if n == 0 {
		return nil
	}
	a, _ := p.A()
	b, _ := p.B()
	ca, cb := analysis.Wilson(p.Both+p.OnlyA, n), analysis.Wilson(p.Both+p.OnlyB, n)
	phi := 0.0
	a1, b1 := float64(p.Both+p.OnlyA), float64(p.OnlyB+p.Neither) // A's hits and misses
	a2, b2 := float64(p.Both+p.OnlyB), float64(p.OnlyA+p.Neither) // B's hits and misses
	if den := a1 * b1 * a2 * b2; den > 0 {
		phi = (float64(p.Both)*float64(p.Neither) - float64(p.OnlyA)*float64(p.OnlyB)) / math.Sqrt(den)
	}
	d := a - b
	la, ua, lb, ub := a-ca[0], ca[1]-a, b-cb[0], cb[1]-b
	lo := d - math.Sqrt(max(0, la*la-2*phi*la*ub+ub*ub))
	hi := d + math.Sqrt(max(0, ua*ua-2*phi*ua*lb+lb*lb))
	return &analysis.CI{max(-1, lo), min(1, hi)}
}
