package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// BootstrapInfo echoes how the intervals were computed, so a saved JSON
// says it.
type BootstrapInfo struct {
	Replicates int    `json:"replicates"`
	Seed       uint64 `json:"seed"`
	Scheme     string `json:"scheme"`
}

// CI is a 95 % interval [low, high]. In JSON it is a two-number array; a
// *CI that is nil (the value it belongs to is undefined, or no bootstrap
// was run) is null.
type CI [2]float64

// Bootstrap configures the percentile bootstrap behind the *_ci95 keys.
// Replicates 0 turns the intervals off (every *_ci95 is null).
type Bootstrap struct {
	Replicates int
	Seed       uint64
}

// DefaultReplicates and DefaultSeed are the CLI's --bootstrap and --seed
// defaults: a fixed seed, so the same input always gives the same interval.
const (
	DefaultReplicates = 2000
	DefaultSeed       = 20240501
)

// DefaultBootstrap returns 2000 replicates with the fixed default seed.
func DefaultBootstrap() Bootstrap { return Bootstrap{Replicates: DefaultReplicates, Seed: DefaultSeed} }

// MinDefinedShare is the share of replicates in which a statistic must be
// defined for its interval to be reported. Below it (e.g. κ over items that
// are nearly all "yes", undefined whenever a replicate draws only those)
// the replicates that are defined are a biased subset and the interval is
// null rather than misleading.
const MinDefinedShare = 0.9

// NewRand is the bootstrap's generator: PCG seeded with seed (and a fixed
// stream constant), so intervals are reproducible.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d)) }

// DrawStrata fills w with bootstrap multiplicities: in each stratum (a list
// of indices into w) as many draws with replacement as the stratum has
// members, in stratum order, each draw rng.IntN(len(stratum)). Stratifying
// keeps the design's group sizes (items per type, per survey) fixed.
func DrawStrata(rng *rand.Rand, strata [][]int, w []int32) {
	clear(w)
	for _, s := range strata {
		n := len(s)
		for range n {
			w[s[rng.IntN(n)]]++
		}
	}
}

// Quantile7 is the linear-interpolation quantile (Hyndman & Fan type 7,
// the default of R's quantile and numpy.percentile) of sorted xs.
func Quantile7(xs []float64, p float64) float64 {
	h := float64(len(xs)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-lo)*(xs[i+1]-xs[i])
}

// PercentileCI returns the 2.5 and 97.5 percentiles of the replicate
// values that are defined (not NaN), or nil when the point estimate is
// undefined or definedSorted finds too few defined replicates. vals is not
// changed.
func PercentileCI(point *float64, vals []float64) *CI {
	if point == nil {
		return nil
	}
	def := DefinedSorted(vals)
	if def == nil {
		return nil
	}
	return &CI{Quantile7(def, 0.025), Quantile7(def, 0.975)}
}

// z975 is the 97.5 % quantile of the standard normal distribution.
const z975 = 1.959963984540054

// Wilson returns the 95 % Wilson score interval of hits successes in n
// trials (nil when n is 0): the interval reviewers expect for a share of
// independent trials such as multiple-choice accuracy, which, unlike the
// normal approximation, stays inside [0,1] and is not degenerate at 0 or n.
func Wilson(hits, n int) *CI {
	if n <= 0 {
		return nil
	}
	return WilsonN(float64(hits)/float64(n), float64(n))
}

// NanIfNil turns an undefined statistic into NaN for a replicate vector.
func NanIfNil(x *float64) float64 {
	if x == nil {
		return math.NaN()
	}
	return *x
}

// CIText formats an interval for people, e.g. "[0.55, 0.71]".
func CIText(ci *CI) string {
	if ci == nil {
		return Missing
	}
	return "[" + Fixed(ci[0], 2) + ", " + Fixed(ci[1], 2) + "]"
}

// Replicates collects, per named statistic, one value per replicate; jack
// holds the same statistics with each item left out in turn (NaN where the
// item is not in the statistic's group), for BCa.
type Replicates struct {
	n    int
	vals map[string][]float64
	Jack *Replicates
	// Method picks each statistic's interval method by its key.
	Method func(key string) CIMethod
}

