// Package toplines reads the crowd's ratings and computes its toplines by
// item type: implicature recognition, cancellation, belief update, with
// their intervals (docs/statistics.md).
package toplines

import (
	"fmt"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"math"
	"pragmalab/analysis"
	"pragmalab/domain"
	"slices"
)

// Quantity returns a topline and its interval by its JSON name: the one
// map from a measure's name to its fields, which the tables, the planner
// and the R companion all read through (nil, nil for an unknown name).
func (t *TypeToplines) Quantity(q string) (*float64, *analysis.CI) {
	if v, ci := t.quantityFields(q); v != nil {
		return *v, *ci
	}
	return nil, nil
}

// SetQuantity sets a topline and its interval by its JSON name.
func (t *TypeToplines) SetQuantity(q string, v *float64, ci *analysis.CI) {
	if pv, pci := t.quantityFields(q); pv != nil {
		*pv, *pci = v, ci
	}
}

// quantityFields are the fields of a topline and its interval by its JSON
// name (nil, nil for an unknown name).
func (t *TypeToplines) quantityFields(q string) (**float64, **analysis.CI) {
	switch q {
	case MImplicature:
		return &t.ImplicatureRecognition, &t.ImplicatureRecognitionCI
	case MCancellation:
		return &t.CancellationRecognition, &t.CancellationRecognitionCI
	case MBeliefUpdate:
		return &t.BeliefUpdate, &t.BeliefUpdateCI
	case MNegation:
		return &t.NegationCancellation, &t.NegationCancellationCI
	case MStrengthen:
		return &t.Strengthening, &t.StrengtheningCI
	case MUnchanged:
		return &t.Unchanged, &t.UnchangedCI
	case "pearson_r":
		return &t.PearsonR, &t.PearsonRCI
	}
	return nil, nil
}

// Participant statuses in the analysed-ratings file: what the toplines did
// with each participant (docs/statistics.md#exclusion).
const (
	StatusAnalysed     = "analysed"
	StatusExcluded     = "excluded"
	StatusZeroVariance = "zero_variance"
	StatusChecksOnly   = "checks_only"
)

// Status names the participant's status among the four above.
func (p Participant) Status() string {
	switch {
	case p.Excluded:
		return StatusExcluded
	case p.ChecksOnly:
		return StatusChecksOnly
	case p.ZeroVariance:
		return StatusZeroVariance
	}
	return StatusAnalysed
}

// Options are the exclusion settings of docs/statistics.md#exclusion.
type Options struct {
	HighPass  int      // a "high" check passes when rated at least this (default 5)
	LowPass   int      // a "low" check passes when rated at most this (default 3)
	MaxFailed int      // a participant failing this many checks or more is excluded (default 3)
	Exclude   []string // the researcher's overrides: always excluded
	Include   []string // the researcher's overrides: never excluded for failed checks
	// Flagged are the data-quality exclusion rules each participant meets
	// (docs/studies.md#data-quality-flags), by participant: excluded like
	// a participant failing the checks, unless in Include.
	Flagged map[string][]string
	// Bootstrap sets the intervals of the shares and of r; the zero value
	// computes none.
	Bootstrap analysis.Bootstrap
	// Conditions are the conditions the study declares
	// (docs/studies.md#conditions); empty means those rated in the file,
	// trigger and cancel always included. The tables, methods and R
	// companion show the measures of these conditions only.
	Conditions []string
}

// DefaultOptions returns the defaults of docs/statistics.md#exclusion and
// the default bootstrap of the intervals.
func DefaultOptions() Options {
	return Options{HighPass: 5, LowPass: 3, MaxFailed: 3, Bootstrap: analysis.DefaultBootstrap()}
}

