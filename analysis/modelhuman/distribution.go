package modelhuman

import (
	"fmt"
	"math"
	"math/rand/v2"
	"pragmalab/analysis"
	"slices"
)

// Model and human rating distributions per item × condition, measured
// against the humans' own split-half ceiling (docs/statistics.md#distributions-against-the-human-ceiling).

// The distances between two distributions over a scale's points.
const (
	MeasureJSD         = "jsd"         // Jensen–Shannon divergence in bits (not its square root)
	MeasureKL          = "kl"          // KL(human ‖ model) in bits, the model smoothed
	MeasureWasserstein = "wasserstein" // Wasserstein-1 over the points, divided by (points − 1)
	MeasureTV          = "tv"          // total variation, ½ Σ |p − q|
)

// Measures lists the distances in the order they are reported.
var Measures = []string{MeasureJSD, MeasureKL, MeasureWasserstein, MeasureTV}

// DefaultKLSmoothing is the additive smoothing of the second distribution
// of KL: q′ₖ = (qₖ + s)/(1 + K·s), so a point the model (or a half of the
// crowd) never chose costs a finite amount.
const DefaultKLSmoothing = 0.01

// MinSplits is the fewest random half-splits a ceiling is drawn from.
const MinSplits = 200

// JSD is the Jensen–Shannon divergence of p and q in bits: ½KL(p‖m) +
// ½KL(q‖m) with m = (p + q)/2; 0 for equal distributions, 1 for disjoint.
func JSD(p, q []float64) float64 {
	var d float64
	for k := range p {
		m := (p[k] + q[k]) / 2
		if p[k] > 0 {
			d += p[k] * math.Log2(p[k]/m)
		}
		if q[k] > 0 {
			d += q[k] * math.Log2(q[k]/m)
		}
	}
	return max(0, d/2)
}

// KL is KL(p ‖ q′) in bits with q′ = q smoothed by s (see DefaultKLSmoothing).
func KL(p, q []float64, s float64) float64 {
	k := float64(len(q))
	var d float64
	for i := range p {
		if p[i] > 0 {
			d += p[i] * math.Log2(p[i]*(1+k*s)/(q[i]+s))
		}
	}
	return max(0, d)
}

// Wasserstein is the earth mover's distance between p and q over the
// points 1…K (neighbours one apart), divided by K − 1 so it runs from 0 to 1:
// Σₖ |Fₚ(k) − F_q(k)| / (K − 1) with F the cumulative distributions.
func Wasserstein(p, q []float64) float64 {
	if len(p) < 2 {
		return 0
	}
	var fp, fq, d float64
	for k := range len(p) - 1 {
		fp += p[k]
		fq += q[k]
		d += math.Abs(fp - fq)
	}
	return d / float64(len(p)-1)
}

// TotalVariation is ½ Σ |pₖ − qₖ|.
func TotalVariation(p, q []float64) float64 {
	var d float64
	for k := range p {
		d += math.Abs(p[k] - q[k])
	}
	return d / 2
}

// Distance is the named measure between p and q.
func Distance(measure string, p, q []float64, smoothing float64) float64 {
	switch measure {
	case MeasureJSD:
		return JSD(p, q)
	case MeasureKL:
		return KL(p, q, smoothing)
	case MeasureWasserstein:
		return Wasserstein(p, q)
	case MeasureTV:
		return TotalVariation(p, q)
	}
	panic("analysis: unknown distance " + measure)
}

// DistUnit is one item × condition: each human's rating (1…Points) and the
// model's probability of each point (from the point tokens' probabilities
// or from sampled answers).
type DistUnit struct {
	Item      string
	Condition string
	Human     []int
	Model     []float64
}

// DistOptions are the comparison's parameters.
type DistOptions struct {
	Points    int     // the scale's points (7 for the crowd)
	Splits    int     // random half-splits per unit for the ceiling (≥ MinSplits)
	Seed      uint64  // seed of the splits
	Smoothing float64 // KL's additive smoothing
}

// DefaultDistOptions: a 7-point scale, 200 splits, the bootstrap's seed.
func DefaultDistOptions() DistOptions {
	return DistOptions{Points: 7, Splits: MinSplits, Seed: analysis.DefaultSeed, Smoothing: DefaultKLSmoothing}
}

// DistMeasure is one distance for one unit: the model's distance from the
// humans' histogram, the ceiling (the mean distance between two random
// halves of the humans) and whether the model is within it (≤). Ceiling
// and Within are null for a unit with fewer than 2 humans.
type DistMeasure struct {
	Model   float64  `json:"model"`
	Ceiling *float64 `json:"ceiling"`
	Within  *bool    `json:"within"`
}

