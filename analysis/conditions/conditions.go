package conditions

import (
	"fmt"
	"math"
	"pragmalab/analysis"
	"slices"
)

// Options are the exclusion rules (docs/statistics.md#exclusion: the
// same rules and flags as the toplines) and the differences to report.
type Options struct {
	HighPass  int      // a "high" check passes when rated at least this
	LowPass   int      // a "low" check passes when rated at most this
	MaxFailed int      // excluded when failing at least this many checks
	Exclude   []string // always excluded
	Include   []string // never excluded for failed checks
	// Reference, when set, compares every other condition with it;
	// otherwise every pair of conditions is compared.
	Reference string
}

// Participant statuses, as in the toplines (docs/statistics.md#exclusion).
const (
	StatusAnalysed     = "analysed"
	StatusExcluded     = "excluded"
	StatusZeroVariance = "zero_variance"
	StatusChecksOnly   = "checks_only"
)

// Result is the analysis by condition; its JSON is the contract of
// `pragmalab analyze conditions --json` (docs/formats.md#conditions-json).
type Result struct {
	ScalePoints  int          `json:"scale_points"`
	ScaleFrom    string       `json:"scale_from"`
	Rows         int          `json:"rows"`
	Participants Participants `json:"participants"`
	Settings     Settings     `json:"settings"`
	Interval     string       `json:"interval"`
	Conditions   []*Condition `json:"conditions"`
	// Reference is the condition every difference is taken against; empty
	// when every pair is compared.
	Reference   string        `json:"reference,omitempty"`
	Differences []*Difference `json:"differences"`
}

// IntervalMethod names the interval in the JSON.
const IntervalMethod = "two-way cluster-robust (participants and items; Cameron, Gelbach & Miller 2011), t with min(participants, items) - 1 df"

// Settings echoes the exclusion thresholds used.
type Settings struct {
	HighPass  int `json:"high_pass_at_least"`
	LowPass   int `json:"low_pass_at_most"`
	MaxFailed int `json:"excluded_when_failed_at_least"`
}

// Participants counts the participants and lists those left out, sorted.
type Participants struct {
	Total    int      `json:"total"`
	Excluded []string `json:"excluded"`
	// ChecksOnly rated attention checks only; ZeroVariance gave every item
	// the same rating: their ratings count in the means on the scale and
	// the distributions, but they have no z-scores.
	ChecksOnly   []string `json:"checks_only"`
	ZeroVariance []string `json:"zero_variance"`
	// Analysed are the participants whose ratings are analysed (the
	// zero-variance ones among them).
	Analysed int                 `json:"analysed"`
	Reasons  map[string][]string `json:"exclusion_reasons,omitempty"`
	Details  []Participant       `json:"-"`
}

// Participant is one participant's standing, in first-seen order.
type Participant struct {
	ID                            string
	Ratings, Checks, FailedChecks int
	Status                        string
	Reasons                       []string
	mean, sd                      float64
	excluded, zeroVar, checksOnly bool
}

// Condition is one condition's ratings summarised.
type Condition struct {
	Name         string       `json:"condition"`
	Ratings      int          `json:"ratings"`
	Participants int          `json:"participants"`
	Items        int          `json:"items"`
	MeanRating   *float64     `json:"mean_rating"`
	MeanRatingCI *analysis.CI `json:"mean_rating_ci95"`
	MeanRatingSE *float64     `json:"mean_rating_se"`
	MeanRatingDF int          `json:"mean_rating_df"`
	// ZRatings are the ratings with a z-score (of participants whose
	// ratings vary).
	ZRatings     int          `json:"z_ratings"`
	MeanZ        *float64     `json:"mean_z"`
	MeanZCI      *analysis.CI `json:"mean_z_ci95"`
	MeanZSE      *float64     `json:"mean_z_se"`
	MeanZDF      int          `json:"mean_z_df"`
	Distribution []Point      `json:"distribution"`
	Intervals
}

// Intervals says, by interval key, why an interval is missing, and which
// fell back to the one-way variance.
type Intervals struct {
	IntervalsNA map[string]string `json:"intervals_na,omitempty"`
	OneWay      []string          `json:"one_way_intervals,omitempty"`
}

