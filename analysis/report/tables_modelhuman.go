package report

import (
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"strconv"
)

// AltTestTable lays the alt-test out for people: one row per model, then
// one per model × human.
func AltTestTable(a *modelhuman.AltTest) []*Table {
	sum := &Table{Name: "alt_test", Title: fmt.Sprintf("Alternative annotator test (%s, ε = %s, BY q = %s)", a.Options.Scoring, analysis.Fixed(a.Options.Epsilon, 2), strconv.FormatFloat(a.Options.Q, 'g', -1, 64)),
		Columns: []string{"model", "winning rate ω", "advantage prob. ρ", "passed", "humans", "items"}, Notes: a.Notes}
	per := &Table{Name: "alt_test_humans", Title: "Alt-test per human (one-sided t-test of W_h − W_m < ε)",
		Columns: []string{"model", "annotator", "items", "ρ model", "ρ human", "p", "rejected"}}
	for _, name := range a.Order {
		m := a.Models[name]
		passed := "no"
		if m.Passed {
			passed = "yes"
		}
		if m.VerdictReason != "" {
			passed = m.VerdictReason
		}
		sum.Rows = append(sum.Rows, []any{name, analysis.Num(m.WinningRate), analysis.Num(m.AdvantageProbability), passed, m.Humans, m.Items})
		for _, h := range m.PerHuman {
			rej := "no"
			if h.Rejected {
				rej = "yes"
			}
			per.Rows = append(per.Rows, []any{name, h.Annotator, h.Items, analysis.Num(h.RhoModel), analysis.Num(h.RhoHuman), PValue{analysis.Num(h.PValue)}, rej})
		}
	}
	return []*Table{sum, per}
}

// CalibrationTable lays the bins and the ECE out for people.
func CalibrationTable(c *modelhuman.Calibration) *Table {
	t := &Table{Name: "calibration", Title: "Calibration of the model's P(True) against the human share",
		Columns: []string{"bin", "items", "mean P(True)", "mean human share"}}
	for _, b := range c.Bins {
		t.Rows = append(t.Rows, []any{analysis.Fixed(b.Lo, 1) + "–" + analysis.Fixed(b.Hi, 1), b.Items, b.MeanModel, b.MeanHumans})
	}
	t.Notes = []string{"Expected calibration error: " + Text(analysis.Est{V: c.ECE, CI: c.ECECI}) + " over " + analysis.Itoa(c.Items) + " items."}
	return t
}

// DistributionsTable lays the summaries out for people: each measure's
// mean distance of the model beside the chance baselines', the sampling
// floor and the ceiling, the shares within the ceiling, and the model's
// skill against chance (docs/statistics.md#chance-baselines-and-skill).
func DistributionsTable(d *modelhuman.Distributions) *Table {
	t := &Table{Name: "distributions", Title: fmt.Sprintf("Model vs human rating distributions, beside chance and the human ceiling (%d points)", d.Points),
		Columns: []string{"measure", "condition", "units", "model", "uniform", "marginal", "floor", "ceiling", "within: model", "within: uniform", "within: marginal", "skill", "skill vs"},
		Notes: []string{
			"jsd: Jensen–Shannon divergence in bits (the divergence, not its square root); kl: KL(human ‖ model) in bits, the model smoothed by " + analysis.Fixed(d.Smoothing, 2) + " per point;",
			"wasserstein: earth mover's distance divided by (points − 1); tv: total variation. Ceiling: the mean distance between two random halves of the humans (" + analysis.Itoa(d.Splits) + " splits, or every split when there are fewer).",
			"uniform, marginal: the chance baselines, the uniform distribution and the humans' ratings pooled over every unit. Floor: the expected distance of a model that knew each unit's distribution (sampling noise alone).",
			"skill = (baseline − model)/(baseline − floor) against the closer baseline: 0 chance, 1 the floor; 95 % bootstrap interval over units. A share within the ceiling does not separate chance from skill.",
		}}
	for _, s := range d.Summary {
		row := []any{s.Measure, s.Condition, s.Units, s.MeanModel}
		var within []any
		for _, name := range modelhuman.Baselines {
			if b := s.Baseline(name); b != nil {
				row = append(row, b.MeanDistance)
				within = append(within, analysis.Est{V: b.WithinShare, CI: b.WithinCI})
			} else {
				row = append(row, analysis.Missing)
				within = append(within, analysis.Missing)
			}
		}
		row = append(row, s.MeanFloor, s.MeanCeiling, analysis.Est{V: s.WithinShare, CI: s.WithinCI})
		row = append(append(row, within...), analysis.Est{V: s.Skill, CI: s.SkillCI}, orMissing(s.SkillBaseline))
		t.Rows = append(t.Rows, row)
	}
	return t
}