func NewReplicates(n int) *Replicates { return &Replicates{n: n, vals: map[string][]float64{}} }

// Set records statistic key's value in replicate b.
func (r *Replicates) Set(key string, b int, v float64) {
	vs := r.vals[key]
	if vs == nil {
		vs = make([]float64, r.n)
		for i := range vs {
			vs[i] = math.NaN()
		}
		r.vals[key] = vs
	}
	vs[b] = v
}

// CI is the interval of key given its point estimate, by the method in
// use for it.
func (r *Replicates) CI(key string, point *float64) *CI {
	if r == nil {
		return nil
	}
	m := CIPercentile
	if r.Method != nil {
		m = r.Method(key)
	}
	return r.CIWith(m, key, point)
}

// CIWith is the interval of key by method m, widened to contain the
// estimate.
func (r *Replicates) CIWith(m CIMethod, key string, point *float64) *CI {
	if r == nil {
		return nil
	}
	var jack []float64
	if r.Jack != nil {
		jack = r.Jack.vals[key]
	}
	return IntervalOf(m, point, r.vals[key], jack, false, math.Inf(-1), math.Inf(1))
}

// CIMethod is how an interval is read off bootstrap replicates; the
// coverage study (docs/statistics.md#interval-coverage) compares them and
// each statistic uses the one that covers.
type CIMethod uint8

const (
	// CIPercentile: the 2.5th and 97.5th percentiles of the replicates.
	CIPercentile CIMethod = iota
	// CIBCa: bias-corrected and accelerated percentiles (Efron &
	// Tibshirani 1993, ch. 14): z0 from the share of replicates below the
	// estimate, the acceleration from the jackknife over items.
	CIBCa
	// CIBasic: the "basic" (reverse-percentile) interval 2θ̂ − q97.5,
	// 2θ̂ − q2.5, which moves the interval by the bias the replicates show
	// instead of repeating it; on the atanh scale for r.
	CIBasic
	// CIExtrapolated: the basic interval's spread around a centre
	// extrapolated to no rating noise (SIMEX, Cook & Stefanski 1994) from
	// three noise levels: the estimate (1), the replicates (2) and
	// second-level replicates drawn from the replicates' participants (3).
	CIExtrapolated
	// CIDisattenuated and CIDisattenuatedZ: the basic interval of the
	// corrected r around the observed r as the bootstrap's truth
	// (disattenuatedCI), on r's scale and on its atanh.
	CIDisattenuated
	CIDisattenuatedZ
	// CIDisattenuatedUnion: the union of the two, which covers where
	// either does (the coverage study: r's scale falls short with few
	// items, the atanh scale when the replicates pass 1).
	CIDisattenuatedUnion
	// CIDisattenuatedAuto: the atanh scale unless more than 2.5 % of the
	// replicates reach ±1 (where atanh is undefined), then r's scale.
	CIDisattenuatedAuto
)

func (m CIMethod) String() string {
	return [...]string{"percentile", "BCa", "basic", "extrapolated", "basic vs observed r", "basic vs observed r (atanh)", "basic vs observed r (r ∪ atanh)", "basic vs observed r (atanh unless replicates reach ±1)"}[m]
}

// ExtrapolatedCI is the CIExtrapolated interval: on the scale of r's
// atanh when rScale, the centre c = 3θ̂ − 3·mean(θ*) + mean(θ**) (the
// quadratic through the three noise levels, at level 0), and the bounds
// c − q97.5(θ* − mean θ*), c − q2.5(θ* − mean θ*), within [lo, hi].
func ExtrapolatedCI(point *float64, vals, vals2 []float64, rScale bool, lo, hi float64) *CI {
	if point == nil {
		return nil
	}
	f, g := func(x float64) float64 { return x }, func(x float64) float64 { return x }
	if rScale {
		f, g = AtanhSafe, math.Tanh
	}
	d1, d2 := DefinedSorted(vals), DefinedSorted(vals2)
	if d1 == nil || d2 == nil {
		return nil
	}
	var m2, m3 float64
	t := make([]float64, len(d1))
	for i, v := range d1 {
		t[i] = f(v)
		m2 += t[i]
	}
	for _, v := range d2 {
		m3 += f(v)
	}
	m2 /= float64(len(d1))
	m3 /= float64(len(d2))
	c := 3*f(*point) - 3*m2 + m3
	return &CI{Clamp(g(c-(Quantile7(t, 0.975)-m2)), lo, hi), Clamp(g(c-(Quantile7(t, 0.025)-m2)), lo, hi)}
}