// Toplines is the result of the toplines; its JSON is the contract of
// `pragmalab analyze toplines --json` (docs/formats.md#toplines-json).
type Toplines struct {
	Participants ParticipantSummary       `json:"participants"`
	ByType       map[string]*TypeToplines `json:"by_type"`
	Settings     Settings                 `json:"settings"`
	Bootstrap    *analysis.BootstrapInfo  `json:"bootstrap,omitempty"`
	// Conditions are the conditions analysed, in the order of
	// docs/items.md#conditions: the study's declared ones, or those rated
	// in the file (Options.Conditions).
	Conditions []string `json:"conditions"`
	// Items holds every item's mean z per condition, in first-seen order,
	// for plots and the per-item table.
	Items []ItemMeans `json:"-"`
}

// Settings echoes the exclusion thresholds used, so a saved JSON says how
// it was computed.
type Settings struct {
	HighPass  int `json:"high_pass_at_least"`
	LowPass   int `json:"low_pass_at_most"`
	MaxFailed int `json:"excluded_when_failed_at_least"`
}

// ParticipantSummary counts participants and lists those left out.
type ParticipantSummary struct {
	Total int `json:"total"`
	// Excluded lists participants failing too many attention checks (or
	// excluded by the researcher), sorted.
	Excluded []string `json:"excluded"`
	// ZeroVariance lists remaining participants without z-scores because all
	// their non-check ratings are equal, sorted.
	ZeroVariance []string `json:"zero_variance"`
	// ChecksOnly lists remaining participants who rated attention checks
	// only (no item rating to z-score), sorted: a different problem from a
	// constant rater — usually an abandoned or broken session.
	ChecksOnly []string `json:"checks_only"`
	Analysed   int      `json:"analysed"`
	// Details has one entry per participant in first-seen order.
	Details []Participant `json:"-"`
	// Reasons gives, for each participant excluded by a rule, why: failed
	// checks and the data-quality rules met (the researcher's exclusions
	// say "excluded by the researcher").
	Reasons map[string][]string `json:"exclusion_reasons,omitempty"`
}

// Participant is one participant's standing in the analysis.
type Participant struct {
	ID           string
	Ratings      int // non-check ratings
	Checks       int
	FailedChecks int
	Excluded     bool
	ZeroVariance bool
	ChecksOnly   bool
	Reasons      []string // why excluded, when excluded
}

// TypeToplines are the measures for one item type (or all items). Shares
// are in [0,1]; nil (JSON null) when no item has the conditions needed.
type TypeToplines struct {
	Items                     int          `json:"items"`
	ImplicatureRecognition    *float64     `json:"implicature_recognition"`
	ImplicatureRecognitionCI  *analysis.CI `json:"implicature_recognition_ci95"`
	CancellationRecognition   *float64     `json:"cancellation_recognition"`
	CancellationRecognitionCI *analysis.CI `json:"cancellation_recognition_ci95"`
	BeliefUpdate              *float64     `json:"belief_update"`
	BeliefUpdateCI            *analysis.CI `json:"belief_update_ci95"`
	NegationCancellation      *float64     `json:"negation_cancellation"`
	NegationCancellationCI    *analysis.CI `json:"negation_cancellation_ci95"`
	Strengthening             *float64     `json:"strengthening"`
	StrengtheningCI           *analysis.CI `json:"strengthening_ci95"`
	Unchanged                 *float64     `json:"unchanged"`
	UnchangedCI               *analysis.CI `json:"unchanged_ci95"`
	PearsonR                  *float64     `json:"pearson_r"`
	PearsonRCI                *analysis.CI `json:"pearson_r_ci95"`
	PearsonP                  *float64     `json:"pearson_p"`
	// PearsonN is the number of items with both trigger and cancel means.
	PearsonN int `json:"pearson_n"`
	// The correlation corrected for attenuation
	// (docs/statistics.md#disattenuated-correlation): the estimate of the
	// correlation of the items' population mean z-scores, which PearsonR
	// (the observed r) underestimates. Nil, with the reason in
	// PearsonRDisattenuatedNA, where the correction is undefined.
	PearsonRDisattenuated   *float64     `json:"pearson_r_disattenuated"`
	PearsonRDisattenuatedCI *analysis.CI `json:"pearson_r_disattenuated_ci95"`
	PearsonRDisattenuatedNA string       `json:"pearson_r_disattenuated_na,omitempty"`
	// ReliabilityTrigger and ReliabilityCancel are the reliabilities of
	// the items' mean z without and with cancellation that the correction
	// divides by.
	ReliabilityTrigger *float64 `json:"reliability_trigger"`
	ReliabilityCancel  *float64 `json:"reliability_cancel"`
	// Approximate flags, by interval key (e.g. "pearson_r_ci95"), the
	// intervals known to cover less than 0.90 in the coverage study for
	// data like these, with the reason (docs/statistics.md#where-the-intervals-fall-short).
	Approximate map[string]*Approximation `json:"approximate_intervals,omitempty"`
	// IntervalsNA says, by interval key (e.g. "pearson_r_ci95"), why the
	// interval of a computed measure could not be computed, in plain
	// words ("too few items: 2"; docs/statistics.md#toplines-intervals).
	IntervalsNA map[string]string `json:"intervals_na,omitempty"`
	// PearsonFewItems marks an r computed on fewer than
	// MinIntervalItems items: read it with care.
	PearsonFewItems bool `json:"pearson_r_few_items,omitempty"`
	// LeftOut counts, per measure, the items lacking a condition it needs.
	LeftOut map[string]int `json:"left_out"`
}