func orMissing(s string) string {
	if s == "" {
		return analysis.Missing
	}
	return s
}

// SkillText is a summary's skill score with its interval and the baseline
// it is measured against, e.g. "0.62 [0.55, 0.69] vs the humans'
// marginal"; why not, when it is undefined.
func SkillText(s *modelhuman.DistSummary) string {
	if s.Skill == nil {
		return "undefined (no chance baseline is farther from the humans than the sampling floor)"
	}
	t := analysis.Fixed(*s.Skill, 2)
	if s.SkillCI != nil {
		t += " " + analysis.CIText(s.SkillCI)
	}
	return t + " vs " + BaselineName(s.SkillBaseline)
}

// BaselineName names a chance baseline for people.
func BaselineName(b string) string {
	if b == modelhuman.BaselineMarginal {
		return "the humans' marginal"
	}
	return "the uniform"
}

// CrowdReliabilityTables lays α and the split-half reliability out for people.
func CrowdReliabilityTables(c *modelhuman.CrowdReliability) []*Table {
	a := &Table{Name: "crowd_alpha", Title: "Krippendorff's α of the crowd ratings (units: item × condition)",
		Columns: []string{"condition", "units", "ratings", "α interval", "α ordinal"}}
	for _, r := range c.Alpha {
		a.Rows = append(a.Rows, []any{r.Condition, r.Units, r.Ratings, analysis.Est{V: r.Interval, CI: r.IntervalCI}, analysis.Est{V: r.Ordinal, CI: r.OrdinalCI}})
	}
	s := &Table{Name: "split_half", Title: "Split-half reliability of the item means (z-scores, Spearman–Brown corrected)",
		Columns: []string{"condition", "units", "splits", "half r", "reliability"},
		Notes:   []string{"The interval is the 2.5–97.5 percentiles over the random splits."}}
	for _, r := range c.SplitHalf {
		s.Rows = append(s.Rows, []any{r.Condition, r.Units, r.Splits, r.R, analysis.Est{V: r.Reliability, CI: r.CI}})
		if r.Note != "" {
			s.Notes = append(s.Notes, r.Condition+": "+r.Note+".")
		}
	}
	// Those who rated everything the same are left out here, and may be
	// counted elsewhere on the same page (a judgement study's means on
	// the scale): the ratings column says fewer, and this says why
	// (docs/statistics.md#crowd-krippendorffs-alpha).
	if z := len(c.ZeroVariance); z > 0 {
		who := fmt.Sprintf("%d participants who gave every item the same rating are", z)
		if z == 1 {
			who = "1 participant who gave every item the same rating is"
		}
		note := who + " left out of α and of the split-half reliability (no z-scores), with their ratings."
		a.Notes = append(a.Notes, note)
		s.Notes = append(s.Notes, note)
	}
	return []*Table{a, s}
}

// ExpertReplacementTable lays ΔA out for people: α of the experts, then
// one row per expert replaced, then the mean.
func ExpertReplacementTable(r *modelhuman.ExpertReplacement) *Table {
	t := &Table{Name: "expert_replacement", Title: "The model in each expert's place: Krippendorff's α (" + r.Metric + ") and ΔA",
		Columns: []string{"experts", "units replaced", "α", "ΔA"},
		Notes:   []string{"ΔA = α with the model in the expert's place − α of the experts; the mean's interval is a bootstrap over items."}}
	t.Rows = append(t.Rows, []any{"all experts", r.Units, r.Alpha, analysis.Missing})
	for _, e := range r.PerExpert {
		t.Rows = append(t.Rows, []any{"model for " + e.Expert, e.Replace, e.Alpha, e.DeltaA})
	}
	t.Rows = append(t.Rows, []any{"mean ΔA", r.Units, analysis.Missing, analysis.Est{V: r.DeltaA, CI: r.DeltaACI}})
	return t
}
