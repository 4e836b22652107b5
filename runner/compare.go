package runner

import (
	"math"

	"gonum.org/v1/plot"

	"pragmalab/analysis"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/scoring"
)

// Measures are the True/False measures in the order tables show them;
// MeasureLabels their row labels. Humans have no prior control.
var (
	Measures = []string{"implicature_recognition", "cancellation_recognition", "belief_update",
		"negation_cancellation", "strengthening", "unchanged", "prior_control"}
	MeasureLabels = map[string]string{
		"implicature_recognition":  "Implicature recognition",
		"cancellation_recognition": "Cancellation recognition",
		"belief_update":            "Belief update",
		"negation_cancellation":    "Negation cancellation",
		"strengthening":            "Strengthening",
		"unchanged":                "Unchanged (neutral)",
		"prior_control":            "Prior control",
	}
)

// Comparison puts models' True/False measures beside the humans', each
// model and the humans on one item set per measure and type: the items
// the job has a result for that measure on and, with a crowd study, that
// the humans rated in the conditions it compares
// (docs/scoring.md#human-comparison).
type Comparison struct {
	Types []string
	// Human is the humans' share over the first job's item set (measure →
	// type → share; nil without a crowd study, and nil for prior control,
	// which humans were not asked); HumanCI its 95 % Wilson interval over
	// items and HumanN the items it stands on and the items of that type
	// in the first job ("n of N").
	Human   map[string]map[string]*float64
	HumanCI map[string]map[string]*analysis.CI
	HumanN  map[string]map[string][2]int
	Models  []ModelColumn
}

// ModelColumn is one job's measures over its comparison item sets.
type ModelColumn struct {
	JobID  int64
	Name   string
	Values map[string]map[string]*float64 // measure → type → share
	// CI is each share's 95 % Wilson interval over its items.
	CI map[string]map[string]*analysis.CI
	// N is, per measure and type, the items the share stands on and the
	// items of that type in the job: "n of N" when n < N.
	N map[string]map[string][2]int
	// Human is the humans' share over exactly this column's items (the
	// same as Comparison.Human for the first job); Diff is the model's
	// share minus the humans', DiffCI its 95 % interval for paired
	// shares (toplines.PairedShares.DiffCI). All nil without humans.
	Human, Diff map[string]map[string]*float64
	HumanCI     map[string]map[string]*analysis.CI
	DiffCI      map[string]map[string]*analysis.CI
}

// Compare lays True/False results beside the human toplines (human may be
// nil). Types are those any model has, in the papers' order, "all" last.
// For each job, measure and type the model's and the humans' shares are
// taken over the same items: those the job has a result for and, with
// humans, that the humans rated in the conditions the measure compares.
func Compare(human *toplines.Toplines, results ...*Results) Comparison {
	seen := map[string]bool{}
	for _, r := range results {
		for t := range r.TFMetrics {
			seen[t] = true
		}
	}
	c := Comparison{Types: scoring.SortedTypes(seen)}
	var humanItems map[string]*toplines.ItemMeans
	if human != nil {
		humanItems = make(map[string]*toplines.ItemMeans, len(human.Items))
		for i := range human.Items {
			humanItems[human.Items[i].ID] = &human.Items[i]
		}
	}
	for _, r := range results {
		col := compareColumn(r, c.Types, humanItems)
		c.Models = append(c.Models, col)
	}
	if human != nil {
		c.Human, c.HumanCI, c.HumanN = map[string]map[string]*float64{}, map[string]map[string]*analysis.CI{}, map[string]map[string][2]int{}
		for _, m := range Measures {
			c.Human[m], c.HumanCI[m], c.HumanN[m] = map[string]*float64{}, map[string]*analysis.CI{}, map[string][2]int{}
			for _, t := range c.Types {
				c.Human[m][t] = nil
				if len(c.Models) > 0 && m != "prior_control" {
					c.Human[m][t], c.HumanCI[m][t], c.HumanN[m][t] = c.Models[0].Human[m][t], c.Models[0].HumanCI[m][t], c.Models[0].N[m][t]
				}
			}
		}
	}
	return c
}

