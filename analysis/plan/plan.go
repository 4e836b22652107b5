// Package plan says how many participants and items a study needs, builds
// crowd and expert batches, and simulates studies to check the intervals'
// coverage.
package plan

import (
	"fmt"
	"gonum.org/v1/gonum/mat"
	"math"
	"math/rand/v2"
	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"slices"
	"strconv"
)

// The planner (docs/statistics.md#planning-a-study): from a pilot's
// ratings, the 95 % intervals every topline would have with N
// participants (and, optionally, M items). It uses the same two-way model
// as the intervals themselves: a planned study is simulated by resampling
// the pilot's participants (within the groups that rated the same
// screens, so the batches stay balanced) and, with M items, its items;
// the simulated study's two-way bootstrap gives the interval's two half
// widths, averaged over several simulated studies and set around the
// pilot's own estimate. More participants shrink only the participants'
// share of the uncertainty: the items' share stays, and the report says
// how large it is.

// MinPlanParticipants is the fewest analysed participants a pilot must
// have: fewer say too little about how participants vary.
const MinPlanParticipants = 10

// PlanOptions say what to plan.
type PlanOptions struct {
	// Participants are the planned numbers of participants (each > 0).
	Participants []int
	// Items is the planned number of items (0: the pilot's).
	Items int
	// Draws is how many studies are simulated per plan (0: 4).
	Draws int
	// Options are the toplines' options; Bootstrap sets the replicates
	// of each simulated study's interval (0 replicates: 500).
	Options toplines.Options
}

// Plan is the predicted toplines of a study of Participants participants
// and Items items. ByType mirrors Toplines.ByType: the pilot's estimates,
// with the predicted intervals.
type Plan struct {
	Participants int                               `json:"participants"`
	Items        int                               `json:"items"`
	ByType       map[string]*toplines.TypeToplines `json:"by_type"`
	// ItemsShare is, per type and quantity, the share of the interval's
	// squared width that the items carry and more participants do not
	// shrink (a fit of width² = a + b/N over the plans; null with fewer
	// than two numbers of participants to fit).
	ItemsShare map[string]map[string]*float64 `json:"items_share,omitempty"`
}

// PlanReport is the planner's answer.
type PlanReport struct {
	Pilot PlanPilot `json:"pilot"`
	Plans []Plan    `json:"plans"`
	Draws int       `json:"draws"`
	Note  string    `json:"note"`
}

// PlanPilot is what the plans were made from.
type PlanPilot struct {
	Participants int                               `json:"participants"`
	Analysed     int                               `json:"analysed"`
	Items        int                               `json:"items"`
	ByType       map[string]*toplines.TypeToplines `json:"by_type"`
}

// PlanQuantities are the toplines a plan predicts, with their intervals.
var PlanQuantities = []string{toplines.MImplicature, toplines.MCancellation, toplines.MBeliefUpdate, toplines.MNegation, toplines.MStrengthen, toplines.MUnchanged, "pearson_r"}

// PlanNote says what the planner does and does not promise.
const PlanNote = "Predicted 95% intervals, centred on the pilot's estimates, from studies simulated by resampling the pilot's participants (and items); more participants shrink only the participants' share of the uncertainty — items_share is the part only more items shrink."

