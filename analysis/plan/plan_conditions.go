package plan

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"pragmalab/analysis"
	"pragmalab/analysis/conditions"
	"pragmalab/domain"
)

// The planner of a judgement study (docs/statistics.md#planning-a-judgement-study):
// from a pilot's ratings, the 95 % interval every difference between the
// study's own conditions would have with N participants (and M items),
// on the scale and in z. A planned study is drawn from a model fitted to
// the pilot — each item's true mean in each condition (the pilot's cell
// means shrunk toward the condition's mean by their reliability), the
// participants' bias, the rating noise — as a Latin square; `analyze
// conditions` computes its two-way intervals, whose half widths, averaged
// over the simulated studies, are set around the pilot's estimate. Items
// are drawn anew for every simulated study, so the width keeps the items'
// share of the uncertainty that more participants do not shrink.

// DefaultConditionsSeed is the seed of the planner's simulations.
const DefaultConditionsSeed = analysis.DefaultSeed

// ConditionsPlanOptions say what to plan.
type ConditionsPlanOptions struct {
	// Options are the exclusion rules of the analysis by condition.
	Options conditions.Options
	// Participants are the planned numbers of participants (1 to
	// MaxPlanParticipants each, at most MaxPlanSizes of them).
	Participants []int
	// Items is the planned number of items (0: the pilot's).
	Items int
	// Draws is how many studies are simulated per number (0: 4).
	Draws int
	// Seed seeds the simulation: the same pilot and seed give the same plan.
	Seed uint64
}

// ConditionsPlan is the planner's answer for a judgement study.
type ConditionsPlan struct {
	Pilot ConditionsPilot     `json:"pilot"`
	Plans []ConditionsPlanned `json:"plans"`
	Draws int                 `json:"draws"`
	Note  string              `json:"note"`
}

// ConditionsPilot is what the plans were made from: its participants,
// those analysed, its items and each difference with its own interval.
type ConditionsPilot struct {
	Participants int                      `json:"participants"`
	Analysed     int                      `json:"analysed"`
	Items        int                      `json:"items"`
	ItemsEach    int                      `json:"items_per_participant"`
	Differences  []*conditions.Difference `json:"differences"`
}

// ConditionsPlanned is one planned study: every difference's predicted
// interval.
type ConditionsPlanned struct {
	Participants int                 `json:"participants"`
	Items        int                 `json:"items"`
	Differences  []PlannedDifference `json:"differences"`
}

// PlannedDifference is a difference's pilot estimate with the interval
// predicted at the planned size, on the scale and in z. ItemsShare is the
// share of the squared width (on the scale) that more participants do not
// shrink: the fit width² = a + b/N over the plans (null with fewer than two
// numbers of participants).
type PlannedDifference struct {
	Condition    string       `json:"condition"`
	Versus       string       `json:"versus"`
	MeanRating   *float64     `json:"mean_rating_difference"`
	MeanRatingCI *analysis.CI `json:"mean_rating_difference_ci95"`
	RatingWidth  *float64     `json:"mean_rating_difference_width"`
	MeanZ        *float64     `json:"mean_z_difference"`
	MeanZCI      *analysis.CI `json:"mean_z_difference_ci95"`
	ZWidth       *float64     `json:"mean_z_difference_width"`
	ItemsShare   *float64     `json:"items_share,omitempty"`
}

// ConditionsPlanNote says what the planner of a judgement study promises.
const ConditionsPlanNote = "Predicted 95% intervals of the differences between conditions, from Latin-square studies simulated by a model fitted to the pilot (each item's effect and item × condition interaction shrunk to their true variance, the participants' bias, the rating noise; items drawn anew in each study), centred on the pilot's differences; items_share is the part of the squared width only more items shrink."

// cpModel is the pilot's fitted model.
type cpModel struct {
	conds  int
	points int
	mu     [][]float64 // item × condition: the true mean
	bias   float64     // SD of the participants' bias
	noise  float64     // SD of the rating noise
	each   int         // items per participant in the pilot (median)
}