// Measure names, as JSON keys and table rows.
const (
	MImplicature  = "implicature_recognition"
	MCancellation = "cancellation_recognition"
	MBeliefUpdate = "belief_update"
	MNegation     = "negation_cancellation"
	MStrengthen   = "strengthening"
	MUnchanged    = "unchanged"
)

// ItemMeans is one item's mean z-score per condition over the analysed
// participants; MeanZ[c] is NaN when N[c] is 0.
type ItemMeans struct {
	ID    string
	Type  string
	MeanZ [NumConditions]float64
	N     [NumConditions]int
	// SS is the sum of squared deviations of the z-scores from MeanZ, per
	// condition: the rating noise of the mean, for the disattenuation.
	SS [NumConditions]float64
}

// Has reports whether the item has ratings in condition c.
func (m *ItemMeans) Has(c Condition) bool { return m.N[c] > 0 }

// ComputeToplines applies exclusion, z-scores each remaining participant's
// non-check ratings (population SD), averages per item and condition, and
// computes the toplines of docs/statistics.md#toplines per type and for all
// items.
func ComputeToplines(rs *Ratings, opt Options) *Toplines {
	parts := ParticipantStats(rs, opt)
	items := itemMeans(rs, parts)
	t := &Toplines{
		Participants: summarise(rs, parts, opt),
		ByType:       map[string]*TypeToplines{},
		Settings:     Settings{opt.HighPass, opt.LowPass, opt.MaxFailed},
		Items:        items,
		Conditions:   analysedConditions(rs, opt.Conditions),
	}
	for _, typ := range append(slices.Clone(domain.TableTypes), domain.TypeAll) {
		t.ByType[typ] = TypeToplinesOf(items, typ)
	}
	if opt.Bootstrap.Replicates > 0 {
		bootstrapToplines(rs, parts, t, opt.Bootstrap)
	}
	return t
}

// analysedConditions are the declared conditions in the documented order,
// or, with none declared, the conditions rated in rs; trigger and cancel
// are always among them.
func analysedConditions(rs *Ratings, declared []string) []string {
	var rated [NumConditions]bool
	rated[Trigger], rated[Cancel] = true, true
	if len(declared) > 0 {
		for _, c := range declared {
			if i, ok := parseCondition(c); ok {
				rated[i] = true
			}
		}
	} else {
		rs.Each(func(rt *Rating) { rated[rt.Cond] = true })
	}
	var out []string
	for c, name := range ConditionNames {
		if rated[c] {
			out = append(out, name)
		}
	}
	return out
}

// HasCondition reports whether the analysis covers condition c (a name of
// docs/items.md#conditions); a result without its conditions (an older
// JSON) covers them all.
func (t *Toplines) HasCondition(c string) bool {
	return len(t.Conditions) == 0 || slices.Contains(t.Conditions, c)
}