// PlanToplines predicts the intervals of the toplines for each planned
// number of participants.
func PlanToplines(rs *toplines.Ratings, opt PlanOptions) (*PlanReport, error) {
	if len(opt.Participants) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "name at least one number of participants to plan for")
	}
	for _, n := range opt.Participants {
		if n <= 0 {
			return nil, domain.Errorf(domain.EINVALID, "--participants: %d is not a number of participants (it must be at least 1)", n)
		}
	}
	if opt.Items < 0 {
		return nil, domain.Errorf(domain.EINVALID, "--items: %d is not a number of items", opt.Items)
	}
	if opt.Draws <= 0 {
		opt.Draws = 4
	}
	if opt.Options.Bootstrap.Replicates <= 0 {
		opt.Options.Bootstrap.Replicates = 500
	}
	pilotOpt := opt.Options
	pilotOpt.Bootstrap.Replicates = 0
	pilot := toplines.ComputeToplines(rs, pilotOpt)
	if pilot.Participants.Analysed < MinPlanParticipants {
		return nil, domain.Errorf(domain.EINVALID, "the pilot has %d analysed participants; the planner cannot plan from fewer than %d", pilot.Participants.Analysed, MinPlanParticipants)
	}
	sim := newPlanSim(rs, pilot, pilotOpt)
	items := opt.Items
	if items == 0 {
		items = len(sim.items)
	}
	rep := &PlanReport{
		Pilot: PlanPilot{Participants: pilot.Participants.Total, Analysed: pilot.Participants.Analysed, Items: len(sim.items), ByType: pilot.ByType},
		Draws: opt.Draws, Note: PlanNote,
	}
	for k, n := range opt.Participants {
		hw := map[string]map[string][2]float64{}
		for d := range opt.Draws {
			seed := opt.Options.Bootstrap.Seed + uint64(k*1000+d)
			study := sim.study(rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), n, items)
			o := opt.Options
			o.Bootstrap.Seed = seed
			t := toplines.ComputeToplines(study, o)
			addHalfWidths(hw, t, 1/float64(opt.Draws))
		}
		rep.Plans = append(rep.Plans, Plan{Participants: n, Items: items, ByType: centred(pilot.ByType, hw)})
	}
	fitItemsShare(rep.Plans)
	return rep, nil
}

// addHalfWidths adds w times each interval's two half widths (below and
// above the simulated study's own estimate) to hw.
func addHalfWidths(hw map[string]map[string][2]float64, t *toplines.Toplines, w float64) {
	for typ, tt := range t.ByType {
		for _, q := range PlanQuantities {
			point, ci := tt.Quantity(q)
			if point == nil || ci == nil {
				continue
			}
			if hw[typ] == nil {
				hw[typ] = map[string][2]float64{}
			}
			h := hw[typ][q]
			h[0] += w * (*point - ci[0])
			h[1] += w * (ci[1] - *point)
			hw[typ][q] = h
		}
	}
}

// centred sets the half widths around the pilot's estimates, within the
// quantity's range (shares in [0, 1], r in [−1, 1]).
func centred(pilot map[string]*toplines.TypeToplines, hw map[string]map[string][2]float64) map[string]*toplines.TypeToplines {
	out := map[string]*toplines.TypeToplines{}
	for typ, p := range pilot {
		tt := &toplines.TypeToplines{Items: p.Items, LeftOut: p.LeftOut, PearsonN: p.PearsonN}
		for _, q := range PlanQuantities {
			point, _ := p.Quantity(q)
			h, ok := hw[typ][q]
			if point == nil || !ok {
				continue
			}
			lo := 0.0
			if q == "pearson_r" {
				lo = -1
			}
			ci := &analysis.CI{max(lo, *point-h[0]), min(1, *point+h[1])}
			v := *point
			tt.SetQuantity(q, &v, ci)
		}
		out[typ] = tt
	}
	return out
}

// fitItemsShare fits width² = a + b/N per type and quantity over the
// plans of the same number of items and reports a/width² for each plan.
func fitItemsShare(plans []Plan) {
	ns := map[int]bool{}
	for _, p := range plans {
		ns[p.Participants] = true
	}
	if len(ns) < 2 {
		return
	}
	for i := range plans {
		plans[i].ItemsShare = map[string]map[string]*float64{}
		for typ, tt := range plans[i].ByType {
			plans[i].ItemsShare[typ] = map[string]*float64{}
			for _, q := range PlanQuantities {
				_, ci := tt.Quantity(q)
				if ci == nil {
					continue
				}
				var xs, ys []float64
				for _, p := range plans {
					if _, c := p.ByType[typ].Quantity(q); c != nil {
						xs = append(xs, 1/float64(p.Participants))
						ys = append(ys, (c[1]-c[0])*(c[1]-c[0]))
					}
				}
				a, _, ok := fitLine(xs, ys)
				if !ok {
					continue
				}
				w2 := (ci[1] - ci[0]) * (ci[1] - ci[0])
				if w2 <= 0 {
					continue
				}
				share := min(1, max(0, a/w2))
				plans[i].ItemsShare[typ][q] = &share
			}
		}
	}
}

