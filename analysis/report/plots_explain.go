package report

import (
	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
)

// ExplanationFigures are the explanation study's figures: per kind, the
// share of acceptable explanations (totally correct, correct among
// options or partially correct) and of totally correct ones for each
// prompting strategy, with their 95 % Wilson intervals over ratings
// (docs/statistics.md#figures). With models named, the acceptable share
// per model follows.
func ExplanationFigures(e *modelhuman.Explanations) ([]Figure, error) {
	var figs []Figure
	if len(e.KindOrder) == 0 {
		return nil, nil // nothing rated: no figure
	}
	strategies := e.StrategyOrder
	if len(strategies) > 1 { // the pooled "all" strategy only when there is more than one
		strategies = strategies[:len(strategies)-1]
	}
	for _, m := range []struct {
		name, title string
		get         func(*modelhuman.JudgmentShares) (*float64, *analysis.CI)
	}{
		{"explanations_acceptable", "Acceptable explanations per kind and strategy (95 % intervals)",
			func(s *modelhuman.JudgmentShares) (*float64, *analysis.CI) { return s.Acceptable(), s.AcceptableCI() }},
		{"explanations_totally_correct", "Totally correct explanations per kind and strategy (95 % intervals)",
			func(s *modelhuman.JudgmentShares) (*float64, *analysis.CI) { return s.Share(0), s.ShareCI(0) }},
	} {
		p, err := IntervalPlot(m.title, "share of ratings", e.KindOrder, explanationSeries(e, strategies, m.get), 0, 1)
		if err != nil {
			return nil, err
		}
		figs = append(figs, Figure{Name: m.name, Title: p.Title.Text, Plot: p})
	}
	if len(e.ModelOrder) > 1 {
		var series []IntervalSeries
		for _, model := range e.ModelOrder {
			s := IntervalSeries{Name: model}
			x := e.ByModel[model]
			for _, st := range strategies {
				v, ci := (*float64)(nil), (*analysis.CI)(nil)
				if c := x.Table[x.PooledKind()][st]; c != nil {
					v, ci = c.Acceptable(), c.AcceptableCI()
				}
				s.Values, s.CIs = append(s.Values, v), append(s.CIs, ci)
			}
			series = append(series, s)
		}
		p, err := IntervalPlot("Acceptable explanations per model and strategy (95 % intervals)", "share of ratings", strategies, series, 0, 1)
		if err != nil {
			return nil, err
		}
		figs = append(figs, Figure{Name: "explanations_acceptable_by_model", Title: p.Title.Text, Plot: p})
	}
	return figs, nil
}

// explanationSeries is one series per strategy over the kinds.
func explanationSeries(e *modelhuman.Explanations, strategies []string, get func(*modelhuman.JudgmentShares) (*float64, *analysis.CI)) []IntervalSeries {
	var series []IntervalSeries
	for _, st := range strategies {
		s := IntervalSeries{Name: st}
		for _, k := range e.KindOrder {
			v, ci := (*float64)(nil), (*analysis.CI)(nil)
			if c := e.Table[k][st]; c != nil {
				v, ci = get(c)
			}
			s.Values, s.CIs = append(s.Values, v), append(s.CIs, ci)
		}
		series = append(series, s)
	}
	return series
}
