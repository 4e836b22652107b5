package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
)

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

// minDefinedShare is the share of replicates in which a statistic must be
// defined for its interval to be reported. Below it (e.g. κ over items that
// are nearly all "yes", undefined whenever a replicate draws only those)
// the replicates that are defined are a biased subset and the interval is
// null rather than misleading.
const minDefinedShare = 0.9

// newRand is the bootstrap's generator: PCG seeded with seed (and a fixed
// stream constant), so intervals are reproducible.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d)) }

// drawStrata fills w with bootstrap multiplicities: in each stratum (a list
// of indices into w) as many draws with replacement as the stratum has
// members, in stratum order, each draw rng.IntN(len(stratum)). Stratifying
// keeps the design's group sizes (items per type, per survey) fixed.
func drawStrata(rng *rand.Rand, strata [][]int, w []int32) {
	clear(w)
	for _, s := range strata {
		n := len(s)
		for range n {
			w[s[rng.IntN(n)]]++
		}
	}
}

// quantile7 is the linear-interpolation quantile (Hyndman & Fan type 7,
// the default of R's quantile and numpy.percentile) of sorted xs.
func quantile7(xs []float64, p float64) float64 {
	h := float64(len(xs)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-lo)*(xs[i+1]-xs[i])
}

// percentileCI returns the 2.5 and 97.5 percentiles of the replicate
// values that are defined (not NaN), or nil when the point estimate is
// undefined, there are no replicates, or fewer than minDefinedShare of them
// are defined. vals is sorted in place.
func percentileCI(point *float64, vals []float64) *CI {
	if point == nil || len(vals) == 0 {
		return nil
	}
	def := vals[:0:0]
	for _, v := range vals {
		if !math.IsNaN(v) {
			def = append(def, v)
		}
	}
	if float64(len(def)) < minDefinedShare*float64(len(vals)) {
		return nil
	}
	slices.Sort(def)
	return &CI{quantile7(def, 0.025), quantile7(def, 0.975)}
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
	fn, p := float64(n), float64(hits)/float64(n)
	z2 := z975 * z975
	centre := (p + z2/(2*fn)) / (1 + z2/fn)
	half := z975 / (1 + z2/fn) * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn))
	return &CI{max(0, centre-half), min(1, centre+half)}
}

// nanIfNil turns an undefined statistic into NaN for a replicate vector.
func nanIfNil(x *float64) float64 {
	if x == nil {
		return math.NaN()
	}
	return *x
}

// ciText formats an interval for people, e.g. "[0.55, 0.71]".
func ciText(ci *CI) string {
	if ci == nil {
		return Missing
	}
	return "[" + Fixed(ci[0], 2) + ", " + Fixed(ci[1], 2) + "]"
}

// replicates collects, per named statistic, one value per replicate.
type replicates struct {
	n    int
	vals map[string][]float64
}

func newReplicates(n int) *replicates { return &replicates{n: n, vals: map[string][]float64{}} }

// set records statistic key's value in replicate b.
func (r *replicates) set(key string, b int, v float64) {
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

// ci is the percentile interval of key given its point estimate.
func (r *replicates) ci(key string, point *float64) *CI {
	if r == nil {
		return nil
	}
	return percentileCI(point, r.vals[key])
}
