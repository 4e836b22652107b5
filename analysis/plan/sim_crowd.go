package plan

import (
	"math"
	"math/rand/v2"
	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strconv"
)

// The crowd study's generative model of the coverage study
// (docs/statistics.md#the-generative-models). On a latent scale, item i of
// type t has a likelihood per condition:
//
//	trigger     β_i                 β_i ~ N(crowdTriggerMean[t], 0.8²)
//	cancel      β_i − δ_i           δ_i ~ N(1.2, 0.7²)
//	negation    β_i − ν_i           ν_i ~ N(1.6, 0.6²)
//	strengthen  β_i + σ_i           σ_i ~ N(0.25, 0.35²)
//	neutral     β_i + η_i           η_i ~ N(0, 0.3²)
//
// Participant p has an offset a_p ~ N(3.6, 0.6²) and a spread
// b_p = exp(N(log 1.1, 0.25²)) — how they use the scale — and rates
// item i in condition c as round(a_p + b_p·(ℓ_ic + ε)), ε ~ N(0, 1) the
// rating noise, clamped to 1…7.
var crowdTriggerMean = [4]float64{1.2, 0.9, 0.9, 0.6}

const (
	crowdItemSD   = 0.8
	CrowdOffsetMu = 3.6
	CrowdOffsetSD = 0.6
	CrowdSpreadMu = 0.09531017980432493 // log 1.1
	CrowdSpreadSD = 0.25
)

// crowdTypeShare is the types' share of the items: 46, 31, 144 and 50 of
// ImplicatureX's 271.
var crowdTypeShare = [4]int{46, 31, 144, 50}

// crowdItem is one item's latent likelihood in each condition.
type crowdItem struct {
	typ    int8
	Latent [toplines.NumConditions]float64
}

func DrawCrowdItem(rng *rand.Rand, typ int, d CrowdDesign) crowdItem {
	b := crowdTriggerMean[typ] + crowdItemSD*rng.NormFloat64()
	mu, sd := d.cancelEffect()
	return crowdItem{typ: int8(typ), Latent: [toplines.NumConditions]float64{
		toplines.Trigger:    b,
		toplines.Cancel:     b - (mu + sd*rng.NormFloat64()),
		toplines.Negation:   b - (1.6 + 0.6*rng.NormFloat64()),
		toplines.Strengthen: b + (0.25 + 0.35*rng.NormFloat64()),
		toplines.Neutral:    b + 0.3*rng.NormFloat64(),
	}}
}

// crowdTypes returns n item types in the proportions of crowdTypeShare
// (largest remainders), in type order.
func crowdTypes(n int) []int {
	total := 0
	for _, s := range crowdTypeShare {
		total += s
	}
	out := make([]int, 0, n)
	for t, s := range crowdTypeShare {
		k := (n*s + total/2) / total
		if t == len(crowdTypeShare)-1 {
			k = n - len(out)
		}
		for range k {
			out = append(out, t)
		}
	}
	return out
}

func Rate(offset, spread, l, noise float64) uint8 {
	return uint8(max(1, min(7, math.Round(offset+spread*(l+noise)))))
}

// CrowdDesign is a crossed participants × items design: every item in all
// five conditions, each (item, condition) in one of Batches batches (an
// item never twice in a batch), every participant of a batch rating all
// of the batch's (item, condition) pairs.
type CrowdDesign struct {
	Items, Batches, PerBatch int
	// CancelMean and CancelSD are the mean and SD of δ_i, the effect of
	// the cancellation; 0 and 0 stand for the default 1.2 and 0.7 (a true
	// r near 0.75). A smaller CancelSD makes r higher; a CancelMean near 0
	// keeps the cancellation shares away from 1.
	CancelMean, CancelSD float64
}

func (d CrowdDesign) cancelEffect() (mu, sd float64) {
	if d.CancelMean == 0 && d.CancelSD == 0 {
		return 1.2, 0.7
	}
	return d.CancelMean, d.CancelSD
}

// Participants is the design's number of participants.
func (d CrowdDesign) Participants() int { return d.Batches * d.PerBatch }

// Ratings is the design's number of ratings.
func (d CrowdDesign) Ratings() int { return d.Items * int(toplines.NumConditions) * d.PerBatch }

