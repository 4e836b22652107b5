package toplines

import (
	"fmt"
	"math"
	"math/rand/v2"
	"pragmalab/analysis"
	"pragmalab/domain"
	"runtime"
	"slices"
	"sync"
)

// pearsonPairs are the trigger and cancel means of the items of typ (or
// all) having both, as typeToplines correlates them.
func pearsonPairs(items []ItemMeans, typ string) (xs, ys []float64) {
	for i := range items {
		m := &items[i]
		if (typ == domain.TypeAll || m.Type == typ) && m.Has(Trigger) && m.Has(Cancel) {
			xs, ys = append(xs, m.MeanZ[Trigger]), append(ys, m.MeanZ[Cancel])
		}
	}
	return xs, ys
}

// ToplinesScheme describes the toplines intervals
// (docs/statistics.md#toplines-intervals). A share is over items, and
// every item's mean z is over participants, so both are samples:
// resampling items alone would treat each item's mean as known exactly,
// resampling participants alone would treat the item set as the
// population. Each replicate therefore draws the analysed participants and,
// independently, the items of each type with replacement (the draws of
// Owen's 2007 pigeonhole bootstrap), recomputes every item's mean z from
// the drawn participants' z-scores, and the shares and r over the drawn
// items. Those replicates add a second dose of rating noise, which moves a
// thresholded share or r away from the estimate, so the interval is read
// off them by extrapolating the noise away (or the basic interval) rather
// than as percentiles. A participant's z-scores stay those of all their
// ratings: the z-score removes that person's use of the scale, which the
// full set of their ratings estimates best, and so one replicate is a
// weighted sum over per-(participant, item, condition) cells, with no
// re-reading or re-standardising.
const ToplinesScheme = "two-way bootstrap (analysed participants and items within type resampled independently, z-scores fixed per participant), read as the extrapolated interval (SIMEX through second-level participant draws, the basic interval for belief update) to undo the rating noise the replicates add; widened to hold the items-only interval (Wilson over items; Fisher z for r) and the estimate"

// Stats are the bootstrapped measures, in this order.
var Stats = []string{MImplicature, MCancellation, MBeliefUpdate, MNegation, MStrengthen, MUnchanged, "pearson_r", "pearson_r_disattenuated"}

// Indices of the two correlations in toplinesStats.
const (
	statR    = 6
	StatRDis = 7
)

// bootCells are the analysed participants' ratings, one entry per
// rating, grouped by participant: participant p's cells are
// slot[start[p]:start[p+1]] (item × condition) and value[…] (the rating),
// whose z-score is ztab[p·width + value]. Grouping lets a replicate skip
// the participants it did not draw (about 37 % of them) and keep the
// weight and the participant's z table in registers and L1. A rating
// takes 5 bytes (slot and value) instead of 12 (slot and z): every
// replicate streams every rating twice, and on a million ratings that
// traffic is the replicate's cost (docs/performance.md, bench toplines).
// The z in the table is computed by the same expression as before, so the
// replicates are bit for bit the same.
//
// A participant's trigger and cancel ratings come first, up to mid[p]:
// only those cells need Σ w·z², the rating noise of the corrected r
// (docs/statistics.md#disattenuated-correlation), so the others skip it.
// A slot gets at most one rating of a participant and participants are
// summed in order, so the order within a participant changes no sum.
type bootCells struct {
	start []int32
	mid   []int32
	slot  []int32
	value []uint8
	ztab  []float64
	width int
	nP    int
}