// DistItem is one unit's comparison.
type DistItem struct {
	Item      string                 `json:"item_id"`
	Condition string                 `json:"condition"`
	Humans    int                    `json:"humans"`
	HumanDist []float64              `json:"human_distribution"`
	ModelDist []float64              `json:"model_distribution"`
	Measures  map[string]DistMeasure `json:"measures"`
	// Exhaustive says the ceiling averages every possible split (there
	// were no more than Splits of them) rather than random ones.
	Exhaustive bool `json:"exhaustive_splits"`
}

// DistSummary is one measure over the units of one condition (or "all"):
// the mean model distance, the mean ceiling, and the share of units with a
// ceiling where the model is within it, with its Wilson interval.
type DistSummary struct {
	Measure     string       `json:"measure"`
	Condition   string       `json:"condition"`
	Units       int          `json:"units"`
	MeanModel   *float64     `json:"mean_model"`
	MeanCeiling *float64     `json:"mean_ceiling"`
	Within      int          `json:"within"`
	WithinShare *float64     `json:"within_share"`
	WithinCI    *analysis.CI `json:"within_share_ci95"`
}

// Distributions is the comparison of every unit and the summaries.
type Distributions struct {
	Points    int           `json:"points"`
	Splits    int           `json:"splits"`
	Smoothing float64       `json:"kl_smoothing"`
	Items     []DistItem    `json:"items"`
	Summary   []DistSummary `json:"summary"`
}

// CompareDistributions compares the model with the humans on every unit.
// A rating off the scale, a model distribution of the wrong length or not
// summing to 1, or a unit with no human is an error naming the unit.
func CompareDistributions(units []DistUnit, opt DistOptions) (*Distributions, error) {
	if opt.Points < 2 {
		return nil, fmt.Errorf("distributions: a scale needs at least 2 points")
	}
	if opt.Splits < MinSplits {
		return nil, fmt.Errorf("distributions: at least %d half-splits per unit, not %d", MinSplits, opt.Splits)
	}
	if opt.Smoothing <= 0 || opt.Smoothing > 1 {
		return nil, fmt.Errorf("distributions: the KL smoothing must be above 0 and at most 1")
	}
	if len(units) == 0 {
		return nil, fmt.Errorf("distributions: no item to compare")
	}
	rng := analysis.NewRand(opt.Seed)
	res := &Distributions{Points: opt.Points, Splits: opt.Splits, Smoothing: opt.Smoothing}
	for _, u := range units {
		it, err := compareUnit(u, opt, rng)
		if err != nil {
			return nil, err
		}
		res.Items = append(res.Items, it)
	}
	res.Summary = distSummaries(res.Items)
	return res, nil
}

func compareUnit(u DistUnit, opt DistOptions, rng *rand.Rand) (DistItem, error) {
	name := fmt.Sprintf("item %q, condition %q", u.Item, u.Condition)
	if len(u.Human) == 0 {
		return DistItem{}, fmt.Errorf("distributions: %s has no human rating", name)
	}
	if len(u.Model) != opt.Points {
		return DistItem{}, fmt.Errorf("distributions: %s: the model's distribution has %d points, the scale %d", name, len(u.Model), opt.Points)
	}
	var total float64
	for _, q := range u.Model {
		if q < 0 || math.IsNaN(q) {
			return DistItem{}, fmt.Errorf("distributions: %s: the model gives a point probability %v", name, q)
		}
		total += q
	}
	if math.Abs(total-1) > 1e-6 {
		return DistItem{}, fmt.Errorf("distributions: %s: the model's probabilities sum to %v, not 1", name, total)
	}
	for _, r := range u.Human {
		if r < 1 || r > opt.Points {
			return DistItem{}, fmt.Errorf("distributions: %s: rating %d is off the 1–%d scale", name, r, opt.Points)
		}
	}
	h := Histogram(u.Human, opt.Points)
	it := DistItem{Item: u.Item, Condition: u.Condition, Humans: len(u.Human), HumanDist: h,
		ModelDist: slices.Clone(u.Model), Measures: map[string]DistMeasure{}}
	ceil, exhaustive := SplitHalfCeiling(u.Human, opt, rng)
	it.Exhaustive = exhaustive
	for _, m := range Measures {
		d := DistMeasure{Model: Distance(m, h, u.Model, opt.Smoothing)}
		if c, ok := ceil[m]; ok {
			d.Ceiling = &c
			within := d.Model <= c+1e-12
			d.Within = &within
		}
		it.Measures[m] = d
	}
	return it, nil
}