// DefinedSorted returns the defined (not NaN) values sorted, or nil when
// fewer than minDefinedShare of vals are defined.
func DefinedSorted(vals []float64) []float64 {
	def := make([]float64, 0, len(vals))
	for _, v := range vals {
		if !math.IsNaN(v) {
			def = append(def, v)
		}
	}
	if len(def) == 0 || float64(len(def)) < MinDefinedShare*float64(len(vals)) {
		return nil
	}
	slices.Sort(def)
	return def
}

// NormQuantile and NormCDF are the standard normal's.
func NormQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }
func NormCDF(x float64) float64      { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// BcaCI is the BCa interval of point from the replicates vals and the
// jackknife values jack (leave one item out; NaN where undefined; nil or
// too few defined: acceleration 0, the BC interval). z0 counts ties with
// the estimate as half below, so a share whose replicates often equal it
// is not pushed to one side.
func BcaCI(point *float64, vals, jack []float64) *CI {
	if point == nil {
		return nil
	}
	def := DefinedSorted(vals)
	if def == nil {
		return nil
	}
	// Replicates within rounding (zeroTol) of the estimate are ties.
	th := *point
	below := float64(sort.SearchFloat64s(def, th-zeroTol))
	ties := float64(sort.SearchFloat64s(def, th+zeroTol)) - below
	B := float64(len(def))
	p0 := min(max((below+ties/2)/B, 0.5/B), 1-0.5/B)
	z0 := NormQuantile(p0)
	a := acceleration(jack)
	at := func(alpha float64) float64 {
		z := z0 + NormQuantile(alpha)
		d := 1 - a*z
		if d <= 0 {
			if alpha < 0.5 {
				return def[0]
			}
			return def[len(def)-1]
		}
		return Quantile7(def, NormCDF(z0+z/d))
	}
	return &CI{at(0.025), at(0.975)}
}

// acceleration is BCa's a = Σ U³ / (6 (Σ U²)^{3/2}), U_i = mean − jack_i,
// over the defined jackknife values; 0 when there are fewer than 3.
func acceleration(jack []float64) float64 {
	var n, m float64
	for _, v := range jack {
		if !math.IsNaN(v) {
			n++
			m += v
		}
	}
	if n < 3 {
		return 0
	}
	m /= n
	var s2, s3 float64
	for _, v := range jack {
		if !math.IsNaN(v) {
			u := m - v
			s2 += u * u
			s3 += u * u * u
		}
	}
	if s2 == 0 {
		return 0
	}
	return s3 / (6 * math.Pow(s2, 1.5))
}

// BasicCI is the reverse-percentile interval [2θ̂ − q97.5, 2θ̂ − q2.5] on
// the scale f (with inverse g; nil: identity), kept within [lo, hi].
func BasicCI(point *float64, vals []float64, f, g func(float64) float64, lo, hi float64) *CI {
	if point == nil {
		return nil
	}
	if f == nil {
		f, g = func(x float64) float64 { return x }, func(x float64) float64 { return x }
	}
	def := DefinedSorted(vals)
	if def == nil {
		return nil
	}
	t := make([]float64, len(def))
	for i, v := range def {
		t[i] = f(v)
	}
	th := f(*point)
	return &CI{Clamp(g(2*th-Quantile7(t, 0.975)), lo, hi), Clamp(g(2*th-Quantile7(t, 0.025)), lo, hi)}
}

func Clamp(x, lo, hi float64) float64 { return max(lo, min(hi, x)) }

// AtanhSafe maps r to Fisher's z, ±1 to a large finite value so a
// replicate at ±1 still orders.
func AtanhSafe(r float64) float64 { return math.Atanh(Clamp(r, -1+1e-12, 1-1e-12)) }

// WithPoint widens ci, if needed, to contain the estimate it belongs to
// (docs/statistics.md#every-interval-holds-its-estimate).
func WithPoint(ci *CI, point *float64) *CI {
	if ci == nil || point == nil {
		return ci
	}
	return &CI{min(ci[0], *point), max(ci[1], *point)}
}

// IntervalOf reads a 95 % interval off replicates by method m, widened to
// contain the estimate. rScale marks a correlation (the basic interval on
// the atanh scale, within [−1, 1]); other values are kept within [lo, hi].
func IntervalOf(m CIMethod, point *float64, vals, jack []float64, rScale bool, lo, hi float64) *CI {
	var ci *CI
	switch m {
	case CIBCa:
		ci = BcaCI(point, vals, jack)
	case CIBasic:
		if rScale {
			ci = BasicCI(point, vals, AtanhSafe, math.Tanh, -1, 1)
		} else {
			ci = BasicCI(point, vals, nil, nil, lo, hi)
		}
	default:
		ci = PercentileCI(point, vals)
	}
	return WithPoint(ci, point)
}

// JackBlocks is the most leave-out blocks of the jackknife behind BCa's
// acceleration: up to 100 items it leaves out one item at a time, beyond
// that consecutive blocks of items (the grouped jackknife), which
// estimates the acceleration as well at a fraction of the cost.
const JackBlocks = 100

// eachJackBlock calls f with block k = 0, 1, … of idx.
func eachJackBlock(idx []int, f func(k int, block []int)) {
	n := len(idx)
	nb := min(n, JackBlocks)
	for k := range nb {
		f(k, idx[k*n/nb:(k+1)*n/nb])
	}
}

// JackknifeGroups calls f(g, k) for each jackknife block k of each group g,
// with that block's items weighted 0 in w and every other item 1; w is all
// ones again when it returns.
func JackknifeGroups(groups map[string][]int, w []int32, f func(g string, k int)) {
	for i := range w {
		w[i] = 1
	}
	for g, idx := range groups {
		eachJackBlock(idx, func(k int, block []int) {
			for _, i := range block {
				w[i] = 0
			}
			f(g, k)
			for _, i := range block {
				w[i] = 1
			}
		})
	}
}

// WilsonN is the Wilson score interval of share p over n trials, n not
// necessarily whole (an effective sample size).
func WilsonN(p, n float64) *CI {
	if n <= 0 {
		return nil
	}
	z2 := z975 * z975
	centre := (p + z2/(2*n)) / (1 + z2/n)
	half := z975 / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	// Mathematically the bounds hold p; min/max keep rounding (at p = 1,
	// centre + half can come out a hair below 1) from breaking that.
	return &CI{min(p, max(0, centre-half)), max(p, min(1, centre+half))}
}

// ClusterWilson is the 95 % Wilson interval of a share of trials that come
// in clusters (cluster i: hits[i] of trials[i], e.g. the ratings of one
// passage, the answers on one item), with n replaced by the effective
// sample size (Kish 1965; Korn & Graubard 1998): n_eff = p(1 − p)/v, v the
// cluster-robust variance of the share, at most the number of trials. With
// one trial per cluster it is Wilson's interval over n − 1 trials (the
// variance's C/(C − 1)); when trials of a cluster agree more than chance
// it widens. At a share of 0 or 1 the variance is 0 and says nothing of the
// clustering, so n_eff is the number of clusters. nil with no trial.
func ClusterWilson(hits, trials []float64) *CI {
	var H, N float64
	c := 0
	for i := range hits {
		if trials[i] > 0 {
			H += hits[i]
			N += trials[i]
			c++
		}
	}
	if N == 0 {
		return nil
	}
	p := H / N
	neff := N
	if p == 0 || p == 1 {
		// No variance to estimate the design effect from: count the
		// clusters, never the trials (40 items, not their 120 pairs), as
		// when every cluster's trials agree perfectly.
		return WilsonN(p, float64(c))
	}
	if c > 1 {
		var ss float64
		for i := range hits {
			if trials[i] > 0 {
				d := hits[i] - p*trials[i]
				ss += d * d
			}
		}
		if v := float64(c) / float64(c-1) * ss / (N * N); v > 0 {
			neff = min(N, p*(1-p)/v)
		}
	}
	return WilsonN(p, neff)
}