func newBootCells(rs *Ratings, ps []Pstat) *bootCells {
	idx := make([]int32, len(ps))
	c := &bootCells{}
	for i, p := range ps {
		idx[i] = -1
		if !p.Excluded && !p.ZeroVar {
			idx[i] = int32(c.nP)
			c.nP++
		}
	}
	// Counting sort by participant: one pass to count, one to place.
	c.start = make([]int32, c.nP+1)
	noisy := make([]int32, c.nP)
	rs.Each(func(rt *Rating) {
		if rt.Check == CheckNone && idx[rt.Participant] >= 0 {
			c.start[idx[rt.Participant]+1]++
			if rt.Cond == Trigger || rt.Cond == Cancel {
				noisy[idx[rt.Participant]]++
			}
		}
	})
	for p := range c.nP {
		c.start[p+1] += c.start[p]
	}
	c.mid = make([]int32, c.nP)
	for p := range c.nP {
		c.mid[p] = c.start[p] + noisy[p]
	}
	n := c.start[c.nP]
	c.slot, c.value = make([]int32, n), make([]uint8, n)
	var top uint8
	rs.Each(func(rt *Rating) { top = max(top, rt.Value) })
	c.width = int(top) + 1
	c.ztab = make([]float64, c.nP*c.width)
	for i, p := range ps {
		if q := idx[i]; q >= 0 {
			for v := range c.width {
				c.ztab[int(q)*c.width+v] = (float64(v) - p.Mean) / p.SD
			}
		}
	}
	next, nextOther := slices.Clone(c.start[:c.nP]), slices.Clone(c.mid)
	rs.Each(func(rt *Rating) {
		q := idx[rt.Participant]
		if rt.Check != CheckNone || q < 0 {
			return
		}
		at := next
		if rt.Cond != Trigger && rt.Cond != Cancel {
			at = nextOther
		}
		k := at[q]
		at[q]++
		c.slot[k] = rt.Item*int32(NumConditions) + int32(rt.Cond)
		c.value[k] = rt.Value
	})
	return c
}

