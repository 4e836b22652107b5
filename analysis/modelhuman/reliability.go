package modelhuman

import (
	"fmt"
	"math"
	"pragmalab/analysis"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// The crowd's own reliability, and model–human correlations and expert
// replacement measured against it (docs/statistics.md#crowd-reliability-and-the-correlation-ceiling).

// CrowdRating is one crowd rating of an item in a condition (1…points).
type CrowdRating struct {
	Participant string
	Item        string
	Condition   string
	Rating      int
}

// ReliabilityOptions are the crowd reliability's parameters.
type ReliabilityOptions struct {
	Points    int                // the scale's points (7)
	Splits    int                // random half-splits of the split-half reliability
	Bootstrap analysis.Bootstrap // replicates over units of α's intervals (0: none)
}

// DefaultReliabilityOptions: 7 points, 1,000 splits, the bootstrap's defaults.
func DefaultReliabilityOptions() ReliabilityOptions {
	return ReliabilityOptions{Points: 7, Splits: 1000, Bootstrap: analysis.DefaultBootstrap()}
}

// CrowdAlpha is Krippendorff's α over the ratings of one condition (or
// "all": every item × condition a unit), with the interval and the
// ordinal metric, and their 95 % percentile bootstrap intervals over units.
type CrowdAlpha struct {
	Condition  string       `json:"condition"`
	Units      int          `json:"units"`
	Ratings    int          `json:"ratings"`
	Interval   *float64     `json:"alpha_interval"`
	IntervalCI *analysis.CI `json:"alpha_interval_ci95"`
	Ordinal    *float64     `json:"alpha_ordinal"`
	OrdinalCI  *analysis.CI `json:"alpha_ordinal_ci95"`
}

// SplitHalf is the split-half reliability of the item means: the
// Spearman–Brown corrected correlation between the means of two random
// halves of each unit's raters, averaged over splits; CI is the 2.5 and
// 97.5 percentiles over the splits.
type SplitHalf struct {
	Condition   string       `json:"condition"`
	Units       int          `json:"units"`
	Splits      int          `json:"splits"`
	R           *float64     `json:"half_correlation"`
	Reliability *float64     `json:"reliability"`
	CI          *analysis.CI `json:"reliability_ci95"`
	// Note says why Reliability is missing though the halves were
	// correlated: they do not agree (docs/statistics.md#split-half-reliability).
	Note string `json:"note,omitempty"`
}

// CrowdReliability is α and the split-half reliability per condition and
// pooled.
type CrowdReliability struct {
	Alpha     []CrowdAlpha `json:"alpha"`
	SplitHalf []SplitHalf  `json:"split_half"`
	// ZeroVariance lists participants left out of α and the split-half
	// reliability for rating everything the same (no z-scores), as the
	// toplines leave them out.
	ZeroVariance []string `json:"zero_variance"`
}

// ComputeCrowdReliability computes α (on the ratings) and the split-half
// reliability (on each participant's z-scores, as the toplines' item means
// use) per condition, in the order the rows first name them, then pooled.
func ComputeCrowdReliability(rows []CrowdRating, opt ReliabilityOptions) (*CrowdReliability, error) {
	if opt.Points < 2 || opt.Splits < 1 {
		return nil, fmt.Errorf("reliability: at least 2 points and 1 split")
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("reliability: no rating")
	}
	conds, err := crowdConditions(rows, opt.Points)
	if err != nil {
		return nil, err
	}
	groups := conds
	if len(conds) > 1 {
		groups = append(slices.Clone(conds), "all")
	}
	z, zero := participantZ(rows)
	res := &CrowdReliability{ZeroVariance: zero}
	// One rule for the crowd's statistics: a participant who rated every
	// item the same has no z-scores, and is left out of α as of the
	// split-half reliability and the toplines
	// (docs/statistics.md#crowd-krippendorffs-alpha).
	if len(zero) > 0 {
		kept := make([]CrowdRating, 0, len(rows))
		keptZ := make([]float64, 0, len(rows))
		for i, r := range rows {
			if !math.IsNaN(z[i]) {
				kept, keptZ = append(kept, r), append(keptZ, z[i])
			}
		}
		if len(kept) == 0 {
			return nil, fmt.Errorf("reliability: every participant rated every item the same (no z-scores): %s", strings.Join(zero, ", "))
		}
		rows, z = kept, keptZ
		if conds, err = crowdConditions(rows, opt.Points); err != nil {
			return nil, err
		}
		groups = conds
		if len(conds) > 1 {
			groups = append(slices.Clone(conds), "all")
		}
	}
	for gi, g := range groups {
		in := func(r CrowdRating) bool { return g == "all" || r.Condition == g }
		res.Alpha = append(res.Alpha, crowdAlpha(rows, in, g, opt, uint64(gi)))
		sh := SplitHalfReliability(zUnits(rows, z, in), opt.Splits, opt.Bootstrap.Seed+uint64(gi))
		sh.Condition = g
		res.SplitHalf = append(res.SplitHalf, sh)
	}
	return res, nil
}

// crowdConditions checks each rating is on the scale and given once, and
// returns the conditions in the order the rows first name them.
func crowdConditions(rows []CrowdRating, points int) ([]string, error) {
	var conds []string
	seen := map[[3]string]bool{}
	for _, r := range rows {
		if r.Rating < 1 || r.Rating > points {
			return nil, fmt.Errorf("reliability: participant %q, item %q: rating %d is off the 1–%d scale", r.Participant, r.Item, r.Rating, points)
		}
		k := [3]string{r.Participant, r.Item, r.Condition}
		if seen[k] {
			return nil, fmt.Errorf("reliability: participant %q rates item %q in condition %q twice", r.Participant, r.Item, r.Condition)
		}
		seen[k] = true
		if !slices.Contains(conds, r.Condition) {
			conds = append(conds, r.Condition)
		}
	}
	return conds, nil
}

// zUnits gathers the z-scores of the rows in the group by item and
// condition, in the order the rows first name them; ratings without a
// z-score are left out.
func zUnits(rows []CrowdRating, z []float64, in func(CrowdRating) bool) [][]float64 {
	var units [][]float64
	idx := map[[2]string]int{}
	for i, r := range rows {
		if !in(r) || math.IsNaN(z[i]) {
			continue
		}
		k := [2]string{r.Item, r.Condition}
		u, ok := idx[k]
		if !ok {
			u = len(units)
			idx[k] = u
			units = append(units, nil)
		}
		units[u] = append(units[u], z[i])
	}
	return units
}

// participantZ z-scores each participant's ratings with their own mean and
// population SD; a participant with SD 0 gets NaN and is listed.
func participantZ(rows []CrowdRating) ([]float64, []string) {
	type acc struct{ n, s, s2 float64 }
	by := map[string]*acc{}
	for _, r := range rows {
		a := by[r.Participant]
		if a == nil {
			a = &acc{}
			by[r.Participant] = a
		}
		v := float64(r.Rating)
		a.n++
		a.s += v
		a.s2 += v * v
	}
	var zero []string
	z := make([]float64, len(rows))
	for i, r := range rows {
		a := by[r.Participant]
		// Exact on integer sums, as the toplines test "all equal".
		if a.n*a.s2 == a.s*a.s {
			z[i] = math.NaN()
			if !slices.Contains(zero, r.Participant) {
				zero = append(zero, r.Participant)
			}
			continue
		}
		m := a.s / a.n
		sd := math.Sqrt(a.n*a.s2-a.s*a.s) / a.n
		z[i] = (float64(r.Rating) - m) / sd
	}
	slices.Sort(zero)
	return z, zero
}

func crowdAlpha(rows []CrowdRating, in func(CrowdRating) bool, g string, opt ReliabilityOptions, stream uint64) CrowdAlpha {
	idx := map[[2]string]int{}
	var counts [][]int
	n := 0
	for _, r := range rows {
		if !in(r) {
			continue
		}
		k := [2]string{r.Item, r.Condition}
		u, ok := idx[k]
		if !ok {
			u = len(counts)
			idx[k] = u
			counts = append(counts, make([]int, opt.Points))
		}
		counts[u][r.Rating-1]++
		n++
	}
	values := make([]float64, opt.Points)
	for i := range values {
		values[i] = float64(i + 1)
	}
	ca := CrowdAlpha{Condition: g, Units: len(counts), Ratings: n}
	if a, ok := analysis.KrippendorffAlpha(counts, analysis.Interval, values); ok {
		ca.Interval = &a
	}
	if a, ok := analysis.KrippendorffAlpha(counts, analysis.Ordinal, values); ok {
		ca.Ordinal = &a
	}
	if B := opt.Bootstrap.Replicates; B > 0 && len(counts) > 1 {
		rng := analysis.NewRand(opt.Bootstrap.Seed ^ (stream + 1))
		all := make([]int, len(counts))
		for i := range all {
			all[i] = i
		}
		w := make([]int32, len(counts))
		iv, ov := make([]float64, B), make([]float64, B)
		co := NewCoincidences(counts)
		o := make([]float64, opt.Points*opt.Points)
		for b := range B {
			analysis.DrawStrata(rng, [][]int{all}, w)
			co.Sum(w, o)
			iv[b] = alphaOrNaN(AlphaFromCoincidences(o, opt.Points, analysis.Interval, values))
			ov[b] = alphaOrNaN(AlphaFromCoincidences(o, opt.Points, analysis.Ordinal, values))
		}
		ca.IntervalCI = analysis.WithPoint(analysis.PercentileCI(ca.Interval, iv), ca.Interval)
		ca.OrdinalCI = analysis.WithPoint(analysis.PercentileCI(ca.Ordinal, ov), ca.Ordinal)
	}
	return ca
}

func alphaOrNaN(a float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return a
}

// SpearmanBrown is the reliability of a test twice as long as one with
// reliability r: 2r / (1 + r).
func SpearmanBrown(r float64) float64 { return 2 * r / (1 + r) }

// SplitHalfReliability is the split-half reliability of the unit means:
// for each of splits random splits, every unit with at least 2 values has
// its values shuffled and cut into halves (⌊n/2⌋ and ⌈n/2⌉), the halves'
// means are correlated across units (Pearson), and the correlation is
// Spearman–Brown corrected. Reliability is the mean over splits, CI the
// 2.5 and 97.5 percentiles. Nil with fewer than 3 such units, and nil
// with a Note when the mean half correlation or the mean corrected value
// is not above 0.
func SplitHalfReliability(units [][]float64, splits int, seed uint64) SplitHalf {
	var use [][]float64
	for _, u := range units {
		if len(u) >= 2 {
			use = append(use, slices.Clone(u))
		}
	}
	sh := SplitHalf{Units: len(use), Splits: splits}
	if len(use) < 3 {
		return sh
	}
	rng := analysis.NewRand(seed)
	a, b := make([]float64, len(use)), make([]float64, len(use))
	var rs, sbs []float64
	for range splits {
		for i, u := range use {
			rng.Shuffle(len(u), func(x, y int) { u[x], u[y] = u[y], u[x] })
			h := len(u) / 2
			a[i], b[i] = meanOf(u[:h]), meanOf(u[h:])
		}
		r := stat.Correlation(a, b, nil)
		if math.IsNaN(r) {
			continue
		}
		rs = append(rs, r)
		sbs = append(sbs, SpearmanBrown(r))
	}
	if len(sbs) == 0 {
		return sh
	}
	sh.R = analysis.Num(analysis.Mean(rs))
	rel := analysis.Mean(sbs)
	if *sh.R <= 0 || rel <= 0 {
		// Spearman–Brown extrapolates an agreement of the halves to the
		// whole crowd; halves that disagree have none to extrapolate, and
		// 2r/(1 + r) runs to −∞ as r nears −1 (−4 at a mean r of −0.64):
		// a number that reads as a reliability and is none.
		sh.Note = fmt.Sprintf("n/a: the halves' means do not agree (mean half correlation %.2f), so there is no reliability to correct", *sh.R)
		return sh
	}
	sh.Reliability = analysis.Num(rel)
	sort := slices.Clone(sbs)
	slices.Sort(sort)
	sh.CI = analysis.WithPoint(&analysis.CI{analysis.Quantile7(sort, 0.025), analysis.Quantile7(sort, 0.975)}, sh.Reliability)
	return sh
}

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// CorrelationCeiling sets a model–human correlation beside the humans' own
// noise ceiling: a model that knew each item's true mean could correlate
// with the humans' observed means at most √reliability, so Share =
// r / √reliability is the part of the reachable correlation the model
// reaches. It can exceed 1 by chance; it is not clipped.
type CorrelationCeiling struct {
	R           *float64 `json:"r"`
	Reliability *float64 `json:"reliability"`
	Ceiling     *float64 `json:"ceiling"`
	Share       *float64 `json:"share_of_ceiling"`
}

// NewCorrelationCeiling computes the ceiling and the share for r against a
// split-half reliability; undefined parts are nil (a reliability ≤ 0 has
// no ceiling).
func NewCorrelationCeiling(r, reliability *float64) CorrelationCeiling {
	c := CorrelationCeiling{R: r, Reliability: reliability}
	if reliability == nil || *reliability <= 0 {
		return c
	}
	c.Ceiling = analysis.Num(math.Sqrt(min(1, *reliability)))
	if r != nil {
		c.Share = analysis.Num(*r / *c.Ceiling)
	}
	return c
}

// coincidences holds each unit's nonzero entries of Krippendorff's
// coincidence matrix, so a bootstrap replicate sums them with the unit
// weights once and reads both metrics' α off the same matrix: the matrix
// is linear in the weights (Krippendorff 2011, section C).
type coincidences struct {
	k     int
	start []int     // unit u's entries are cells[start[u]:start[u+1]]
	cells []int     // c·k + d
	vals  []float64 // the unit's contribution to o[c][d]
}

func NewCoincidences(counts [][]int) *coincidences {
	co := &coincidences{k: len(counts[0]), start: make([]int, len(counts)+1)}
	for u, row := range counts {
		co.start[u] = len(co.cells)
		mu := 0
		for _, c := range row {
			mu += c
		}
		if mu < 2 {
			continue
		}
		f := 1 / float64(mu-1)
		for c, nc := range row {
			if nc == 0 {
				continue
			}
			for d, nd := range row {
				var v float64
				if c == d {
					v = f * float64(nc*(nc-1))
				} else if nd > 0 {
					v = f * float64(nc*nd)
				}
				if v != 0 {
					co.cells = append(co.cells, c*co.k+d)
					co.vals = append(co.vals, v)
				}
			}
		}
	}
	co.start[len(counts)] = len(co.cells)
	return co
}

// Sum writes Σᵤ w[u]·oᵤ into o.
func (co *coincidences) Sum(w []int32, o []float64) {
	clear(o)
	for u := range len(co.start) - 1 {
		if w[u] == 0 {
			continue
		}
		wu := float64(w[u])
		for i := co.start[u]; i < co.start[u+1]; i++ {
			o[co.cells[i]] += wu * co.vals[i]
		}
	}
}

// AlphaFromCoincidences is α from a coincidence matrix o (k × k), as
// krippendorffSubset computes it after building o.
func AlphaFromCoincidences(o []float64, k int, m analysis.Metric, values []float64) (float64, bool) {
	marg := make([]float64, k)
	var total float64
	for c := range k {
		for d := range k {
			marg[c] += o[c*k+d]
		}
		total += marg[c]
	}
	if total <= 1 {
		return math.NaN(), false
	}
	var do, de float64
	for c := range k {
		for d := range k {
			if c == d {
				continue
			}
			var dl float64
			switch m {
			case analysis.Ordinal:
				lo, hi := min(c, d), max(c, d)
				var s float64
				for g := lo; g <= hi; g++ {
					s += marg[g]
				}
				s -= (marg[c] + marg[d]) / 2
				dl = s * s
			case analysis.Interval:
				dl = (values[c] - values[d]) * (values[c] - values[d])
			default:
				dl = 1
			}
			do += o[c*k+d] * dl
			de += marg[c] * marg[d] * dl
		}
	}
	if de == 0 {
		return math.NaN(), false
	}
	return 1 - (total-1)*do/de, true
}
