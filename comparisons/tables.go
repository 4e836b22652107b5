package comparisons

import (
	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
)

// The comparison of a human-task job with its study's humans as tables
// (booktabs LaTeX, CSV, text) and as methods paragraphs, for `score
// --latex` / `--methods` and the job page's downloads (docs/scoring.md).

// Tables lays the comparison out: the alt-test and its per-human tests,
// then the distributions against the human ceiling, the correlation
// against the split-half ceiling, the calibration and ΔA, as far as the
// task has them. The alt-test's notes carry ε's source and where the
// design is too thin.
func (c *JobHumanComparison) Tables(model string) []*report.Table {
	var out []*report.Table
	if at := c.AltTest; at != nil && at.Result != nil {
		a := &modelhuman.AltTest{Models: map[string]*modelhuman.AltTestModel{model: at.Result}, Order: []string{model}, Options: at.Options}
		ts := report.AltTestTable(a)
		ts[0].Notes = append(append(append([]string{"ε = " + analysis.Fixed(at.Epsilon, 2) + ": " + at.Source + "."}, at.Thin...), at.Notes...), latinSquare(at)...)
		out = append(out, ts...)
	}
	return append(out, report.ModelHumanTables(c.Distributions, c.Correlation, c.Calibration, c.Replacement)...)
}

func latinSquare(at *JobAltTest) []string {
	if at.LatinSquare == "" {
		return nil
	}
	return []string{at.LatinSquare}
}

// Methods is the comparison's methods text in language l: the alt-test's
// paragraph (with ε and its source), then one paragraph per measure.
func (c *JobHumanComparison) Methods(model string, l report.Lang) *report.Methods {
	m := &report.Methods{Lang: l}
	if l == report.Italian {
		m.Title = "Metodi: il modello a confronto con gli annotatori umani"
	} else {
		m.Title = "Methods: the model against the human annotators"
	}
	if at := c.AltTest; at != nil && at.Result != nil {
		a := &modelhuman.AltTest{Models: map[string]*modelhuman.AltTestModel{model: at.Result}, Order: []string{model}, Options: at.Options}
		m.Paragraphs = append(m.Paragraphs, report.AltTestMethods(a, l).Paragraphs...)
		src := "ε = " + analysis.Fixed(at.Epsilon, 2) + " (" + at.Source + ")."
		if at.Epsilon != at.Default.Epsilon {
			src = "ε = " + analysis.Fixed(at.Epsilon, 2) + "; the task's default, " + analysis.Fixed(at.Default.Epsilon, 2) + ", follows " + at.Source + "."
		}
		if l == report.Italian {
			src = "ε = " + analysis.Fixed(at.Epsilon, 2) + " (fonte del valore predefinito " + analysis.Fixed(at.Default.Epsilon, 2) + ": " + at.Source + ")."
		}
		m.Paragraphs = append(m.Paragraphs, src)
	}
	m.Paragraphs = append(m.Paragraphs, report.ModelHumanMethods(l, c.Distributions, c.Correlation, c.Calibration, c.Replacement)...)
	m.Sources = []string{"humans.alt_test", "humans.distributions.summary", "humans.correlation", "humans.calibration", "humans.expert_replacement"}
	return m
}