// itemStrata are the item indices of each type, in Types order.
func itemStrata(rs *Ratings) [][]int {
	strata := make([][]int, len(domain.TableTypes))
	for i, t := range rs.ItemType {
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
	analysis.DrawStrata(rng, strata, wi)
}

func bootstrapToplines(rs *Ratings, ps []Pstat, t *Toplines, bs analysis.Bootstrap) {
	tr := Replicates(rs, ps, t, bs, IntervalMethods)
	for g, name := range tr.groups {
		tt := t.ByType[name]
		cis := []**analysis.CI{&tt.ImplicatureRecognitionCI, &tt.CancellationRecognitionCI, &tt.BeliefUpdateCI,
			&tt.NegationCancellationCI, &tt.StrengtheningCI, &tt.UnchangedCI, &tt.PearsonRCI, &tt.PearsonRDisattenuatedCI}
		for s, stat := range Stats {
			*cis[s] = tr.CI(IntervalMethods[s], g, s)
			if *cis[s] == nil && tr.Points[g][s] != nil {
				if tt.IntervalsNA == nil {
					tt.IntervalsNA = map[string]string{}
				}
				tt.IntervalsNA[stat+"_ci95"] = tr.naReason(tt, g, s, stat)
			}
		}
		flagApproximate(tt, t.Items, name)
	}
	t.Bootstrap = &analysis.BootstrapInfo{Replicates: bs.Replicates, Seed: bs.Seed, Scheme: ToplinesScheme}
}

// MinIntervalItems is the fewest items a measure's interval is read
// with in plain words: below it the reason an interval could not be
// computed is "too few items: n" (docs/statistics.md#toplines-intervals).
const MinIntervalItems = 5

// naReason says in plain words why the interval of statistic s in group g
// could not be computed although its estimate was: too few items (below
// MinIntervalItems items having the measure's conditions), else the share
// of replicates where the measure is undefined, else that the bootstrap
// could not place it.
func (tr *toplinesReps) naReason(tt *TypeToplines, g, s int, stat string) string {
	n := tt.Items - tt.LeftOut[stat]
	if s == statR || s == StatRDis {
		n = tt.PearsonN
	}
	if n < MinIntervalItems {
		return fmt.Sprintf("too few items: %d", n)
	}
	nG, nS, share := len(tr.groups), len(Stats), 0.0
	for _, src := range [][]float64{tr.twoWay, tr.twoWay2} {
		if len(src) < tr.B*nG*nS {
			continue
		}
		undef := 0
		for b := range tr.B {
			if math.IsNaN(src[(b*nG+g)*nS+s]) {
				undef++
			}
		}
		share = max(share, float64(undef)/float64(tr.B))
	}
	if share > 1-analysis.MinDefinedShare {
		return fmt.Sprintf("undefined in %d %% of the bootstrap replicates", int(math.Round(100*share)))
	}
	return "the bootstrap replicates give no interval"
}

// toplinesReps holds what the candidate intervals of the toplines are
// read from: the two-way replicates, the items-only replicates (item means
// fixed at the estimate), and the jackknife over items, per group (domain.TableTypes,
// then all) and statistic. Only what the methods it was made for read is
// there: the second level for the extrapolated interval, the items-only
// replicates for an items-only method, the jackknife for BCa.
type toplinesReps struct {
	groups  []string
	Points  [][]*float64 // [group][stat]
	twoWay  []float64    // [b][group][stat]
	oneWay  []float64    // [b][group][stat] (nil unless needed)
	twoWay2 []float64    // [b][group][stat], the second level (nil unless needed)
	// ItemsCI is, per group and statistic, the interval from the items
	// alone: Wilson's for a share over its items, Fisher's z for r.
	ItemsCI [][]*analysis.CI
	jack    [][][]float64 // [group][stat][item left out] (nil unless needed)
	B       int
}

// toplinesMethod names how one toplines interval is computed.
type toplinesMethod struct {
	method analysis.CIMethod
	// oneWay resamples items only, conditional on the participants.
	oneWay bool
	// floor widens the interval to hold the items-only analytic one
	// (Wilson's over the items, Fisher's z for r): the uncertainty from
	// sampling items is there whatever the rating noise, and at a share of
	// 0 or 1 the replicates alone give a zero-width interval.
	floor bool
}

func (m toplinesMethod) String() string {
	s := "two-way " + m.method.String()
	if m.oneWay {
		s = "items-only " + m.method.String()
	}
	if m.floor {
		s += " ∪ items"
	}
	return s
}

// IntervalCandidates are the methods the coverage study compares.
var IntervalCandidates = []toplinesMethod{
	{analysis.CIPercentile, false, false}, {analysis.CIBCa, false, false}, {analysis.CIBasic, false, false}, {analysis.CIExtrapolated, false, false},
	{analysis.CIBasic, false, true}, {analysis.CIExtrapolated, false, true}, {analysis.CIPercentile, true, false}, {analysis.CIBCa, true, false},
	{analysis.CIDisattenuated, false, false}, {analysis.CIDisattenuatedZ, false, false}, {analysis.CIDisattenuatedUnion, false, false},
	{analysis.CIDisattenuatedAuto, false, false},
}

// Corrected reports whether m is made for the corrected r, statRDis (the
// others read the replicates as estimates of the statistic itself).
func (m toplinesMethod) Corrected() bool {
	return m.method >= analysis.CIDisattenuated
}

// CI is the interval of statistic s of group g by method m, widened to
// contain the estimate.
func (tr *toplinesReps) CI(m toplinesMethod, g, s int) *analysis.CI {
	ci := tr.replicateCI(m, g, s)
	if m.floor && ci != nil && tr.ItemsCI[g][s] != nil {
		f := tr.ItemsCI[g][s]
		ci = &analysis.CI{min(ci[0], f[0]), max(ci[1], f[1])}
	}
	return ci
}

func (tr *toplinesReps) replicateCI(m toplinesMethod, g, s int) *analysis.CI {
	nG, nS := len(tr.groups), len(Stats)
	src := tr.twoWay
	if m.oneWay {
		src = tr.oneWay
	}
	column := func(src []float64) []float64 {
		vals := make([]float64, tr.B)
		for b := range tr.B {
			vals[b] = src[(b*nG+g)*nS+s]
		}
		return vals
	}
	vals := column(src)
	if m.Corrected() {
		if s != StatRDis {
			return nil
		}
		if m.method == analysis.CIDisattenuatedAuto {
			edge := 0
			for _, v := range vals {
				if v >= 1 || v <= -1 {
					edge++
				}
			}
			return disattenuatedCI(tr.Points[g][s], tr.Points[g][statR], vals, float64(edge) <= 0.025*float64(len(vals)))
		}
		if m.method == analysis.CIDisattenuatedUnion {
			a := disattenuatedCI(tr.Points[g][s], tr.Points[g][statR], vals, false)
			z := disattenuatedCI(tr.Points[g][s], tr.Points[g][statR], vals, true)
			if a == nil || z == nil {
				return nil
			}
			return &analysis.CI{min(a[0], z[0]), max(a[1], z[1])}
		}
		return disattenuatedCI(tr.Points[g][s], tr.Points[g][statR], vals, m.method == analysis.CIDisattenuatedZ)
	}
	lo, hi, isR := 0.0, 1.0, s == statR || s == StatRDis
	if isR {
		lo = -1
	}
	if m.method == analysis.CIExtrapolated {
		if tr.twoWay2 == nil {
			return nil
		}
		return analysis.WithPoint(analysis.ExtrapolatedCI(tr.Points[g][s], vals, column(tr.twoWay2), isR, lo, hi), tr.Points[g][s])
	}
	var jack []float64
	if tr.jack != nil {
		jack = tr.jack[g][s]
	}
	return analysis.IntervalOf(m.method, tr.Points[g][s], vals, jack, isR, lo, hi)
}

// Replicates draws the replicates the methods read.
func Replicates(rs *Ratings, ps []Pstat, t *Toplines, bs analysis.Bootstrap, methods []toplinesMethod) *toplinesReps {
	var secondLevel, itemsOnly, jackknife bool
	for _, m := range methods {
		secondLevel = secondLevel || m.method == analysis.CIExtrapolated
		itemsOnly = itemsOnly || m.oneWay
		jackknife = jackknife || m.method == analysis.CIBCa
	}
	cells := newBootCells(rs, ps)
	strata := itemStrata(rs)
	groups := append(append([]string{}, domain.TableTypes...), domain.TypeAll)
	nG, nS, B := len(groups), len(Stats), bs.Replicates
	tr := &toplinesReps{groups: groups, B: B, twoWay: make([]float64, B*nG*nS)}
	if secondLevel {
		tr.twoWay2 = make([]float64, B*nG*nS)
	}
	if itemsOnly {
		tr.oneWay = make([]float64, B*nG*nS)
	}
	for _, name := range groups {
		tt := t.ByType[name]
		tr.Points = append(tr.Points, []*float64{tt.ImplicatureRecognition, tt.CancellationRecognition, tt.BeliefUpdate,
			tt.NegationCancellation, tt.Strengthening, tt.Unchanged, tt.PearsonR, tt.PearsonRDisattenuated})
	}
	means, has, noise := itemMeanArrays(t.Items)
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
					var second []float64
					if tr.twoWay2 != nil {
						second = tr.twoWay2[b*nG*nS : (b+1)*nG*nS]
					}
					r.run(replicateRand(bs.Seed, b), tr.twoWay[b*nG*nS:(b+1)*nG*nS], second)
					if tr.oneWay != nil {
						r.runItems(itemsRand(bs.Seed, b), means, has, noise, tr.oneWay[b*nG*nS:(b+1)*nG*nS])
					}
				}
			}()
		}
		wg.Wait()
	} else {
		for _, vs := range [][]float64{tr.twoWay, tr.oneWay, tr.twoWay2} {
			for i := range vs {
				vs[i] = math.NaN()
			}
		}
	}
	full := make([]groupAcc, nG)
	for i := range means {
		full[rs.ItemType[i]].addItem(&means[i], &has[i], &noise[i], 1)
		full[nG-1].addItem(&means[i], &has[i], &noise[i], 1)
	}
	if jackknife {
		tr.jack = toplinesJackknife(rs.ItemType, means, has, noise, full, nS)
	}
	tr.ItemsCI = make([][]*analysis.CI, nG)
	for g, name := range groups {
		tr.ItemsCI[g] = make([]*analysis.CI, nS)
		xs, ys := pearsonPairs(t.Items, name)
		c := Correlate(xs, ys)
		if c.Lo != nil && c.Hi != nil {
			tr.ItemsCI[g][statR] = &analysis.CI{*c.Lo, *c.Hi}
		}
	}
	for g := range full {
		for k := range 6 {
			tr.ItemsCI[g][k] = analysis.Wilson(int(full[g].hits[k]), int(full[g].n[k]))
		}
	}
	return tr
}