// Point is one point of the scale: how many ratings chose it and their
// share of the condition's ratings (null with none).
type Point struct {
	Point int      `json:"point"`
	Count int      `json:"count"`
	Share *float64 `json:"share"`
}

// Difference is Condition's mean minus Versus's, on the scale and in z.
type Difference struct {
	Condition string `json:"condition"`
	Versus    string `json:"versus"`
	// ParticipantsInBoth rated both conditions, ItemsInBoth were rated in
	// both: through them the two means are correlated, and the interval
	// counts it (the pairing).
	ParticipantsInBoth int `json:"participants_in_both"`
	// AdjustedFor names the effects the difference is taken within:
	// "participants and items", "items", "participants" or "nothing"
	// (docs/statistics.md#differences-between-conditions).
	AdjustedFor  string       `json:"adjusted_for"`
	ItemsInBoth  int          `json:"items_in_both"`
	MeanRating   *float64     `json:"mean_rating_difference"`
	MeanRatingCI *analysis.CI `json:"mean_rating_difference_ci95"`
	MeanRatingSE *float64     `json:"mean_rating_difference_se"`
	MeanRatingDF int          `json:"mean_rating_difference_df"`
	MeanZ        *float64     `json:"mean_z_difference"`
	MeanZCI      *analysis.CI `json:"mean_z_difference_ci95"`
	MeanZSE      *float64     `json:"mean_z_difference_se"`
	MeanZDF      int          `json:"mean_z_difference_df"`
	Intervals
}

// row is an analysed rating: indices of its participant, item and
// condition, its value and z-score (NaN without one).
type row struct {
	p, i, c int32
	v, z    float64
}

// Compute applies the exclusion rules, z-scores each analysed participant's
// item ratings (population SD, as the toplines) and summarises every
// condition and the differences (docs/statistics.md#judgement-by-condition).
func Compute(rs *Ratings, opt Options) (*Result, error) {
	if opt.Reference != "" && !slices.Contains(rs.Conditions, opt.Reference) {
		return nil, fmt.Errorf("--reference %q is not a condition of the file (%s)", opt.Reference, join(rs.Conditions))
	}
	res := &Result{
		ScalePoints: rs.ScalePoints, ScaleFrom: rs.ScaleFrom, Rows: len(rs.Rows),
		Settings:  Settings{opt.HighPass, opt.LowPass, opt.MaxFailed},
		Interval:  IntervalMethod,
		Reference: opt.Reference,
		// Empty lists, not null, when nothing is rated or compared.
		Conditions: []*Condition{}, Differences: []*Difference{},
	}
	parts, pIndex := participants(rs, opt)
	res.Participants = summarise(parts)
	iIndex := map[string]int32{}
	cIndex := map[string]int32{}
	for k, c := range rs.Conditions {
		cIndex[c] = int32(k)
	}
	var rows []row
	for _, rt := range rs.Rows {
		if rt.Check != "" {
			continue
		}
		p := &parts[pIndex[rt.Participant]]
		if p.excluded {
			continue
		}
		i, ok := iIndex[rt.Item]
		if !ok {
			i = int32(len(iIndex))
			iIndex[rt.Item] = i
		}
		z := math.NaN()
		if !p.zeroVar {
			z = (float64(rt.Value) - p.mean) / p.sd
		}
		rows = append(rows, row{p: pIndex[rt.Participant], i: i, c: cIndex[rt.Condition], v: float64(rt.Value), z: z})
	}
	for k, name := range rs.Conditions {
		res.Conditions = append(res.Conditions, condition(name, int32(k), rows, rs.ScalePoints))
	}
	for _, pair := range pairs(rs.Conditions, opt.Reference) {
		res.Differences = append(res.Differences, difference(rs.Conditions, pair[0], pair[1], rows))
	}
	return res, nil
}

