package analysis

import (
	"math"
	"math/rand/v2"
	"pragmalab/domain"
	"runtime"
	"slices"
	"sync"
)

// ToplinesScheme describes the toplines bootstrap (docs/statistics.md).
// A share is over items, and every item's mean z is over participants, so
// both are samples: resampling items alone would treat each item's mean as
// known exactly, resampling participants alone would treat the item set as
// the population. Each replicate therefore draws the analysed participants
// and, independently, the items of each type with replacement (the
// two-way "pigeonhole" bootstrap of crossed random effects; Owen 2007,
// Ann. Appl. Stat. 1(2)), recomputes every item's mean z from the drawn
// participants' z-scores, and the shares and r over the drawn items. A
// participant's z-scores stay those of all their ratings: the z-score
// removes that person's use of the scale, which the full set of their
// ratings estimates best, and so one replicate is a weighted sum over
// per-(participant, item, condition) cells, with no re-reading or
// re-standardising.
const ToplinesScheme = "two-way percentile bootstrap: analysed participants and items (within type) resampled independently with replacement; z-scores fixed per participant"

// toplinesStats are the bootstrapped measures, in this order.
var toplinesStats = []string{MImplicature, MCancellation, MBeliefUpdate, MNegation, MStrengthen, MUnchanged, "pearson_r"}

// bootCells are the z-scores of the analysed participants' ratings, one
// entry per rating, grouped by participant: participant p's cells are
// slot[start[p]:start[p+1]] (item × condition) and z[…]. Grouping lets a
// replicate skip the participants it did not draw (about 37 % of them) and
// keep the weight in a register.
type bootCells struct {
	start []int32
	slot  []int32
	z     []float64
	nP    int
}

func newBootCells(rs *Ratings, ps []pstat) *bootCells {
	idx := make([]int32, len(ps))
	c := &bootCells{}
	for i, p := range ps {
		idx[i] = -1
		if !p.excluded && !p.zeroVar {
			idx[i] = int32(c.nP)
			c.nP++
		}
	}
	// Counting sort by participant: one pass to count, one to place.
	c.start = make([]int32, c.nP+1)
	rs.each(func(rt *rating) {
		if rt.check == checkNone && idx[rt.participant] >= 0 {
			c.start[idx[rt.participant]+1]++
		}
	})
	for p := range c.nP {
		c.start[p+1] += c.start[p]
	}
	n := c.start[c.nP]
	c.slot, c.z = make([]int32, n), make([]float64, n)
	next := slices.Clone(c.start[:c.nP])
	rs.each(func(rt *rating) {
		q := idx[rt.participant]
		if rt.check != checkNone || q < 0 {
			return
		}
		p := &ps[rt.participant]
		k := next[q]
		next[q]++
		c.slot[k] = rt.item*int32(numConditions) + int32(rt.cond)
		c.z[k] = (float64(rt.value) - p.mean) / p.sd
	})
	return c
}

// itemStrata are the item indices of each type, in Types order.
func itemStrata(rs *Ratings) [][]int {
	strata := make([][]int, len(domain.TableTypes))
	for i, t := range rs.itemType {
		strata[t] = append(strata[t], i)
	}
	return strata
}

// replicateRand is replicate b's generator: its own PCG stream of the
// seed, so the intervals do not depend on how many cores share the work.
func replicateRand(seed uint64, b int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15^uint64(b)))
}

// drawToplines draws one replicate's multiplicities: nP participants, then
// the items of each stratum in order.
func drawToplines(rng *rand.Rand, nP int, strata [][]int, wp, wi []int32) {
	clear(wp)
	for range nP {
		wp[rng.IntN(nP)]++
	}
	drawStrata(rng, strata, wi)
}

func bootstrapToplines(rs *Ratings, ps []pstat, t *Toplines, bs Bootstrap) {
	cells := newBootCells(rs, ps)
	strata := itemStrata(rs)
	groups := append(append([]string{}, domain.TableTypes...), domain.TypeAll)
	nG, nS, B := len(groups), len(toplinesStats), bs.Replicates
	out := make([]float64, B*nG*nS) // [b][group][stat]
	if cells.nP > 0 {
		workers := max(1, min(runtime.GOMAXPROCS(0), B))
		var wg sync.WaitGroup
		next := make(chan int, B)
		for b := range B {
			next <- b
		}
		close(next)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := newToplinesReplicator(rs, cells, strata)
				for b := range next {
					r.run(replicateRand(bs.Seed, b), out[b*nG*nS:(b+1)*nG*nS])
				}
			}()
		}
		wg.Wait()
	} else {
		for i := range out {
			out[i] = math.NaN()
		}
	}
	vals := make([]float64, B)
	for g, name := range groups {
		tt := t.ByType[name]
		points := []*float64{tt.ImplicatureRecognition, tt.CancellationRecognition, tt.BeliefUpdate,
			tt.NegationCancellation, tt.Strengthening, tt.Unchanged, tt.PearsonR}
		cis := []**CI{&tt.ImplicatureRecognitionCI, &tt.CancellationRecognitionCI, &tt.BeliefUpdateCI,
			&tt.NegationCancellationCI, &tt.StrengtheningCI, &tt.UnchangedCI, &tt.PearsonRCI}
		for s := range nS {
			for b := range B {
				vals[b] = out[(b*nG+g)*nS+s]
			}
			*cis[s] = percentileCI(points[s], vals)
		}
	}
	t.Bootstrap = &BootstrapInfo{Replicates: B, Seed: bs.Seed, Scheme: ToplinesScheme}
}