// compareColumn computes one job's column; humanItems (nil without a
// crowd study) are the human item means by item id.
func compareColumn(r *Results, types []string, humanItems map[string]*toplines.ItemMeans) ModelColumn {
	col := ModelColumn{JobID: r.Job.ID, Name: r.Scorer, Values: map[string]map[string]*float64{},
		CI: map[string]map[string]*analysis.CI{}, N: map[string]map[string][2]int{}}
	withHumans := humanItems != nil
	if withHumans {
		col.Human, col.Diff = map[string]map[string]*float64{}, map[string]map[string]*float64{}
		col.HumanCI, col.DiffCI = map[string]map[string]*analysis.CI{}, map[string]map[string]*analysis.CI{}
	}
	for _, m := range Measures {
		col.Values[m], col.CI[m], col.N[m] = map[string]*float64{}, map[string]*analysis.CI{}, map[string][2]int{}
		paired := withHumans && m != "prior_control"
		if withHumans {
			col.Human[m], col.Diff[m] = map[string]*float64{}, map[string]*float64{}
			col.HumanCI[m], col.DiffCI[m] = map[string]*analysis.CI{}, map[string]*analysis.CI{}
		}
		for _, t := range types {
			tm, ok := r.TFMetrics[t]
			if !ok {
				continue
			}
			ps := pairHits(r.TF, t, m, humanItems, paired)
			n := ps.N()
			col.N[m][t] = [2]int{n, tm.Items}
			if v, ok := ps.A(); ok {
				col.Values[m][t] = &v
				col.CI[m][t] = analysis.Wilson(ps.Both+ps.OnlyA, n)
			}
			if !paired {
				continue
			}
			if v, ok := ps.B(); ok {
				a, _ := ps.A()
				d := a - v
				col.Human[m][t], col.Diff[m][t] = &v, &d
				col.HumanCI[m][t], col.DiffCI[m][t] = analysis.Wilson(ps.Both+ps.OnlyB, n), ps.DiffCI()
			}
		}
	}
	return col
}

// pairHits pairs the model's hit on measure m with the humans' on each
// item of type t (every type for AllTypes); paired, an item without a
// human hit is left out, unpaired the humans' side stays false.
func pairHits(tf []scoring.TFItemResult, t, m string, humanItems map[string]*toplines.ItemMeans, paired bool) toplines.PairedShares {
	var ps toplines.PairedShares // A: the model, B: the humans
	for _, it := range tf {
		if t != scoring.AllTypes && it.Type != t {
			continue
		}
		mh, ok := scoring.ItemHit(it, m)
		if !ok {
			continue
		}
		hh := false
		if paired {
			hm := humanItems[it.Key]
			if hm == nil {
				continue
			}
			if hh, ok = hm.Hit(m); !ok {
				continue
			}
		}
		ps.Add(mh, hh)
	}
	return ps
}

func nanIfNil(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// Bars draws one measure as grouped bars with their 95 % intervals: per
// type, the humans then each model, each on its comparison item set.
func (c Comparison) Bars(measure string) (*plot.Plot, error) {
	human := report.ModelSeries{Name: "humans", Values: make([]float64, len(c.Types)), CIs: make([]*analysis.CI, len(c.Types))}
	for i, t := range c.Types {
		human.Values[i] = math.NaN()
		if c.Human != nil {
			human.Values[i], human.CIs[i] = nanIfNil(c.Human[measure][t]), c.HumanCI[measure][t]
		}
	}
	var models []report.ModelSeries
	for _, m := range c.Models {
		s := report.ModelSeries{Name: m.Name, Values: make([]float64, len(c.Types)), CIs: make([]*analysis.CI, len(c.Types))}
		for i, t := range c.Types {
			s.Values[i], s.CIs[i] = nanIfNil(m.Values[measure][t]), m.CI[measure][t]
		}
		models = append(models, s)
	}
	label := MeasureLabels[measure]
	return report.AccuracyBars(label+": models and humans (95 % intervals)", label, c.Types, human, models)
}

// ComparisonCell is one measure and type of a model-vs-human comparison
// in the JSON (docs/formats.md#scoring-results).
type ComparisonCell struct {
	Items      int          `json:"items"`        // the item set both shares stand on
	ItemsInJob int          `json:"items_in_job"` // the job's items of that type
	Model      *float64     `json:"model"`
	ModelCI    *analysis.CI `json:"model_ci95"`
	Humans     *float64     `json:"humans"`
	HumansCI   *analysis.CI `json:"humans_ci95"`
	Difference *float64     `json:"difference"` // model − humans
	DiffCI     *analysis.CI `json:"difference_ci95"`
}

// JSON is the column's comparison with the humans, measure → type → cell;
// prior control, which humans were not asked, is left out. nil without
// humans.
func (col ModelColumn) JSON() map[string]map[string]ComparisonCell {
	if col.Human == nil {
		return nil
	}
	out := map[string]map[string]ComparisonCell{}
	for _, m := range Measures {
		if m == "prior_control" {
			continue
		}
		out[m] = map[string]ComparisonCell{}
		for t, n := range col.N[m] {
			out[m][t] = ComparisonCell{Items: n[0], ItemsInJob: n[1], Model: col.Values[m][t], ModelCI: col.CI[m][t],
				Humans: col.Human[m][t], HumansCI: col.HumanCI[m][t], Difference: col.Diff[m][t], DiffCI: col.DiffCI[m][t]}
		}
	}
	return out
}

// MeasureN is how many items a model's measure was computed on.
func MeasureN(m scoring.TFMetrics, measure string) int {
	return m.N[measure]
}