func (opt ConditionsPlanOptions) check() error {
	return checkSizes(opt.Participants, opt.Items, opt.Draws)
}

// PlanConditions predicts the intervals of the differences between the
// conditions for each planned number of participants. It stops, with
// ctx's error, when ctx is done.
func PlanConditions(ctx context.Context, rs *conditions.Ratings, opt ConditionsPlanOptions) (*ConditionsPlan, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if opt.Draws == 0 {
		opt.Draws = 4
	}
	pilot, err := conditions.Compute(rs, opt.Options)
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "%v", err)
	}
	varying := pilot.Participants.Analysed - len(pilot.Participants.ZeroVariance)
	if varying < MinPlanParticipants {
		return nil, domain.Errorf(domain.EINVALID, "the pilot has %d analysed participants whose ratings vary; the planner cannot plan from fewer than %d", varying, MinPlanParticipants)
	}
	if len(rs.Conditions) < 2 {
		return nil, domain.Errorf(domain.EINVALID, "the pilot has %d condition; the planner plans the differences between two or more", len(rs.Conditions))
	}
	m := fitConditionsModel(rs, pilot)
	items := opt.Items
	if items == 0 {
		items = len(m.mu)
	}
	each := min(m.each, items)
	for _, n := range opt.Participants {
		if n*each > MaxPlanRatings {
			return nil, domain.Errorf(domain.EINVALID, "--participants: %d participants rating %d items each are %d ratings per simulated study; the planner simulates at most %d", n, each, n*each, MaxPlanRatings)
		}
	}
	out := &ConditionsPlan{Pilot: ConditionsPilot{Participants: pilot.Participants.Total, Analysed: pilot.Participants.Analysed,
		Items: len(m.mu), ItemsEach: m.each, Differences: pilot.Differences}, Draws: opt.Draws, Note: ConditionsPlanNote}
	names := slices.Clone(rs.Conditions)
	for _, n := range opt.Participants {
		hw := make([][4]float64, len(pilot.Differences)) // rating below, above; z below, above
		got := make([][2]int, len(pilot.Differences))
		for d := range opt.Draws {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			sim := m.study(opt.Seed+uint64(d), n, items, each, names)
			res, err := conditions.Compute(sim, conditions.Options{HighPass: 1, LowPass: m.points, MaxFailed: math.MaxInt32, Reference: opt.Options.Reference})
			if err != nil {
				return nil, err
			}
			for k, diff := range res.Differences {
				if k >= len(hw) {
					break
				}
				if diff.MeanRating != nil && diff.MeanRatingCI != nil {
					hw[k][0] += *diff.MeanRating - diff.MeanRatingCI[0]
					hw[k][1] += diff.MeanRatingCI[1] - *diff.MeanRating
					got[k][0]++
				}
				if diff.MeanZ != nil && diff.MeanZCI != nil {
					hw[k][2] += *diff.MeanZ - diff.MeanZCI[0]
					hw[k][3] += diff.MeanZCI[1] - *diff.MeanZ
					got[k][1]++
				}
			}
		}
		p := ConditionsPlanned{Participants: n, Items: items}
		for k, pd := range pilot.Differences {
			row := PlannedDifference{Condition: pd.Condition, Versus: pd.Versus, MeanRating: pd.MeanRating, MeanZ: pd.MeanZ}
			if pd.MeanRating != nil && got[k][0] > 0 {
				g := float64(got[k][0])
				row.MeanRatingCI = &analysis.CI{*pd.MeanRating - hw[k][0]/g, *pd.MeanRating + hw[k][1]/g}
				row.RatingWidth = analysis.Num((hw[k][0] + hw[k][1]) / g)
			}
			if pd.MeanZ != nil && got[k][1] > 0 {
				g := float64(got[k][1])
				row.MeanZCI = &analysis.CI{*pd.MeanZ - hw[k][2]/g, *pd.MeanZ + hw[k][3]/g}
				row.ZWidth = analysis.Num((hw[k][2] + hw[k][3]) / g)
			}
			p.Differences = append(p.Differences, row)
		}
		out.Plans = append(out.Plans, p)
	}
	fitConditionsItemsShare(out.Plans)
	return out, nil
}

