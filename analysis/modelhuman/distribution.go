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
	// Bootstrap draws the skill scores' intervals over units (0
	// replicates: none).
	Bootstrap analysis.Bootstrap
}

// DefaultDistOptions: a 7-point scale, 200 splits, the bootstrap's seed,
// 2,000 replicates for the skill intervals.
func DefaultDistOptions() DistOptions {
	return DistOptions{Points: 7, Splits: MinSplits, Seed: analysis.DefaultSeed, Smoothing: DefaultKLSmoothing, Bootstrap: analysis.DefaultBootstrap()}
}

// DistMeasure is one distance for one unit: the model's distance from the
// humans' histogram, the ceiling (the mean distance between two random
// halves of the humans) and whether the model is within it (≤). Ceiling
// and Within are null for a unit with fewer than 2 humans.
//
// Uniform and Marginal are the chance baselines' distances from the same
// histogram: the uniform distribution over the points, and the humans'
// marginal distribution over the scale (every rating of the comparison
// pooled, ignoring item and condition; docs/statistics.md#chance-baselines-and-skill).
type DistMeasure struct {
	Model    float64  `json:"model"`
	Ceiling  *float64 `json:"ceiling"`
	Within   *bool    `json:"within"`
	Uniform  float64  `json:"uniform"`
	Marginal float64  `json:"marginal"`
	// Floor is the sampling floor: the expected distance from an n-rater
	// histogram of a model that knew the unit's distribution, the skill
	// scores' 1 (null where Ceiling is).
	Floor *float64 `json:"sampling_floor"`
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

// The chance baselines a model is set beside
// (docs/statistics.md#chance-baselines-and-skill).
const (
	BaselineUniform  = "uniform"  // the same probability for every point
	BaselineMarginal = "marginal" // the humans' ratings pooled over every unit
)

// Baselines lists the chance baselines in the order they are reported.
var Baselines = []string{BaselineUniform, BaselineMarginal}

// DistSummary is one measure over the units of one condition (or "all"):
// the mean model distance, the mean ceiling, and the share of units with a
// ceiling where the model is within it, with its Wilson interval; the
// same for each chance baseline, and the model's skill against them.
//
// Skill is the headline: the model's skill against the stronger chance
// baseline (SkillBaseline, the one with the smaller mean distance), 0 at
// chance and 1 at the sampling floor (the distance a model that knew each
// unit's distribution would have from its raters' histogram), with its
// bootstrap interval over units. A within-share does not separate chance from skill: a uniform
// distribution is within a small crowd's ceiling on most units.
type DistSummary struct {
	Measure     string       `json:"measure"`
	Condition   string       `json:"condition"`
	Units       int          `json:"units"`
	MeanModel   *float64     `json:"mean_model"`
	MeanCeiling *float64     `json:"mean_ceiling"`
	Within      int          `json:"within"`
	WithinShare *float64     `json:"within_share"`
	WithinCI    *analysis.CI `json:"within_share_ci95"`
	// MeanFloor is the mean sampling floor over the units with a
	// ceiling: the skill scores' 1.
	MeanFloor *float64 `json:"mean_sampling_floor"`
	// Skill against SkillBaseline; null when no baseline leaves room
	// above it (its mean distance not above the mean sampling floor).
	Skill         *float64          `json:"skill"`
	SkillCI       *analysis.CI      `json:"skill_ci95"`
	SkillBaseline string            `json:"skill_baseline"`
	Baselines     []BaselineSummary `json:"baselines"`
}

// BaselineSummary is one chance baseline over the units of a summary: its
// mean distance, its share within the human ceiling, and the model's skill
// against it, (D_baseline − D_model)/(D_baseline − D_floor) with D the
// mean distance over the units with a ceiling and D_floor the mean
// sampling floor.
type BaselineSummary struct {
	Baseline     string       `json:"baseline"`
	MeanDistance *float64     `json:"mean_distance"`
	Within       int          `json:"within"`
	WithinShare  *float64     `json:"within_share"`
	WithinCI     *analysis.CI `json:"within_share_ci95"`
	Skill        *float64     `json:"skill"`
	SkillCI      *analysis.CI `json:"skill_ci95"`
}

// Baseline returns the summary of the named baseline, or nil.
func (s *DistSummary) Baseline(name string) *BaselineSummary {
	for i := range s.Baselines {
		if s.Baselines[i].Baseline == name {
			return &s.Baselines[i]
		}
	}
	return nil
}

// Distributions is the comparison of every unit and the summaries.
//
// Marginal is the humans' marginal distribution over the points, the
// second chance baseline; Bootstrap how the skill intervals were drawn.
type Distributions struct {
	Points    int                     `json:"points"`
	Splits    int                     `json:"splits"`
	Smoothing float64                 `json:"kl_smoothing"`
	Marginal  []float64               `json:"marginal_distribution"`
	Bootstrap *analysis.BootstrapInfo `json:"skill_bootstrap"`
	Items     []DistItem              `json:"items"`
	Summary   []DistSummary           `json:"summary"`
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
	// The chance baselines: uniform, and every rating pooled.
	uniform := make([]float64, opt.Points)
	for k := range uniform {
		uniform[k] = 1 / float64(opt.Points)
	}
	var all []int
	for _, u := range units {
		all = append(all, u.Human...)
	}
	res.Marginal = Histogram(all, opt.Points)
	floorRng := analysis.NewRand(opt.Seed ^ 0x5ca1ab1e)
	for i := range res.Items {
		it := &res.Items[i]
		var floor map[string]float64
		if it.Humans >= 2 {
			floor = SamplingFloor(it.HumanDist, it.Humans, res.Marginal, opt, floorRng)
		}
		for _, m := range Measures {
			d := it.Measures[m]
			d.Uniform = Distance(m, it.HumanDist, uniform, opt.Smoothing)
			d.Marginal = Distance(m, it.HumanDist, res.Marginal, opt.Smoothing)
			if f, ok := floor[m]; ok {
				d.Floor = &f
			}
			it.Measures[m] = d
		}
	}
	if opt.Bootstrap.Replicates > 0 {
		res.Bootstrap = &analysis.BootstrapInfo{Replicates: opt.Bootstrap.Replicates, Seed: opt.Bootstrap.Seed, Scheme: "units drawn with replacement within each condition; percentile interval"}
	}
	res.Summary = distSummaries(res.Items, opt.Bootstrap)
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

// FloorPrior is the weight, in ratings, of the humans' marginal
// distribution added to a unit's histogram for the sampling floor's
// distribution: one rating's worth, so a point no rater of the unit chose
// keeps a little probability.
const FloorPrior = 1.0

// SamplingFloor is, per measure, the mean distance between a unit's
// distribution p̃ and the histograms of opt.Splits samples of n ratings
// drawn from it: what a model that knew the unit's distribution would be
// expected to score against n raters, from their sampling noise alone.
// p̃ is the unit's histogram h shrunk toward the humans' marginal by
// FloorPrior ratings, (n·h + FloorPrior·marginal)/(n + FloorPrior).
func SamplingFloor(h []float64, n int, marginal []float64, opt DistOptions, rng *rand.Rand) map[string]float64 {
	p := make([]float64, len(h))
	cum := make([]float64, len(h))
	var c float64
	for k := range h {
		p[k] = (float64(n)*h[k] + FloorPrior*marginal[k]) / (float64(n) + FloorPrior)
		c += p[k]
		cum[k] = c
	}
	sums := map[string]float64{}
	draw := make([]float64, len(h))
	for range opt.Splits {
		clear(draw)
		for range n {
			u := rng.Float64() * c
			k := 0
			for k < len(cum)-1 && u >= cum[k] {
				k++
			}
			draw[k] += 1 / float64(n)
		}
		for _, m := range Measures {
			sums[m] += Distance(m, draw, p, opt.Smoothing)
		}
	}
	for m := range sums {
		sums[m] /= float64(opt.Splits)
	}
	return sums
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
// units first name them) and over all units, each beside the chance
// baselines, with the skill scores' bootstrap intervals.
func distSummaries(items []DistItem, boot analysis.Bootstrap) []DistSummary {
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
	// intervals[g][m][b] is the skill interval of measure m against
	// baseline b over group g.
	intervals := skillIntervals(items, conds, groups, boot)

	var out []DistSummary
	for _, m := range Measures {
		for gi, g := range groups {
			var sm, sc, sf float64
			n, nc, within := 0, 0, 0
			var base [2]baselineSums
			for _, it := range items {
				if g != "all" && it.Condition != g {
					continue
				}
				d := it.Measures[m]
				n++
				sm += d.Model
				base[0].all += d.Uniform
				base[1].all += d.Marginal
				if d.Ceiling != nil {
					nc++
					sc += *d.Ceiling
					sf += *d.Floor
					if *d.Within {
						within++
					}
					base[0].add(d.Uniform, *d.Ceiling)
					base[1].add(d.Marginal, *d.Ceiling)
				}
			}
			s := DistSummary{Measure: m, Condition: g, Units: n, Within: within, MeanModel: analysis.Num(sm / float64(n))}
			if nc > 0 {
				s.MeanCeiling = analysis.Num(sc / float64(nc))
				s.WithinShare = analysis.Num(float64(within) / float64(nc))
				s.WithinCI = analysis.Wilson(within, nc)
				s.MeanFloor = analysis.Num(sf / float64(nc))
			}
			// The model's mean over the units with a ceiling, as the
			// ceiling's and the baselines' in the skill.
			var smc float64
			for _, it := range items {
				if (g == "all" || it.Condition == g) && it.Measures[m].Ceiling != nil {
					smc += it.Measures[m].Model
				}
			}
			best := -1
			for b, name := range Baselines {
				bs := BaselineSummary{Baseline: name, MeanDistance: analysis.Num(base[b].all / float64(n)), Within: base[b].within}
				if nc > 0 {
					bs.WithinShare = analysis.Num(float64(base[b].within) / float64(nc))
					bs.WithinCI = analysis.Wilson(base[b].within, nc)
					bs.Skill = analysis.Num(Skill(smc/float64(nc), base[b].cover/float64(nc), sf/float64(nc)))
					if iv := intervals[gi][m]; iv != nil {
						bs.SkillCI = analysis.WithPoint(analysis.PercentileCI(bs.Skill, iv[b]), bs.Skill)
					}
					// The stronger baseline: the smaller mean distance
					// (over the units with a ceiling); the marginal on a tie.
					if best < 0 || base[b].cover <= base[best].cover {
						best = b
					}
				}
				s.Baselines = append(s.Baselines, bs)
			}
			if best >= 0 {
				s.SkillBaseline = Baselines[best]
				s.Skill, s.SkillCI = s.Baselines[best].Skill, s.Baselines[best].SkillCI
			}
			out = append(out, s)
		}
	}
	return out
}

// baselineSums adds one baseline's distances over a group's units: all of
// them, those with a ceiling, and how many of those are within it.
type baselineSums struct {
	all, cover float64
	within     int
}

func (b *baselineSums) add(d, ceiling float64) {
	b.cover += d
	if d <= ceiling+1e-12 {
		b.within++
	}
}

// Skill is a model's skill against a chance baseline from the mean
// distances over the same units: (baseline − model)/(baseline − floor),
// 0 for a model as far from the humans as the baseline, 1 for one as close
// as a model that knew each unit's distribution would be expected to be
// (the sampling floor), negative below chance. NaN when the baseline is
// not farther than the floor (no room between chance and knowledge).
func Skill(model, baseline, floor float64) float64 {
	room := baseline - floor
	if !(room > 1e-12) {
		return math.NaN()
	}
	return (baseline - model) / room
}

// skillIntervals draws the skill scores' bootstrap replicates: units drawn
// with replacement within each condition (the design's units per
// condition kept), the three mean distances recomputed on the same draw,
// so the interval carries the dependence between the model's, the
// baseline's and the floor's means. The floors are not redrawn: they are
// each unit's own 200-draw mean. Nil when the
// bootstrap is off.
func skillIntervals(items []DistItem, conds, groups []string, boot analysis.Bootstrap) []map[string]*[2][]float64 {
	if boot.Replicates <= 0 {
		return make([]map[string]*[2][]float64, len(groups))
	}
	rng := analysis.NewRand(boot.Seed)
	w := make([]int32, len(items))
	out := make([]map[string]*[2][]float64, len(groups))
	for gi, g := range groups {
		var strata [][]int
		for _, c := range conds {
			if g != "all" && c != g {
				continue
			}
			var s []int
			for i, it := range items {
				if it.Condition == c && it.Measures[MeasureJSD].Ceiling != nil {
					s = append(s, i)
				}
			}
			if len(s) > 0 {
				strata = append(strata, s)
			}
		}
		if len(strata) == 0 {
			continue
		}
		out[gi] = map[string]*[2][]float64{}
		for _, m := range Measures {
			out[gi][m] = &[2][]float64{make([]float64, boot.Replicates), make([]float64, boot.Replicates)}
		}
		for b := range boot.Replicates {
			analysis.DrawStrata(rng, strata, w)
			for _, m := range Measures {
				var sm, sc, su, sg float64
				for _, s := range strata {
					for _, i := range s {
						if w[i] == 0 {
							continue
						}
						d, k := items[i].Measures[m], float64(w[i])
						sm += k * d.Model
						sc += k * *d.Floor
						su += k * d.Uniform
						sg += k * d.Marginal
					}
				}
				// The total weight cancels in the ratio.
				out[gi][m][0][b] = Skill(sm, su, sc)
				out[gi][m][1][b] = Skill(sm, sg, sc)
			}
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