// itemsRand is replicate b's generator of the items-only draws, a stream
// apart from the two-way draws'.
func itemsRand(seed uint64, b int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x6a09e667f3bcc909, 0xbb67ae8584caa73b^uint64(b)))
}

func itemMeanArrays(items []ItemMeans) ([][NumConditions]float64, [][NumConditions]bool, []cellNoise) {
	means, has := make([][NumConditions]float64, len(items)), make([][NumConditions]bool, len(items))
	noise := make([]cellNoise, len(items))
	for i := range items {
		for c := range NumConditions {
			means[i][c], has[i][c] = items[i].MeanZ[c], items[i].Has(c)
		}
		noise[i] = *itemNoise(&items[i])
	}
	return means, has, noise
}

// runItems computes one items-only replicate: the items of each type drawn
// with replacement, each with its estimated means.
func (r *toplinesReplicator) runItems(rng *rand.Rand, means [][NumConditions]float64, has [][NumConditions]bool, noise []cellNoise, out []float64) {
	analysis.DrawStrata(rng, r.strata, r.wi)
	clear(r.acc)
	all := &r.acc[len(domain.TableTypes)]
	for i, wi := range r.wi {
		if wi == 0 {
			continue
		}
		r.acc[r.itemType[i]].addItem(&means[i], &has[i], &noise[i], float64(wi))
		all.addItem(&means[i], &has[i], &noise[i], float64(wi))
	}
	r.acc2out(out)
}