func Histogram(ratings []int, points int) []float64 {
	h := make([]float64, points)
	for _, r := range ratings {
		h[r-1]++
	}
	for k := range h {
		h[k] /= float64(len(ratings))
	}
	return h
}

// SplitHalfCeiling is the mean distance, per measure, between the
// histograms of two halves of the humans (⌊n/2⌋ and ⌈n/2⌉). When there are
// at most opt.Splits ways to choose the first half, every one is averaged
// (exhaustive, exact); otherwise opt.Splits random ones. Nil with fewer
// than 2 humans.
func SplitHalfCeiling(ratings []int, opt DistOptions, rng *rand.Rand) (map[string]float64, bool) {
	n := len(ratings)
	if n < 2 {
		return nil, false
	}
	half := n / 2
	sums := map[string]float64{}
	count := 0
	a, b := make([]int, 0, n), make([]int, 0, n)
	add := func(inA []bool) {
		a, b = a[:0], b[:0]
		for i, r := range ratings {
			if inA[i] {
				a = append(a, r)
			} else {
				b = append(b, r)
			}
		}
		ha, hb := Histogram(a, opt.Points), Histogram(b, opt.Points)
		for _, m := range Measures {
			sums[m] += Distance(m, ha, hb, opt.Smoothing)
		}
		count++
	}
	inA := make([]bool, n)
	exhaustive := binomialAtMost(n, half, opt.Splits)
	if exhaustive {
		eachSubset(n, half, func(idx []int) {
			clear(inA)
			for _, i := range idx {
				inA[i] = true
			}
			add(inA)
		})
	} else {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		for range opt.Splits {
			rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			clear(inA)
			for _, i := range perm[:half] {
				inA[i] = true
			}
			add(inA)
		}
	}
	out := make(map[string]float64, len(sums))
	for m, s := range sums {
		out[m] = s / float64(count)
	}
	return out, exhaustive
}

// binomialAtMost says whether C(n, k) ≤ limit, without overflow.
func binomialAtMost(n, k, limit int) bool {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
		if c > float64(limit)+0.5 {
			return false
		}
	}
	return true
}

// eachSubset calls f with every k-subset of 0…n−1 in lexicographic order.
func eachSubset(n, k int, f func(idx []int)) {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	for {
		f(idx)
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		idx[i]++
		for j := i + 1; j < k; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// distSummaries summarises each measure per condition (in the order the
// units first name them) and over all units.
func distSummaries(items []DistItem) []DistSummary {
	var conds []string
	for _, it := range items {
		if !slices.Contains(conds, it.Condition) {
			conds = append(conds, it.Condition)
		}
	}
	groups := conds
	if len(conds) > 1 {
		groups = append(slices.Clone(conds), "all")
	}
	var out []DistSummary
	for _, m := range Measures {
		for _, g := range groups {
			var sm, sc float64
			n, nc, within := 0, 0, 0
			for _, it := range items {
				if g != "all" && it.Condition != g {
					continue
				}
				d := it.Measures[m]
				n++
				sm += d.Model
				if d.Ceiling != nil {
					nc++
					sc += *d.Ceiling
					if *d.Within {
						within++
					}
				}
			}
			s := DistSummary{Measure: m, Condition: g, Units: n, Within: within, MeanModel: analysis.Num(sm / float64(n))}
			if nc > 0 {
				s.MeanCeiling = analysis.Num(sc / float64(nc))
				s.WithinShare = analysis.Num(float64(within) / float64(nc))
				s.WithinCI = analysis.Wilson(within, nc)
			}
			out = append(out, s)
		}
	}
	return out
}

// SummaryOf returns the summary of measure over condition ("all" pools them
// when there are several), or nil.
func (d *Distributions) SummaryOf(measure, condition string) *DistSummary {
	for i := range d.Summary {
		if d.Summary[i].Measure == measure && d.Summary[i].Condition == condition {
			return &d.Summary[i]
		}
	}
	return nil
}

// MostDifferent returns up to n units, the largest JSD first (ties by item
// and condition), for the panel of histograms.
func (d *Distributions) MostDifferent(n int) []DistItem {
	items := slices.Clone(d.Items)
	slices.SortStableFunc(items, func(a, b DistItem) int {
		da, db := a.Measures[MeasureJSD].Model, b.Measures[MeasureJSD].Model
		switch {
		case da > db:
			return -1
		case da < db:
			return 1
		}
		return 0
	})
	return items[:min(n, len(items))]
}
