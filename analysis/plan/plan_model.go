package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// planModel is the pilot fitted as a generative model
// (docs/statistics.md#planning-a-study), from which planned studies are
// drawn. On the pilot's z scale, item i in condition c has a true mean
// μ_ic and a rating noise σ_ic; a planned participant has a bias a and a
// scale b drawn from the pilot participants' (mean, log SD), rates the
// screens of one of the pilot's batches and gives item i in c the rating
// round(a + b·(μ_ic + σ_ic·ε)), ε ~ N(0, 1), clamped to the scale.
//
// The planned participants are fresh draws of the model, not copies of
// the pilot's: a copy keeps the pilot participant's own noise, and four
// copies of one person look like four people. The μ_ic are the pilot's
// item means with their noise taken out (deattenuate), so the items
// spread and co-vary as the true means do: a planned study of many
// raters sees the correlation the items have, not the pilot's attenuated
// one.
type planModel struct {
	src    *toplines.Ratings
	items  []int32                         // the pilot's data items, sorted
	groups [][]screen                      // the screens of each batch of the pilot
	share  []float64                       // each batch's share of the analysed participants
	truth  []float64                       // per item × condition: the true mean z μ_ic
	noise  []float64                       // per item × condition: the rating noise σ_ic (z)
	scaleM [2]float64                      // the participants' mean of (mean rating, log SD)
	scaleL [3]float64                      // the Cholesky factor of their covariance: l00, l10, l11
	top    float64                         // the scale's top point
	pooled [toplines.NumConditions]float64 // the pilot's within-cell variance of z per condition
	opt    toplines.Options                // the pilot's options, without replicates
	most   int                             // the most screens a planned participant rates
}

// screen is one data screen a participant rates: an item in a condition.
type screen struct {
	item int32
	cond toplines.Condition
}

// noisePrior is the weight, in ratings, of the pooled noise variance in
// each cell's: a cell of n ratings gets (SS + k·s²)/(n − 1 + k).
const noisePrior = 4

func newPlanModel(rs *toplines.Ratings, pilot *toplines.Toplines, opt toplines.Options) *planModel {
	m := &planModel{src: rs, top: float64(domain.RatingMax)}
	ps := toplines.ParticipantStats(rs, opt)
	mine := make([][]screen, len(rs.Participants))
	seen := map[int32]bool{}
	rs.Each(func(rt *toplines.Rating) {
		if rt.Check != toplines.CheckNone {
			return
		}
		if !seen[rt.Item] {
			seen[rt.Item] = true
			m.items = append(m.items, rt.Item)
		}
		if p := ps[rt.Participant]; !p.Excluded && !p.ZeroVar {
			mine[rt.Participant] = append(mine[rt.Participant], screen{rt.Item, rt.Cond})
		}
	})
	slices.Sort(m.items)
	byKey := map[string]int{}
	var count []int
	var scales [][2]float64
	for p, sc := range mine {
		if len(sc) == 0 {
			continue
		}
		slices.SortFunc(sc, func(a, b screen) int {
			return int(a.item)*int(toplines.NumConditions) + int(a.cond) - int(b.item)*int(toplines.NumConditions) - int(b.cond)
		})
		key := screensKey(sc)
		g, ok := byKey[key]
		if !ok {
			g = len(m.groups)
			byKey[key] = g
			m.groups = append(m.groups, sc)
			count = append(count, 0)
			m.most = max(m.most, len(sc))
		}
		count[g]++
		scales = append(scales, [2]float64{ps[p].Mean, math.Log(ps[p].SD)})
	}
	total := 0
	for _, c := range count {
		total += c
	}
	for _, c := range count {
		m.share = append(m.share, float64(c)/float64(total))
	}
	m.opt = opt
	m.fitScales(scales)
	m.fitItems(pilot.Items, scales)
	m.calibrate(pilot.Items)
	return m
}

// screensKey is a participant's sorted screens as a map key.
func screensKey(sc []screen) string {
	b := make([]byte, 0, 6*len(sc))
	for _, s := range sc {
		b = strconv.AppendUint(b, uint64(s.item)<<4|uint64(s.cond), 36)
		b = append(b, ',')
	}
	return string(b)
}