// SimulateCrowd draws one data set of the design: fresh items and fresh
// participants from the model.
func SimulateCrowd(rng *rand.Rand, d CrowdDesign) *toplines.Ratings {
	types := crowdTypes(d.Items)
	rs := &toplines.Ratings{}
	for i, t := range types {
		rs.Items = append(rs.Items, "i"+strconv.Itoa(i))
		rs.ItemType = append(rs.ItemType, int8(t))
	}
	items := make([]crowdItem, d.Items)
	for i, t := range types {
		items[i] = DrawCrowdItem(rng, t, d)
	}
	// (item, condition) → batch: the items in random order, condition c
	// shifted by c·off batches so one item's conditions fall apart.
	batches := make([][]int32, d.Batches) // slots item*numConditions+cond
	off := max(1, d.Batches/int(toplines.NumConditions))
	perm := rng.Perm(d.Items)
	for pos, i := range perm {
		for c := range int(toplines.NumConditions) {
			b := (pos + c*off) % d.Batches
			batches[b] = append(batches[b], int32(i*int(toplines.NumConditions)+c))
		}
	}
	line := int32(0)
	for b, slots := range batches {
		for k := range d.PerBatch {
			p := int32(len(rs.Participants))
			rs.Participants = append(rs.Participants, "p"+strconv.Itoa(b)+"_"+strconv.Itoa(k))
			a := CrowdOffsetMu + CrowdOffsetSD*rng.NormFloat64()
			s := math.Exp(CrowdSpreadMu + CrowdSpreadSD*rng.NormFloat64())
			for _, slot := range slots {
				i, c := slot/int32(toplines.NumConditions), toplines.Condition(slot%int32(toplines.NumConditions))
				line++
				rs.Add(toplines.Rating{Participant: p, Item: i, Line: line, Cond: c, Value: Rate(a, s, items[i].Latent[c], rng.NormFloat64())})
			}
		}
	}
	return rs
}

// crowdTruth is the toplines of the item population with infinitely many
// participants: each item's population mean z per condition (the
// expectation over participants and noise of (rating − m_p)/s_p, m_p and
// s_p a participant's mean and SD over the whole item population), and the
// shares and r of typeToplines over truthItems such items.
func crowdTruth(seed uint64, d CrowdDesign, truthItems int) map[string]*toplines.TypeToplines {
	rng := rand.New(rand.NewPCG(seed, 0x7f4a7c159e3779b9))
	types := crowdTypes(truthItems)
	items := make([]crowdItem, truthItems)
	for i, t := range types {
		items[i] = DrawCrowdItem(rng, t, d)
	}
	// Participants by a product midpoint rule over the quantiles of the
	// offset and log spread; each node's expected rating (and square) on a
	// grid of the latent value, interpolated.
	const K, lo, hi, steps = 16, -9.0, 9.0, 9000
	type node struct{ a, s, m, sd float64 }
	var nodes []node
	for i := range K {
		for j := range K {
			nodes = append(nodes, node{
				a: CrowdOffsetMu + CrowdOffsetSD*analysis.NormQuantile((float64(i)+0.5)/K),
				s: math.Exp(CrowdSpreadMu + CrowdSpreadSD*analysis.NormQuantile((float64(j)+0.5)/K)),
			})
		}
	}
	h := (hi - lo) / steps
	er := make([][]float64, len(nodes))
	er2 := make([][]float64, len(nodes))
	for n, nd := range nodes {
		er[n], er2[n] = make([]float64, steps+1), make([]float64, steps+1)
		for g := range steps + 1 {
			l := lo + float64(g)*h
			// P(rating ≥ k+1) = P(a + s(l+ε) ≥ k + 0.5) = Φ(l − (k + 0.5 − a)/s).
			e, e2 := 1.0, 1.0
			for k := 1; k <= 6; k++ {
				pk := analysis.NormCDF(l - (float64(k)+0.5-nd.a)/nd.s)
				e += pk
				e2 += float64(2*k+1) * pk // (k+1)² − k²
			}
			er[n][g], er2[n][g] = e, e2
		}
	}
	interp := func(tab []float64, l float64) float64 {
		x := (analysis.Clamp(l, lo, hi) - lo) / h
		g := min(int(x), steps-1)
		f := x - float64(g)
		return tab[g] + f*(tab[g+1]-tab[g])
	}
	for n := range nodes {
		var s1, s2 float64
		for i := range items {
			for c := range toplines.NumConditions {
				s1 += interp(er[n], items[i].Latent[c])
				s2 += interp(er2[n], items[i].Latent[c])
			}
		}
		cnt := float64(len(items) * int(toplines.NumConditions))
		nodes[n].m = s1 / cnt
		nodes[n].sd = math.Sqrt(s2/cnt - nodes[n].m*nodes[n].m)
	}
	means := make([]toplines.ItemMeans, len(items))
	for i := range items {
		m := &means[i]
		m.Type = domain.TableTypes[items[i].typ]
		for c := range toplines.NumConditions {
			var z float64
			for n, nd := range nodes {
				z += (interp(er[n], items[i].Latent[c]) - nd.m) / nd.sd
			}
			m.MeanZ[c], m.N[c] = z/float64(len(nodes)), 1
		}
	}
	out := map[string]*toplines.TypeToplines{}
	for _, typ := range append(append([]string{}, domain.TableTypes...), domain.TypeAll) {
		out[typ] = toplines.TypeToplinesOf(means, typ)
	}
	return out
}