// toplinesReplicator holds one worker's buffers.
type toplinesReplicator struct {
	cells    *bootCells
	strata   [][]int
	itemType []int8
	wp, wi   []int32
	num, den []float64
	acc      []groupAcc
}

func newToplinesReplicator(rs *Ratings, cells *bootCells, strata [][]int) *toplinesReplicator {
	slots := len(rs.items) * int(numConditions)
	return &toplinesReplicator{cells: cells, strata: strata, itemType: rs.itemType,
		wp: make([]int32, cells.nP), wi: make([]int32, len(rs.items)),
		num: make([]float64, slots), den: make([]float64, slots), acc: make([]groupAcc, len(domain.TableTypes)+1)}
}

// groupAcc accumulates one group's weighted shares and r.
type groupAcc struct {
	hits, n                   [6]float64
	sw, sx, sy, sxx, syy, sxy float64
}

func (a *groupAcc) share(k int, w float64, ok, hit bool) {
	if !ok {
		return
	}
	a.n[k] += w
	if hit {
		a.hits[k] += w
	}
}

// run computes one replicate into out[group*len(toplinesStats)+stat].
func (r *toplinesReplicator) run(rng *rand.Rand, out []float64) {
	drawToplines(rng, r.cells.nP, r.strata, r.wp, r.wi)
	clear(r.num)
	clear(r.den)
	c := r.cells
	num, den := r.num, r.den
	for p, wi := range r.wp {
		if wi == 0 {
			continue
		}
		w := float64(wi)
		lo, hi := c.start[p], c.start[p+1]
		slots, zs := c.slot[lo:hi], c.z[lo:hi]
		for k, s := range slots {
			num[s] += w * zs[k]
			den[s] += w
		}
	}
	clear(r.acc)
	all := &r.acc[len(domain.TableTypes)]
	const nc = int(numConditions)
	for i, wi := range r.wi {
		if wi == 0 {
			continue
		}
		var m [numConditions]float64
		var has [numConditions]bool
		for cond := range nc {
			if d := den[i*nc+cond]; d > 0 {
				m[cond], has[cond] = num[i*nc+cond]/d, true
			}
		}
		w := float64(wi)
		for _, a := range []*groupAcc{&r.acc[r.itemType[i]], all} {
			zt, zc := m[Trigger], m[Cancel]
			hasT, hasC := has[Trigger], has[Cancel]
			a.share(0, w, hasT, above(zt, 0))
			a.share(1, w, hasT && hasC, above(zt, zc))
			a.share(2, w, hasT && hasC, above(zt, 0) && above(zt, zc))
			a.share(3, w, hasT && has[Negation], above(zt, m[Negation]))
			a.share(4, w, hasT && has[Strengthen], above(m[Strengthen], zt))
			a.share(5, w, hasT && has[Neutral], above(m[Neutral], 0) == above(zt, 0))
			if hasT && hasC {
				a.sw += w
				a.sx += w * zt
				a.sy += w * zc
				a.sxx += w * zt * zt
				a.syy += w * zc * zc
				a.sxy += w * zt * zc
			}
		}
	}
	nS := len(toplinesStats)
	for g := range r.acc {
		a := &r.acc[g]
		o := out[g*nS : (g+1)*nS]
		for k := range 6 {
			o[k] = math.NaN()
			if a.n[k] > 0 {
				o[k] = a.hits[k] / a.n[k]
			}
		}
		o[6] = weightedR(a)
	}
}

// weightedR is Pearson's r over items counted with their multiplicities;
// NaN with fewer than 3 items or no variance.
func weightedR(a *groupAcc) float64 {
	if a.sw < 3 {
		return math.NaN()
	}
	vx := a.sw*a.sxx - a.sx*a.sx
	vy := a.sw*a.syy - a.sy*a.sy
	// Relative tolerance: the sums of a constant column cancel to rounding.
	if vx <= 1e-12*a.sw*a.sxx || vy <= 1e-12*a.sw*a.syy {
		return math.NaN()
	}
	return max(-1, min(1, (a.sw*a.sxy-a.sx*a.sy)/math.Sqrt(vx*vy)))
}
