package runner

import (
	"math"

	"gonum.org/v1/plot"

	"pragmalab/analysis"
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

// Comparison puts models' True/False measures beside the humans'.
type Comparison struct {
	Types []string
	Human map[string]map[string]*float64 // measure → type → share; nil without a crowd study
	// HumanN is, per measure and type, the items the human share stands on
	// and the items of that type in the (first) job.
	HumanN map[string]map[string][2]int
	Models []ModelColumn
}

// ModelColumn is one job's measures.
type ModelColumn struct {
	JobID  int64
	Name   string
	Values map[string]map[string]*float64 // measure → type → share
	// N is, per measure and type, the items the share stands on and the
	// items of that type in the job: "n of N" when n < N.
	N map[string]map[string][2]int
}

func modelValue(m scoring.TFMetrics, measure string) *float64 {
	s := map[string]scoring.Share{
		"implicature_recognition": m.ImplicatureRecognition, "cancellation_recognition": m.CancellationRecognition,
		"belief_update": m.BeliefUpdate, "negation_cancellation": m.NegationCancellation,
		"strengthening": m.Strengthening, "unchanged": m.Unchanged, "prior_control": m.PriorControl,
	}[measure]
	if v, ok := s.Value(); ok {
		return &v
	}
	return nil
}

func humanValue(t *analysis.TypeToplines, measure string) *float64 {
	if t == nil {
		return nil
	}
	switch measure {
	case "implicature_recognition":
		return t.ImplicatureRecognition
	case "cancellation_recognition":
		return t.CancellationRecognition
	case "belief_update":
		return t.BeliefUpdate
	case "negation_cancellation":
		return t.NegationCancellation
	case "strengthening":
		return t.Strengthening
	case "unchanged":
		return t.Unchanged
	}
	return nil
}

// Compare lays True/False results beside the human toplines (human may be
// nil). Types are those any model has, in the papers' order, "all" last.
func Compare(human *analysis.Toplines, results ...*Results) Comparison {
	seen := map[string]bool{}
	for _, r := range results {
		for t := range r.TFMetrics {
			seen[t] = true
		}
	}
	c := Comparison{Types: scoring.SortedTypes(seen)}
	if human != nil {
		c.Human, c.HumanN = map[string]map[string]*float64{}, map[string]map[string][2]int{}
		for _, m := range Measures {
			c.Human[m], c.HumanN[m] = map[string]*float64{}, map[string][2]int{}
			for _, t := range c.Types {
				c.Human[m][t] = humanValue(human.ByType[t], m)
				if tt := human.ByType[t]; tt != nil && m != "prior_control" && len(results) > 0 {
					c.HumanN[m][t] = [2]int{tt.Items - tt.LeftOut[m], results[0].TFMetrics[t].Items}
				}
			}
		}
	}
	for _, r := range results {
		col := ModelColumn{JobID: r.Job.ID, Name: r.Scorer, Values: map[string]map[string]*float64{}, N: map[string]map[string][2]int{}}
		for _, m := range Measures {
			col.Values[m] = map[string]*float64{}
			col.N[m] = map[string][2]int{}
			for _, t := range c.Types {
				if tm, ok := r.TFMetrics[t]; ok {
					col.Values[m][t] = modelValue(tm, m)
					col.N[m][t] = [2]int{tm.N[m], tm.Items}
				}
			}
		}
		c.Models = append(c.Models, col)
	}
	return c
}

func nanIfNil(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// Bars draws one measure as grouped bars: per type, humans then each model.
func (c Comparison) Bars(measure string) (*plot.Plot, error) {
	human := make([]float64, len(c.Types))
	for i, t := range c.Types {
		human[i] = math.NaN()
		if c.Human != nil {
			human[i] = nanIfNil(c.Human[measure][t])
		}
	}
	var models []analysis.ModelSeries
	for _, m := range c.Models {
		s := analysis.ModelSeries{Name: m.Name, Values: make([]float64, len(c.Types))}
		for i, t := range c.Types {
			s.Values[i] = nanIfNil(m.Values[measure][t])
		}
		models = append(models, s)
	}
	label := MeasureLabels[measure]
	return analysis.AccuracyBars(label+": models and humans", label, c.Types, human, models)
}

// MeasureN is how many items a model's measure was computed on.
func MeasureN(m scoring.TFMetrics, measure string) int {
	return m.N[measure]
}