// fitScales fits a bivariate normal to the participants' mean rating and
// log SD.
func (m *planModel) fitScales(xs [][2]float64) {
	n := float64(len(xs))
	for _, x := range xs {
		m.scaleM[0] += x[0] / n
		m.scaleM[1] += x[1] / n
	}
	var c00, c01, c11 float64
	for _, x := range xs {
		d0, d1 := x[0]-m.scaleM[0], x[1]-m.scaleM[1]
		c00, c01, c11 = c00+d0*d0/(n-1), c01+d0*d1/(n-1), c11+d1*d1/(n-1)
	}
	l00 := math.Sqrt(c00)
	l10 := 0.0
	if l00 > 0 {
		l10 = c01 / l00
	}
	m.scaleL = [3]float64{l00, l10, math.Sqrt(max(0, c11-l10*l10))}
}

// fitItems sets the true means (the pilot's item means, deattenuated)
// and each cell's rating noise: its within-cell variance, pooled towards
// the condition's with the weight of noisePrior ratings, less the
// rounding's variance, which the planned ratings add again.
func (m *planModel) fitItems(items []toplines.ItemMeans, scales [][2]float64) {
	nc := int(toplines.NumConditions)
	m.truth = make([]float64, len(m.src.Items)*nc)
	m.noise = make([]float64, len(m.truth))
	var ss, df [toplines.NumConditions]float64
	for i := range m.src.Items {
		for c := range nc {
			m.truth[i*nc+c] = items[i].MeanZ[c]
			if n := items[i].N[c]; n > 1 {
				ss[c] += items[i].SS[c]
				df[c] += float64(n - 1)
			}
		}
	}
	var pooled [toplines.NumConditions]float64
	var all, allDF float64
	for c := range nc {
		all += ss[c]
		allDF += df[c]
	}
	for c := range nc {
		switch {
		case df[c] > 0:
			pooled[c] = ss[c] / df[c]
		case allDF > 0:
			pooled[c] = all / allDF
		default:
			pooled[c] = 0.5
		}
	}
	// A rating rounded to a point has the variance 1/12 of the rounding,
	// 1/(12·SD²) in z: already in the pilot's noise, and added again when
	// a planned rating is rounded.
	rounding := 0.0
	for _, x := range scales {
		rounding += math.Exp(-2*x[1]) / 12 / float64(len(scales))
	}
	for i := range m.src.Items {
		for c := range nc {
			n := float64(max(items[i].N[c], 1))
			v := (items[i].SS[c] + noisePrior*pooled[c]) / (n - 1 + noisePrior)
			m.noise[i*nc+c] = math.Sqrt(max(v-rounding, v/2))
		}
	}
	done := m.deattenuate(items)
	m.deattenuateEach(items, pooled, done)
	m.pooled = pooled
}

// deattenuate replaces the pilot's item means, in the conditions every
// item was rated in more than once, by means that spread and co-vary as
// the items' true means do: the raw means' covariance Σ within types
// (pooled over the types, each about its own mean μ_t) less the noise's
// (D, each cell's squared standard error) is the items' true covariance
// T, and each item's means x become μ_t + T^½ Σ^−½ (x − μ_t) — a
// constrained Bayes estimate in several dimensions (Louis 1984, JASA
// 79:393–398). Shrinking each cell alone would leave the correlation
// between conditions as attenuated as the pilot's.
func (m *planModel) deattenuate(items []toplines.ItemMeans) (done map[int]bool) {
	nc := int(toplines.NumConditions)
	var conds, ids []int
	for c := range nc {
		for i := range m.src.Items {
			if items[i].N[c] > 1 {
				conds = append(conds, c)
				break
			}
		}
	}
	types := map[int8]int{}
	for i := range m.src.Items {
		ok := true
		for _, c := range conds {
			ok = ok && items[i].N[c] > 1
		}
		if ok {
			ids = append(ids, i)
			types[m.src.ItemType[i]]++
		}
	}
	k := len(conds)
	df := len(ids) - len(types)
	if k == 0 || df <= k {
		return nil // too few items to estimate their covariance: deattenuateEach
	}
	mu := map[int8][]float64{}
	for _, i := range ids {
		t := m.src.ItemType[i]
		if mu[t] == nil {
			mu[t] = make([]float64, k)
		}
		for j, c := range conds {
			mu[t][j] += m.truth[i*nc+c] / float64(types[t])
		}
	}
	raw := mat.NewSymDense(k, nil)
	noise := make([]float64, k)
	for _, i := range ids {
		t := m.src.ItemType[i]
		for a, ca := range conds {
			da := m.truth[i*nc+ca] - mu[t][a]
			for b := a; b < k; b++ {
				raw.SetSym(a, b, raw.At(a, b)+da*(m.truth[i*nc+conds[b]]-mu[t][b])/float64(df))
			}
			n := float64(items[i].N[ca])
			noise[a] += items[i].SS[ca] / (n - 1) / n / float64(len(ids))
		}
	}
	trueCov := mat.NewSymDense(k, nil)
	for a := range k {
		for b := a; b < k; b++ {
			v := raw.At(a, b)
			if a == b {
				v -= noise[a]
			}
			trueCov.SetSym(a, b, v)
		}
	}
	rootT, ok1 := symPow(trueCov, 0.5)
	invRootS, ok2 := symPow(raw, -0.5)
	if !ok1 || !ok2 {
		return nil
	}
	var A mat.Dense
	A.Mul(rootT, invRootS)
	d := mat.NewVecDense(k, nil)
	var out mat.VecDense
	for _, i := range ids {
		t := m.src.ItemType[i]
		for j, c := range conds {
			d.SetVec(j, m.truth[i*nc+c]-mu[t][j])
		}
		out.MulVec(&A, d)
		for j, c := range conds {
			m.truth[i*nc+c] = mu[t][j] + out.AtVec(j)
		}
	}
	done = map[int]bool{}
	for _, i := range ids {
		done[i] = true
	}
	return done
}