// fitConditionsModel fits the pilot's model over the ratings of the
// participants the analysis keeps whose ratings vary.
func fitConditionsModel(rs *conditions.Ratings, pilot *conditions.Result) *cpModel {
	kept := map[string]bool{}
	for _, p := range pilot.Participants.Details {
		kept[p.ID] = p.Status == conditions.StatusAnalysed
	}
	cIndex := map[string]int{}
	for k, c := range rs.Conditions {
		cIndex[c] = k
	}
	K := len(rs.Conditions)
	iIndex := map[string]int{}
	type obs struct {
		p    string
		i, c int
		y    float64
	}
	var os []obs
	perP := map[string]int{}
	for _, r := range rs.Rows {
		if r.Check != "" || !kept[r.Participant] {
			continue
		}
		i, ok := iIndex[r.Item]
		if !ok {
			i = len(iIndex)
			iIndex[r.Item] = i
		}
		os = append(os, obs{r.Participant, i, cIndex[r.Condition], float64(r.Value)})
		perP[r.Participant]++
	}
	I := len(iIndex)
	sum, n := make([][]float64, I), make([][]int, I)
	for i := range I {
		sum[i], n[i] = make([]float64, K), make([]int, K)
	}
	cSum, cN := make([]float64, K), make([]int, K)
	for _, o := range os {
		sum[o.i][o.c] += o.y
		n[o.i][o.c]++
		cSum[o.c] += o.y
		cN[o.c]++
	}
	cMean := make([]float64, K)
	for c := range K {
		if cN[c] > 0 {
			cMean[c] = cSum[c] / float64(cN[c])
		}
	}
	cell := func(i, c int) float64 {
		if n[i][c] == 0 {
			return cMean[c]
		}
		return sum[i][c] / float64(n[i][c])
	}
	// The participants' bias: their mean residual from the cell means.
	bSum, bN := map[string]float64{}, map[string]int{}
	for _, o := range os {
		bSum[o.p] += o.y - cell(o.i, o.c)
		bN[o.p]++
	}
	var ss float64
	for _, o := range os {
		e := o.y - cell(o.i, o.c) - bSum[o.p]/float64(bN[o.p])
		ss += e * e
	}
	cells := 0
	for i := range I {
		for c := range K {
			if n[i][c] > 0 {
				cells++
			}
		}
	}
	df := max(1, len(os)-cells-len(bN)+1)
	noise2 := ss / float64(df)
	// The bias's variance less the noise each participant's mean carries.
	var bs, bs2, bNoise float64
	for p, s := range bSum {
		b := s / float64(bN[p])
		bs += b
		bs2 += b * b
		bNoise += noise2 / float64(bN[p])
	}
	np := float64(len(bSum))
	bias2 := max(0, (bs2-bs*bs/np)/max(1, np-1)-bNoise/np)
	// Each cell's deviation from its condition's mean is the item's own
	// effect (its mean deviation over the conditions it was rated in) and
	// the item × condition interaction, the part the differences see; each
	// is shrunk toward 0 by the square root of its reliability λ (its true
	// variance over its observed variance), so that the shrunk effects'
	// variance, λ times the observed, is the true one: the cell means of a
	// pilot carry the noise of their few raters, which would widen the
	// simulated studies' intervals, and shrinking by λ itself (the best
	// estimate of each effect) would leave too little variance, narrowing
	// them.
	v := func(i, c int) float64 { return (noise2 + bias2) / float64(n[i][c]) }
	a := make([]float64, I)
	g := make([][]float64, I)
	var obsA, noiseA, obsG, noiseG float64
	for i := range I {
		g[i] = make([]float64, K)
		k, vs := 0, 0.0
		for c := range K {
			if n[i][c] > 0 {
				a[i] += cell(i, c) - cMean[c]
				vs += v(i, c)
				k++
			}
		}
		a[i] /= float64(k)
		obsA += a[i] * a[i]
		noiseA += vs / float64(k*k)
		for c := range K {
			if n[i][c] > 0 && k > 1 {
				g[i][c] = cell(i, c) - cMean[c] - a[i]
				obsG += g[i][c] * g[i][c]
				noiseG += v(i, c) * (1 - 1/float64(k))
			}
		}
	}
	shrink := func(obs, noise float64) float64 {
		if obs <= 0 {
			return 0
		}
		return max(0, 1-noise/obs)
	}
	lambdaA, lambdaG := math.Sqrt(shrink(obsA, noiseA)), math.Sqrt(shrink(obsG, noiseG))
	mu := make([][]float64, I)
	for i := range I {
		mu[i] = make([]float64, K)
		for c := range K {
			mu[i][c] = cMean[c] + lambdaA*a[i] + lambdaG*g[i][c]
		}
	}
	counts := make([]int, 0, len(perP))
	for _, k := range perP {
		counts = append(counts, k)
	}
	sort.Ints(counts)
	return &cpModel{conds: K, points: rs.ScalePoints, mu: mu, bias: math.Sqrt(bias2), noise: math.Sqrt(noise2), each: counts[len(counts)/2]}
}