// toplinesJackknife returns, per group and statistic, the statistic with
// each of the group's items left out in turn (BCa's acceleration); full
// holds every item, per group.
func toplinesJackknife(itemType []int8, means [][NumConditions]float64, has [][NumConditions]bool, noise []cellNoise, full []groupAcc, nS int) [][][]float64 {
	nG := len(full)
	jack := make([][][]float64, nG)
	for g := range jack {
		jack[g] = make([][]float64, nS)
	}
	r := &toplinesReplicator{acc: make([]groupAcc, nG)}
	one := make([]float64, nG*nS)
	for i := range means {
		for _, g := range []int{int(itemType[i]), nG - 1} {
			clear(r.acc)
			r.acc[g] = full[g]
			r.acc[g].addItem(&means[i], &has[i], &noise[i], -1)
			r.acc2out(one)
			for s := range nS {
				jack[g][s] = append(jack[g][s], one[g*nS+s])
			}
		}
	}
	return jack
}

// toplinesReplicator holds one worker's buffers.
type toplinesReplicator struct {
	cells    *bootCells
	strata   [][]int
	itemType []int8
	wp, wi   []int32
	// sums holds per slot Σ w·z, Σ w and Σ w·z² (the last for the rating
	// noise) side by side: a rating touches one cache line, not three
	// arrays' (docs/performance.md, bench toplines).
	sums []slotSums
	acc  []groupAcc
	// wp2, drawn from the participants wp drew, is the second level of
	// the extrapolated interval; pool lists wp's draws.
	wp2  []int32
	pool []int32
}

func newToplinesReplicator(rs *Ratings, cells *bootCells, strata [][]int) *toplinesReplicator {
	slots := len(rs.Items) * int(NumConditions)
	return &toplinesReplicator{cells: cells, strata: strata, itemType: rs.ItemType,
		wp: make([]int32, cells.nP), wi: make([]int32, len(rs.Items)), wp2: make([]int32, cells.nP),
		sums: make([]slotSums, slots), acc: make([]groupAcc, len(domain.TableTypes)+1)}
}

// groupAcc accumulates one group's weighted shares and r.
type groupAcc struct {
	hits, n                   [6]float64
	sw, sx, sy, sxx, syy, sxy float64
	// The rating noise of the items in r, without (0) and with (1)
	// cancellation, for the corrected r: Σ w/n, Σ w·SS, Σ w·(n−1).
	invN, ss, df [2]float64
}