// Pstat accumulates one participant's ratings; sums are exact integers so
// "all ratings equal" is decided without rounding.
type Pstat struct {
	n, sum, sumsq int64
	checks        int
	failed        int
	Excluded      bool
	ZeroVar       bool
	Mean, SD      float64
}

func ParticipantStats(rs *Ratings, opt Options) []Pstat {
	ps := make([]Pstat, len(rs.Participants))
	rs.Each(func(rt *Rating) {
		p := &ps[rt.Participant]
		switch rt.Check {
		case CheckHigh:
			p.checks++
			if int(rt.Value) < opt.HighPass {
				p.failed++
			}
		case CheckLow:
			p.checks++
			if int(rt.Value) > opt.LowPass {
				p.failed++
			}
		default:
			v := int64(rt.Value)
			p.n++
			p.sum += v
			p.sumsq += v * v
		}
	})
	exclude, include := analysis.Set(opt.Exclude), analysis.Set(opt.Include)
	for i := range ps {
		p := &ps[i]
		id := rs.Participants[i]
		p.Excluded = exclude[id] || ((p.failed >= opt.MaxFailed || len(opt.Flagged[id]) > 0) && !include[id])
		if p.Excluded {
			continue
		}
		if p.n == 0 || p.n*p.sumsq == p.sum*p.sum {
			p.ZeroVar = true // no z-scores either way
			continue
		}
		n := float64(p.n)
		p.Mean = float64(p.sum) / n
		p.SD = math.Sqrt(float64(p.n*p.sumsq-p.sum*p.sum)) / n
	}
	return ps
}

func itemMeans(rs *Ratings, ps []Pstat) []ItemMeans {
	sums := make([]float64, len(rs.Items)*int(NumConditions))
	sqs := make([]float64, len(sums))
	counts := make([]int, len(sums))
	rs.Each(func(rt *Rating) {
		p := &ps[rt.Participant]
		if rt.Check != CheckNone || p.Excluded || p.ZeroVar {
			return
		}
		k := int(rt.Item)*int(NumConditions) + int(rt.Cond)
		z := (float64(rt.Value) - p.Mean) / p.SD
		sums[k] += z
		sqs[k] += z * z
		counts[k]++
	})
	items := make([]ItemMeans, len(rs.Items))
	for i := range items {
		m := &items[i]
		m.ID, m.Type = rs.Items[i], domain.TableTypes[rs.ItemType[i]]
		for c := range NumConditions {
			k := i*int(NumConditions) + int(c)
			m.N[c] = counts[k]
			m.MeanZ[c] = math.NaN()
			if counts[k] > 0 {
				m.MeanZ[c] = sums[k] / float64(counts[k])
				m.SS[c] = max(0, sqs[k]-sums[k]*m.MeanZ[c])
			}
		}
	}
	return items
}

func summarise(rs *Ratings, ps []Pstat, opt Options) ParticipantSummary {
	s := ParticipantSummary{Total: len(ps), Excluded: []string{}, ZeroVariance: []string{}, ChecksOnly: []string{}}
	s.Details = make([]Participant, len(ps))
	for i, p := range ps {
		id := rs.Participants[i]
		checksOnly := p.ZeroVar && p.n == 0
		s.Details[i] = Participant{ID: id, Ratings: int(p.n), Checks: p.checks, FailedChecks: p.failed, Excluded: p.Excluded,
			ZeroVariance: p.ZeroVar && !checksOnly, ChecksOnly: checksOnly}
		switch {
		case p.Excluded:
			s.Excluded = append(s.Excluded, id)
			s.Details[i].Reasons = exclusionReasons(id, p, opt)
			if s.Reasons == nil {
				s.Reasons = map[string][]string{}
			}
			s.Reasons[id] = s.Details[i].Reasons
		case checksOnly:
			s.ChecksOnly = append(s.ChecksOnly, id)
		case p.ZeroVar:
			s.ZeroVariance = append(s.ZeroVariance, id)
		default:
			s.Analysed++
		}
	}
	slices.Sort(s.Excluded)
	slices.Sort(s.ZeroVariance)
	slices.Sort(s.ChecksOnly)
	return s
}