// study draws one Latin-square study of n participants on items items
// (drawn from the pilot's with replacement), each participant rating each
// consecutive items: participant p rates item j in condition (j + p) mod K.
// The first participants of every n are the same (common random numbers).
func (m *cpModel) study(seed uint64, n, items, each int, names []string) *conditions.Ratings {
	rng := rand.New(rand.NewPCG(seed, 0x636f6e64))
	pick := make([]int, items)
	for j := range pick {
		pick[j] = rng.IntN(len(m.mu))
	}
	rs := &conditions.Ratings{ScalePoints: m.points, ScaleFrom: "flag", Conditions: names}
	line := 1
	for p := range n {
		pid := "p" + strconv.Itoa(p)
		b := m.bias * rng.NormFloat64()
		for t := range each {
			j := (p*each + t) % items
			c := (j + p) % m.conds
			y := math.Round(m.mu[pick[j]][c] + b + m.noise*rng.NormFloat64())
			y = min(float64(m.points), max(1, y))
			line++
			rs.Rows = append(rs.Rows, conditions.Rating{Line: line, Participant: pid, Item: "i" + strconv.Itoa(j), Condition: names[c], Value: int(y)})
		}
	}
	return rs
}

// fitConditionsItemsShare fits width² = a + b/N per difference over the
// plans and reports a/width² for each plan.
func fitConditionsItemsShare(plans []ConditionsPlanned) {
	ns := map[int]bool{}
	for _, p := range plans {
		ns[p.Participants] = true
	}
	if len(ns) < 2 {
		return
	}
	for k := range plans[0].Differences {
		var xs, ys []float64
		for _, p := range plans {
			if w := p.Differences[k].RatingWidth; w != nil {
				xs = append(xs, 1/float64(p.Participants))
				ys = append(ys, *w**w)
			}
		}
		a, _, ok := fitLine(xs, ys)
		if !ok {
			continue
		}
		for i := range plans {
			if w := plans[i].Differences[k].RatingWidth; w != nil && *w > 0 {
				plans[i].Differences[k].ItemsShare = analysis.Num(min(1, max(0, a/(*w**w))))
			}
		}
	}
}

// String names a planned difference as the tables do.
func (d PlannedDifference) String() string { return fmt.Sprintf("%s − %s", d.Condition, d.Versus) }