// fitLine is the least-squares line y = a + b·x through (xs, ys); false
// when there are fewer than two points or the xs do not vary.
func fitLine(xs, ys []float64) (a, b float64, ok bool) {
	n := float64(len(xs))
	if n < 2 {
		return 0, 0, false
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	den := n*sxx - sx*sx
	if math.Abs(den) < 1e-18 {
		return 0, 0, false
	}
	b = (n*sxy - sx*sy) / den
	return (sy - b*sx) / n, b, true
}

// Quantity returns a topline of t and its interval by its JSON name.
func Quantity(t *toplines.TypeToplines, q string) (*float64, *analysis.CI) { return t.Quantity(q) }

// planSim holds the pilot as the simulation resamples it: each analysed
// participant's rows, grouped by the screens they rated, how each used
// the scale, the items' means and the pool of rating noise.
//
// A planned participant is a pilot participant drawn with replacement —
// their screens, checks and use of the scale (mean and SD) — who rates
// each data screen anew: the item's mean z in that condition, shrunk
// towards its type's mean by its reliability (so the pilot's few ratings
// per item do not make the items look more different than they are), plus
// a residual drawn from the pilot's pool, put back on their scale.
// Copying the pilot participant's own ratings instead would make four
// copies of one person look like four people, and the planned study's
// item means no more precise than the pilot's.
type planSim struct {
	src    *toplines.Ratings
	items  []int32           // the pilot's data items (checks apart)
	rows   [][]int           // per pilot participant: indices into flat
	flat   []toplines.Rating // every row of the pilot
	groups [][]int32         // participants who rated the same screens
	ps     []toplines.Pstat  // the pilot participants' scale use
	truth  []float64         // per item × condition: the shrunk mean z
	resid  []float64         // the pool of residuals, z minus the cell mean
	top    uint8             // the scale's top point
}

func newPlanSim(rs *toplines.Ratings, pilot *toplines.Toplines, opt toplines.Options) *planSim {
	s := &planSim{src: rs, rows: make([][]int, len(rs.Participants)), ps: toplines.ParticipantStats(rs, opt), top: domain.RatingMax}
	seen := map[int32]bool{}
	rs.Each(func(rt *toplines.Rating) {
		s.rows[rt.Participant] = append(s.rows[rt.Participant], len(s.flat))
		s.flat = append(s.flat, *rt)
		if rt.Check == 0 && !seen[rt.Item] {
			seen[rt.Item] = true
			s.items = append(s.items, rt.Item)
		}
	})
	slices.Sort(s.items)
	excluded := map[string]bool{}
	for _, d := range pilot.Participants.Details {
		if d.Excluded || d.ZeroVariance || d.ChecksOnly {
			excluded[d.ID] = true
		}
	}
	byScreens := map[string]int{}
	for p, idx := range s.rows {
		if len(idx) == 0 || excluded[rs.Participants[p]] {
			continue
		}
		key := s.screens(idx)
		g, ok := byScreens[key]
		if !ok {
			g = len(s.groups)
			byScreens[key] = g
			s.groups = append(s.groups, nil)
		}
		s.groups[g] = append(s.groups[g], int32(p))
	}
	// Groups of one say nothing about how a batch's participants vary:
	// with mostly such groups (no shared batches), resample them all as one.
	singles := 0
	for _, g := range s.groups {
		if len(g) == 1 {
			singles++
		}
	}
	if singles*2 > len(s.groups) {
		var all []int32
		for _, g := range s.groups {
			all = append(all, g...)
		}
		s.groups = [][]int32{all}
	}
	s.cells(pilot.Items)
	return s
}

// cells sets the shrunk item means and the residual pool.
func (s *planSim) cells(items []toplines.ItemMeans) {
	nc := int(toplines.NumConditions)
	s.truth = make([]float64, len(s.src.Items)*nc)
	for i := range s.src.Items {
		for c := range nc {
			s.truth[i*nc+c] = items[i].MeanZ[c]
		}
	}
	sq := make([]float64, len(s.truth)) // per cell: the sum of squared residuals
	for _, rt := range s.flat {
		p := &s.ps[rt.Participant]
		if rt.Check != toplines.CheckNone || p.Excluded || p.ZeroVar {
			continue
		}
		k := int(rt.Item)*nc + int(rt.Cond)
		r := (float64(rt.Value)-p.Mean)/p.SD - s.truth[k]
		sq[k] += r * r
		if n := items[rt.Item].N[rt.Cond]; n > 1 {
			// a residual around a mean of n is short by √((n−1)/n)
			r *= math.Sqrt(float64(n) / float64(n-1))
		}
		s.resid = append(s.resid, r)
	}
	for t := range domain.TableTypes {
		s.deattenuate(t, items, sq)
	}
}

// deattenuate replaces the pilot's means of the items of type t, in the
// conditions they were all rated in, by means that spread and co-vary as
// the items' true means do: the raw means' covariance Σ less the noise's
// (D, each cell's squared standard error) is the true covariance T, and
// each item's means m become μ + T^½ Σ^−½ (m − μ) (a constrained Bayes
// estimate in several dimensions; Louis 1984). Shrinking each cell alone
// would leave the correlation between conditions as attenuated as the
// pilot's, and a planned study of many participants would see items
// noisier than they are.
func (s *planSim) deattenuate(t int, items []toplines.ItemMeans, sq []float64) {
	nc := int(toplines.NumConditions)
	conds, ids := s.ratedIn(t, items)
	k := len(conds)
	if k == 0 || len(ids) <= k+1 {
		return // too few items to estimate their covariance: left as they are
	}
	mu, raw, trueCov := s.covariances(conds, ids, items, sq)
	rootT, ok1 := symPow(trueCov, 0.5)
	invRootS, ok2 := symPow(raw, -0.5)
	if !ok1 || !ok2 {
		return
	}
	var A mat.Dense
	A.Mul(rootT, invRootS)
	d := mat.NewVecDense(k, nil)
	var out mat.VecDense
	for _, i := range ids {
		for j, c := range conds {
			d.SetVec(j, s.truth[i*nc+c]-mu[j])
		}
		out.MulVec(&A, d)
		for j, c := range conds {
			s.truth[i*nc+c] = mu[j] + out.AtVec(j)
		}
	}
}

// ratedIn are the conditions some item of type t was rated in by more
// than one participant, and the items of type t rated so in all of them.
func (s *planSim) ratedIn(t int, items []toplines.ItemMeans) (conds, ids []int) {
	for c := range int(toplines.NumConditions) {
		rated := false
		for i := range s.src.Items {
			if int(s.src.ItemType[i]) == t && items[i].N[c] > 1 {
				rated = true
			}
		}
		if rated {
			conds = append(conds, c)
		}
	}
	for i := range s.src.Items {
		if int(s.src.ItemType[i]) != t {
			continue
		}
		ok := true
		for _, c := range conds {
			ok = ok && items[i].N[c] > 1
		}
		if ok {
			ids = append(ids, i)
		}
	}
	return conds, ids
}

// covariances are the items' mean per condition μ, the raw means'
// covariance Σ, and the true covariance T: Σ less the noise's mean
// squared standard error on the diagonal.
func (s *planSim) covariances(conds, ids []int, items []toplines.ItemMeans, sq []float64) (mu []float64, raw, trueCov *mat.SymDense) {
	nc, k := int(toplines.NumConditions), len(conds)
	mu = make([]float64, k)
	for _, i := range ids {
		for j, c := range conds {
			mu[j] += s.truth[i*nc+c] / float64(len(ids))
		}
	}
	raw = mat.NewSymDense(k, nil)
	noise := make([]float64, k)
	for _, i := range ids {
		for a, ca := range conds {
			da := s.truth[i*nc+ca] - mu[a]
			for b := a; b < k; b++ {
				raw.SetSym(a, b, raw.At(a, b)+da*(s.truth[i*nc+conds[b]]-mu[b])/float64(len(ids)-1))
			}
			n := float64(items[i].N[ca])
			noise[a] += sq[i*nc+ca] / (n - 1) / n / float64(len(ids))
		}
	}
	trueCov = mat.NewSymDense(k, nil)
	for a := range k {
		for b := a; b < k; b++ {
			v := raw.At(a, b)
			if a == b {
				v -= noise[a]
			}
			trueCov.SetSym(a, b, v)
		}
	}
	return mu, raw, trueCov
}

// symPow is S^p of a symmetric matrix through its eigenvalues, those
// below zero taken as zero (a negative p needs them all positive).
func symPow(S *mat.SymDense, p float64) (*mat.Dense, bool) {
	var eig mat.EigenSym
	if !eig.Factorize(S, true) {
		return nil, false
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	k := len(vals)
	d := mat.NewDiagDense(k, nil)
	for i, v := range vals {
		switch {
		case v > 1e-12:
			d.SetDiag(i, math.Pow(v, p))
		case p < 0:
			return nil, false
		}
	}
	var tmp, out mat.Dense
	tmp.Mul(&vecs, d)
	out.Mul(&tmp, vecs.T())
	return &out, true
}

// rate is a planned participant's rating of a data screen: the cell's
// mean plus a residual from the pool, on the pilot participant's scale.
func (s *planSim) rate(rng *rand.Rand, src int32, item int32, c toplines.Condition) uint8 {
	p := &s.ps[src]
	z := s.truth[int(item)*int(toplines.NumConditions)+int(c)]
	if len(s.resid) > 0 {
		z += s.resid[rng.IntN(len(s.resid))]
	}
	if math.IsNaN(z) {
		z = 0
	}
	v := math.Round(p.Mean + p.SD*z)
	return uint8(max(1, min(float64(s.top), v)))
}

// screens is a participant's screens (item and condition of each row) as a
// key.
func (s *planSim) screens(idx []int) string {
	keys := make([]uint64, len(idx))
	for i, j := range idx {
		rt := s.flat[j]
		keys[i] = uint64(rt.Item)<<16 | uint64(rt.Check)<<8 | uint64(rt.Cond)
	}
	slices.Sort(keys)
	b := make([]byte, 0, 8*len(keys))
	for _, k := range keys {
		b = strconv.AppendUint(b, k, 36)
		b = append(b, ',')
	}
	return string(b)
}

// study simulates a study of n participants and m items: n participants
// drawn from the pilot's groups in proportion to them, and, when m
// differs from the pilot's, m items drawn with replacement from the
// pilot's, each copy of an item taking its share of that item's ratings.
func (s *planSim) study(rng *rand.Rand, n, m int) *toplines.Ratings {
	out := &toplines.Ratings{Items: nil, CheckItems: s.src.CheckItems}
	itemOf := s.itemMap(rng, m, out)
	copies := map[int32][]int32{}
	for newItem, src := range itemOf {
		copies[src] = append(copies[src], int32(newItem))
	}
	total := 0
	for _, g := range s.groups {
		total += len(g)
	}
	line := int32(1)
	next := map[int32]int{}
	made := 0
	for gi, g := range s.groups {
		k := n * len(g) / total
		if gi == len(s.groups)-1 {
			k = n - made
		}
		for range k {
			src := g[rng.IntN(len(g))]
			p := int32(len(out.Participants))
			out.Participants = append(out.Participants, "sim"+strconv.Itoa(int(p)))
			for _, j := range s.rows[src] {
				rt := s.flat[j]
				rt.Participant = p
				if rt.Check == 0 {
					rt.Value = s.rate(rng, src, rt.Item, rt.Cond)
					orig := rt.Item
					cs := copies[orig]
					if len(cs) == 0 {
						continue // an item the planned study leaves out
					}
					rt.Item = cs[next[orig]%len(cs)]
					next[orig]++
				}
				line++
				rt.Line = line
				out.Add(rt)
			}
		}
		made += k
	}
	return out
}

// itemMap draws the planned study's m items from the pilot's and names
// them in out; it returns, per new item, its pilot item.
func (s *planSim) itemMap(rng *rand.Rand, m int, out *toplines.Ratings) []int32 {
	var src []int32
	if m == len(s.items) {
		src = s.items
	} else {
		src = make([]int32, m)
		for i := range src {
			src[i] = s.items[rng.IntN(len(s.items))]
		}
	}
	for i, it := range src {
		out.Items = append(out.Items, fmt.Sprintf("%s#%d", s.src.Items[it], i))
		out.ItemType = append(out.ItemType, s.src.ItemType[it])
	}
	return src
}