// TypeToplinesOf computes the measures over the items of one type (or all).
// An item with no rating left after exclusion counts as lacking conditions.
func TypeToplinesOf(items []ItemMeans, typ string) *TypeToplines {
	var impl, canc, upd, neg, str, unch analysis.Share
	var xs, ys []float64
	var da groupAcc
	n := 0
	for i := range items {
		m := &items[i]
		if typ != domain.TypeAll && m.Type != typ {
			continue
		}
		n++
		zt, zc := m.MeanZ[Trigger], m.MeanZ[Cancel]
		hasT, hasC := m.Has(Trigger), m.Has(Cancel)
		impl.Add(hasT, analysis.Above(zt, 0))
		canc.Add(hasT && hasC, analysis.Above(zt, zc))
		upd.Add(hasT && hasC, analysis.Above(zt, 0) && analysis.Above(zt, zc))
		neg.Add(hasT && m.Has(Negation), analysis.Above(zt, m.MeanZ[Negation]))
		str.Add(hasT && m.Has(Strengthen), analysis.Above(m.MeanZ[Strengthen], zt))
		unch.Add(hasT && m.Has(Neutral), analysis.Above(m.MeanZ[Neutral], 0) == analysis.Above(zt, 0))
		if hasT && hasC {
			xs, ys = append(xs, zt), append(ys, zc)
			da.addItem(&m.MeanZ, &[NumConditions]bool{Trigger: true, Cancel: true}, itemNoise(m), 1)
		}
	}
	tt := &TypeToplines{
		Items:                   n,
		ImplicatureRecognition:  impl.Value(),
		CancellationRecognition: canc.Value(),
		BeliefUpdate:            upd.Value(),
		NegationCancellation:    neg.Value(),
		Strengthening:           str.Value(),
		Unchanged:               unch.Value(),
		PearsonN:                len(xs),
		LeftOut: map[string]int{
			MImplicature: impl.LeftOut, MCancellation: canc.LeftOut, MBeliefUpdate: upd.LeftOut,
			MNegation: neg.LeftOut, MStrengthen: str.LeftOut, MUnchanged: unch.LeftOut,
		},
	}
	if r, p, ok := Pearson(xs, ys); ok {
		tt.PearsonR, tt.PearsonP = analysis.Num(r), analysis.Num(p)
		tt.PearsonFewItems = len(xs) < MinIntervalItems
	}
	setDisattenuated(tt, &da)
	return tt
}

// Pearson returns Pearson's r between x and y and its two-sided p-value
// from Student's t with n−2 degrees of freedom. ok is false when r is
// undefined: fewer than 3 pairs, or x or y constant.
func Pearson(x, y []float64) (r, p float64, ok bool) {
	n := len(x)
	if n < 3 || len(y) != n {
		return math.NaN(), math.NaN(), false
	}
	r = stat.Correlation(x, y, nil)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return math.NaN(), math.NaN(), false
	}
	r = max(-1, min(1, r))
	if math.Abs(r) == 1 {
		return r, 0, true
	}
	df := float64(n - 2)
	t := r * math.Sqrt(df/(1-r*r))
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return r, p, true
}

// exclusionReasons says why participant id, excluded, is: the researcher's
// decision, failed checks, the data-quality rules met.
func exclusionReasons(id string, p Pstat, opt Options) []string {
	var out []string
	if slices.Contains(opt.Exclude, id) {
		out = append(out, "excluded by the researcher")
	}
	if p.failed >= opt.MaxFailed && !slices.Contains(opt.Include, id) {
		out = append(out, fmt.Sprintf("failed %d of %d attention checks", p.failed, p.checks))
	}
	if !slices.Contains(opt.Include, id) {
		out = append(out, opt.Flagged[id]...)
	}
	return out
}