func join(xs []string) string {
	s := ""
	for k, x := range xs {
		if k > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// participants applies the exclusion rules and computes each remaining
// participant's mean and population SD of their item ratings.
func participants(rs *Ratings, opt Options) ([]Participant, map[string]int32) {
	index := map[string]int32{}
	var ps []Participant
	var sum, sumsq []float64
	for _, rt := range rs.Rows {
		k, ok := index[rt.Participant]
		if !ok {
			k = int32(len(ps))
			index[rt.Participant] = k
			ps = append(ps, Participant{ID: rt.Participant})
			sum, sumsq = append(sum, 0), append(sumsq, 0)
		}
		p := &ps[k]
		switch rt.Check {
		case "high":
			p.Checks++
			if rt.Value < opt.HighPass {
				p.FailedChecks++
			}
		case "low":
			p.Checks++
			if rt.Value > opt.LowPass {
				p.FailedChecks++
			}
		default:
			p.Ratings++
			v := float64(rt.Value)
			sum[k] += v
			sumsq[k] += v * v
		}
	}
	exclude, include := analysis.Set(opt.Exclude), analysis.Set(opt.Include)
	for k := range ps {
		p := &ps[k]
		switch {
		case exclude[p.ID]:
			p.excluded = true
			p.Reasons = []string{"excluded by the researcher"}
		case p.FailedChecks >= opt.MaxFailed && !include[p.ID]:
			p.excluded = true
			p.Reasons = []string{fmt.Sprintf("failed %d of %d attention checks", p.FailedChecks, p.Checks)}
		}
		switch {
		case p.excluded:
			p.Status = StatusExcluded
		case p.Ratings == 0:
			p.checksOnly, p.Status = true, StatusChecksOnly
		default:
			n := float64(p.Ratings)
			p.mean = sum[k] / n
			// Ratings are whole numbers: all equal exactly when
			// n·Σx² = (Σx)², computed without rounding.
			if n*sumsq[k] == sum[k]*sum[k] {
				p.zeroVar, p.Status = true, StatusZeroVariance
			} else {
				p.Status = StatusAnalysed
			}
		}
	}
	// The SD from the squared deviations (not from Σx²), as R's sd does.
	ss := make([]float64, len(ps))
	for _, rt := range rs.Rows {
		if k := index[rt.Participant]; rt.Check == "" && ps[k].Status == StatusAnalysed {
			d := float64(rt.Value) - ps[k].mean
			ss[k] += d * d
		}
	}
	for k := range ps {
		if ps[k].Status == StatusAnalysed {
			ps[k].sd = math.Sqrt(ss[k] / float64(ps[k].Ratings))
		}
	}
	return ps, index
}

func summarise(ps []Participant) Participants {
	s := Participants{Total: len(ps), Excluded: []string{}, ChecksOnly: []string{}, ZeroVariance: []string{}, Details: ps}
	for _, p := range ps {
		switch p.Status {
		case StatusExcluded:
			s.Excluded = append(s.Excluded, p.ID)
			if s.Reasons == nil {
				s.Reasons = map[string][]string{}
			}
			s.Reasons[p.ID] = p.Reasons
		case StatusChecksOnly:
			s.ChecksOnly = append(s.ChecksOnly, p.ID)
		case StatusZeroVariance:
			s.ZeroVariance = append(s.ZeroVariance, p.ID)
			s.Analysed++
		default:
			s.Analysed++
		}
	}
	slices.Sort(s.Excluded)
	slices.Sort(s.ChecksOnly)
	slices.Sort(s.ZeroVariance)
	return s
}

// estimate is a mean with its two-way interval.
type estimate struct {
	v, se  *float64
	ci     *analysis.CI
	df     int
	na     string
	oneWay bool
}

// meanOf is the weighted sum Σ wᵢ·xᵢ over the rows where weight is not 0
// (a mean, or a difference of means), with its two-way variance: each
// row's influence is its weight times its residual from its condition's
// mean.
func meanOf(rows []row, x func(row) float64, weight func(row) float64, groupMean func(row) float64) estimate {
	var theta float64
	var os []obs
	for _, r := range rows {
		w := weight(r)
		if w == 0 || math.IsNaN(x(r)) {
			continue
		}
		theta += w * x(r)
		os = append(os, obs{r.p, r.i, w * (x(r) - groupMean(r))})
	}
	if len(os) == 0 {
		return estimate{na: "no ratings"}
	}
	tw := twoWay(os)
	e := estimate{v: analysis.Num(theta), df: max(tw.DF(), 0), oneWay: tw.OneWay}
	e.ci, e.na = tw.CI(theta)
	if e.ci != nil {
		e.se = analysis.Num(math.Sqrt(tw.V))
	}
	return e
}

// conditionMean is a condition's mean of x (rating or z) with its interval.
func conditionMean(c int32, rows []row, x func(row) float64) estimate {
	n := 0
	sum := 0.0
	for _, r := range rows {
		if r.c == c && !math.IsNaN(x(r)) {
			n++
			sum += x(r)
		}
	}
	if n == 0 {
		return estimate{na: "no ratings"}
	}
	m := sum / float64(n)
	return meanOf(rows, x, func(r row) float64 {
		if r.c == c {
			return 1 / float64(n)
		}
		return 0
	}, func(row) float64 { return m })
}

func rating(r row) float64 { return r.v }
func zOf(r row) float64    { return r.z }

func condition(name string, c int32, rows []row, points int) *Condition {
	out := &Condition{Name: name, Distribution: make([]Point, points)}
	ps, is := map[int32]bool{}, map[int32]bool{}
	for _, r := range rows {
		if r.c != c {
			continue
		}
		out.Ratings++
		ps[r.p], is[r.i] = true, true
		out.Distribution[int(r.v)-1].Count++
		if !math.IsNaN(r.z) {
			out.ZRatings++
		}
	}
	out.Participants, out.Items = len(ps), len(is)
	for k := range out.Distribution {
		out.Distribution[k].Point = k + 1
		if out.Ratings > 0 {
			out.Distribution[k].Share = analysis.Num(float64(out.Distribution[k].Count) / float64(out.Ratings))
		}
	}
	e := conditionMean(c, rows, rating)
	out.MeanRating, out.MeanRatingCI, out.MeanRatingSE, out.MeanRatingDF = e.v, e.ci, e.se, e.df
	out.note("mean_rating_ci95", e)
	e = conditionMean(c, rows, zOf)
	out.MeanZ, out.MeanZCI, out.MeanZSE, out.MeanZDF = e.v, e.ci, e.se, e.df
	out.note("mean_z_ci95", e)
	return out
}

// note records why an estimate has no interval, or that it is one-way.
func (iv *Intervals) note(key string, e estimate) {
	if e.ci == nil && e.na != "" {
		if iv.IntervalsNA == nil {
			iv.IntervalsNA = map[string]string{}
		}
		iv.IntervalsNA[key] = e.na
	}
	if e.ci != nil && e.oneWay {
		iv.OneWay = append(iv.OneWay, key)
	}
}

// pairs lists the differences to take, as (condition, versus) indices:
// every other condition against the reference, or every pair in order
// (the later condition minus the earlier).
func pairs(conds []string, reference string) [][2]int32 {
	var out [][2]int32
	if reference != "" {
		ref := int32(slices.Index(conds, reference))
		for k := range conds {
			if int32(k) != ref {
				out = append(out, [2]int32{int32(k), ref})
			}
		}
		return out
	}
	for a := range conds {
		for b := a + 1; b < len(conds); b++ {
			out = append(out, [2]int32{int32(b), int32(a)})
		}
	}
	return out
}

func difference(conds []string, c, v int32, rows []row) *Difference {
	d := &Difference{Condition: conds[c], Versus: conds[v]}
	pc, pv, ic, iv := map[int32]bool{}, map[int32]bool{}, map[int32]bool{}, map[int32]bool{}
	for _, r := range rows {
		switch r.c {
		case c:
			pc[r.p], ic[r.i] = true, true
		case v:
			pv[r.p], iv[r.i] = true, true
		}
	}
	for p := range pc {
		if pv[p] {
			d.ParticipantsInBoth++
		}
	}
	for i := range ic {
		if iv[i] {
			d.ItemsInBoth++
		}
	}
	diff := func(x func(row) float64) estimate {
		e, adj := pairedDifference(rows, c, v, x)
		if d.AdjustedFor == "" {
			d.AdjustedFor = adj
		}
		return e
	}
	e := diff(rating)
	d.MeanRating, d.MeanRatingCI, d.MeanRatingSE, d.MeanRatingDF = e.v, e.ci, e.se, e.df
	d.note("mean_rating_difference_ci95", e)
	e = diff(zOf)
	d.MeanZ, d.MeanZCI, d.MeanZSE, d.MeanZDF = e.v, e.ci, e.se, e.df
	d.note("mean_z_difference_ci95", e)
	return d
}