// addItem adds one item's condition means (has: which it has) with weight
// w; a negative w takes an item out, for the jackknife. e, when not nil,
// is the item's rating noise.
func (a *groupAcc) addItem(m *[NumConditions]float64, has *[NumConditions]bool, e *cellNoise, w float64) {
	zt, zc := m[Trigger], m[Cancel]
	hasT, hasC := has[Trigger], has[Cancel]
	a.share(0, w, hasT, analysis.Above(zt, 0))
	a.share(1, w, hasT && hasC, analysis.Above(zt, zc))
	a.share(2, w, hasT && hasC, analysis.Above(zt, 0) && analysis.Above(zt, zc))
	a.share(3, w, hasT && has[Negation], analysis.Above(zt, m[Negation]))
	a.share(4, w, hasT && has[Strengthen], analysis.Above(m[Strengthen], zt))
	a.share(5, w, hasT && has[Neutral], analysis.Above(m[Neutral], 0) == analysis.Above(zt, 0))
	if hasT && hasC {
		a.sw += w
		a.sx += w * zt
		a.sy += w * zc
		a.sxx += w * zt * zt
		a.syy += w * zc * zc
		a.sxy += w * zt * zc
		a.addNoise(e, w)
	}
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

// run computes one replicate into out[group*len(toplinesStats)+stat] and,
// when out2 is not nil, the second-level replicate (participants drawn
// again from those drawn, the same items) into out2.
func (r *toplinesReplicator) run(rng *rand.Rand, out, out2 []float64) {
	drawToplines(rng, r.cells.nP, r.strata, r.wp, r.wi)
	r.score(r.wp, out)
	if out2 == nil {
		return
	}
	r.pool = r.pool[:0]
	for p, n := range r.wp {
		for range n {
			r.pool = append(r.pool, int32(p))
		}
	}
	clear(r.wp2)
	for range r.cells.nP {
		r.wp2[r.pool[rng.IntN(len(r.pool))]]++
	}
	r.score(r.wp2, out2)
}

// slotSums are one slot's weighted sums in a replicate.
type slotSums struct{ num, den, sq float64 }

// score computes the item means from the participants counted wp times
// and the shares and r over the items counted r.wi times.
func (r *toplinesReplicator) score(wp []int32, out []float64) {
	clear(r.sums)
	c := r.cells
	sums := r.sums
	for p, wi := range wp {
		if wi == 0 {
			continue
		}
		w := float64(wi)
		lo, mid, hi := c.start[p], c.mid[p], c.start[p+1]
		zt := c.ztab[p*c.width : (p+1)*c.width]
		slots, vals := c.slot[lo:mid], c.value[lo:mid]
		for k, s := range slots { // trigger and cancel: with Σ w·z²
			z := zt[vals[k]]
			wz := w * z
			a := &sums[s]
			a.num += wz
			a.den += w
			a.sq += wz * z
		}
		slots, vals = c.slot[mid:hi], c.value[mid:hi]
		for k, s := range slots {
			a := &sums[s]
			a.num += w * zt[vals[k]]
			a.den += w
		}
	}
	clear(r.acc)
	all := &r.acc[len(domain.TableTypes)]
	const nc = int(NumConditions)
	for i, wi := range r.wi {
		if wi == 0 {
			continue
		}
		var m [NumConditions]float64
		var has [NumConditions]bool
		for cond := range nc {
			if a := &sums[i*nc+cond]; a.den > 0 {
				m[cond], has[cond] = a.num/a.den, true
			}
		}
		var e cellNoise
		for k, cond := range [2]int{int(Trigger), int(Cancel)} {
			if a := &sums[i*nc+cond]; a.den > 0 {
				e.n[k], e.ss[k] = a.den, max(0, a.sq-a.num*m[cond])
			}
		}
		w := float64(wi)
		r.acc[r.itemType[i]].addItem(&m, &has, &e, w)
		all.addItem(&m, &has, &e, w)
	}
	r.acc2out(out)
}

// acc2out writes each group's shares and r into out[group*len(toplinesStats)+stat].
func (r *toplinesReplicator) acc2out(out []float64) {
	nS := len(Stats)
	for g := range r.acc {
		a := &r.acc[g]
		o := out[g*nS : (g+1)*nS]
		for k := range 6 {
			o[k] = math.NaN()
			if a.n[k] > 0 {
				o[k] = a.hits[k] / a.n[k]
			}
		}
		o[statR] = weightedR(a)
		o[StatRDis], _, _, _ = disattenuated(a)
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

// IntervalMethods are the methods in use, by Stats index, as the
// coverage study chose them (docs/statistics.md#interval-coverage).
var IntervalMethods = []toplinesMethod{
	{analysis.CIExtrapolated, false, true}, {analysis.CIExtrapolated, false, true}, {analysis.CIBasic, false, true}, {analysis.CIExtrapolated, false, true},
	{analysis.CIExtrapolated, false, true}, {analysis.CIExtrapolated, false, true}, {analysis.CIExtrapolated, false, true},
	{analysis.CIDisattenuatedUnion, false, false},
}