// deattenuateEach shrinks, condition by condition, the means of the items
// deattenuate left (all of them where no item was rated in every
// condition more than once, as in a design where each item is shown in
// one condition): x becomes μ_t + √((v − ē)/v)·(x − μ_t), v the means'
// variance within types and ē their mean squared standard error from the
// condition's pooled noise — the one-dimensional constrained Bayes
// estimate.
func (m *planModel) deattenuateEach(items []toplines.ItemMeans, pooled [toplines.NumConditions]float64, done map[int]bool) {
	nc := int(toplines.NumConditions)
	for c := range nc {
		var ids []int
		sum, cnt := map[int8]float64{}, map[int8]int{}
		for i := range m.src.Items {
			if items[i].N[c] > 0 && !done[i] {
				ids = append(ids, i)
				sum[m.src.ItemType[i]] += m.truth[i*nc+c]
				cnt[m.src.ItemType[i]]++
			}
		}
		df := len(ids) - len(cnt)
		if df < 2 {
			continue
		}
		var v, e float64
		for _, i := range ids {
			t := m.src.ItemType[i]
			d := m.truth[i*nc+c] - sum[t]/float64(cnt[t])
			v += d * d / float64(df)
			e += pooled[c] / float64(items[i].N[c]) / float64(len(ids))
		}
		if v <= 0 {
			continue
		}
		f := math.Sqrt(max(0, v-e) / v)
		for _, i := range ids {
			t := m.src.ItemType[i]
			mu := sum[t] / float64(cnt[t])
			m.truth[i*nc+c] = mu + f*(m.truth[i*nc+c]-mu)
		}
	}
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
	d := mat.NewDiagDense(len(vals), nil)
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

// study draws a planned study of n participants and m items, the draw-th
// of its seed. The draws are common random numbers across n: participant
// j has a stream of their own (their bias, scale, batch and noise), the
// same whatever n, so a study of 2n participants is the study of n with
// n more, and widths differ by the participants rather than by the luck
// of the draw.
func (m *planModel) study(seed uint64, draw, n, items int) *toplines.Ratings {
	out := &toplines.Ratings{}
	copies := m.itemMap(rand.New(rand.NewPCG(seed, 0x51ed2701+uint64(draw))), items, out)
	next := make([]int, len(m.src.Items))
	got := make([]float64, len(m.groups))
	nc := int(toplines.NumConditions)
	line := int32(0)
	for j := range n {
		rng := rand.New(rand.NewPCG(seed^uint64(draw+1)*0x9e3779b97f4a7c15, uint64(j)))
		u1, u2 := rng.NormFloat64(), rng.NormFloat64()
		a := m.scaleM[0] + m.scaleL[0]*u1
		b := math.Exp(m.scaleM[1] + m.scaleL[1]*u1 + m.scaleL[2]*u2)
		// The batch furthest behind its share of the j+1 so far: the
		// batches stay balanced at every n, and the order is n's prefix.
		g := 0
		for k := range m.groups {
			if m.share[k]*float64(j+1)-got[k] > m.share[g]*float64(j+1)-got[g] {
				g = k
			}
		}
		got[g]++
		p := int32(len(out.Participants))
		out.Participants = append(out.Participants, "sim"+strconv.Itoa(j))
		for _, s := range m.groups[g] {
			k := int(s.item)*nc + int(s.cond)
			z := m.truth[k] + m.noise[k]*rng.NormFloat64()
			cs := copies[s.item]
			if len(cs) == 0 {
				continue // an item the planned study leaves out
			}
			item := cs[next[s.item]%len(cs)]
			next[s.item]++
			line++
			v := max(1, min(m.top, math.Round(a+b*z)))
			out.Add(toplines.Rating{Participant: p, Item: item, Line: line, Cond: s.cond, Value: uint8(v)})
		}
	}
	return out
}

// itemMap names the planned study's items in out and returns, per pilot
// item, its copies there: the pilot's items themselves, or m items drawn
// with replacement from them, each copy taking its share of the
// original's screens.
func (m *planModel) itemMap(rng *rand.Rand, items int, out *toplines.Ratings) [][]int32 {
	src := m.items
	if items != len(m.items) {
		src = make([]int32, items)
		for i := range src {
			src[i] = m.items[rng.IntN(len(m.items))]
		}
	}
	copies := make([][]int32, len(m.src.Items))
	for i, it := range src {
		out.Items = append(out.Items, fmt.Sprintf("%s#%d", m.src.Items[it], i))
		out.ItemType = append(out.ItemType, m.src.ItemType[it])
		copies[it] = append(copies[it], int32(i))
	}
	return copies
}

// Calibration (docs/statistics.md#planning-a-study). A planned rating is
// rounded and kept within the scale, which narrows its spread; but the
// pilot's noise was measured on ratings already rounded and kept within
// the scale, so drawing it again through the scale's ends narrows it
// twice: on the ordinal validation generator, the planned studies'
// within-cell variance of z was up to 14 % below the pilot's in the
// conditions whose ratings crowd an end (strengthening, trigger), and
// the planned intervals of shares there too narrow (cancellation
// recognition on 40 items: 0.56 of the realised width on one pilot, 0.64
// with the calibration). calibrate simulates a large study
// of the pilot's design from the model and scales each condition's noise
// so that the simulated within-cell variance of z is the pilot's pooled
// one (a simulated method of moments, three rounds). The item means need
// no such step: a line through the simulated means against the model's
// has a slope of 0.96–1.03 (10th–90th percentile over the validation's
// pilots), the z-scoring undoing most of the ends' pull.
const (
	calibrationRounds  = 3
	calibrationPerCell = 150 // ratings per (item, condition) of the calibration study
	calibrationSeed    = 0xca11b
)

func (m *planModel) calibrate(items []toplines.ItemMeans) {
	nc := int(toplines.NumConditions)
	cells, screens := 0, 0.0
	for i := range m.src.Items {
		for c := range nc {
			if items[i].N[c] > 0 {
				cells++
			}
		}
	}
	for g, sc := range m.groups {
		screens += m.share[g] * float64(len(sc))
	}
	if cells == 0 || screens == 0 {
		return
	}
	n := int(math.Ceil(calibrationPerCell * float64(cells) / screens))
	n = max(MinPlanParticipants, min(n, MaxPlanRatings/4/max(1, m.most), 4000))
	for range calibrationRounds {
		t := toplines.ComputeToplines(m.study(calibrationSeed, 0, n, len(m.items)), m.opt)
		var ss, df [toplines.NumConditions]float64
		for _, it := range t.Items {
			for c := range nc {
				if it.N[c] > 1 {
					ss[c] += it.SS[c]
					df[c] += float64(it.N[c] - 1)
				}
			}
		}
		for c := range nc {
			if df[c] == 0 || ss[c] <= 0 || m.pooled[c] <= 0 {
				continue
			}
			f := min(2, max(0.5, math.Sqrt(m.pooled[c]/(ss[c]/df[c]))))
			for i := range m.src.Items {
				m.noise[i*nc+c] *= f
			}
		}
	}
}
