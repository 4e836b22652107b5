package handlers

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
	"pragmalab/comparisons"
	"pragmalab/i18n"
	"pragmalab/runner"
	"pragmalab/templates"
)

// altEpsilon reads the job page's ε (?epsilon=): nil for the task's
// default, or the refusal to show beside the form.
func altEpsilon(r *http.Request) (*float64, string) {
	s := strings.TrimSpace(strings.ReplaceAll(r.URL.Query().Get("epsilon"), ",", "."))
	if s == "" {
		return nil, ""
	}
	e, err := strconv.ParseFloat(s, 64)
	if err != nil || e < 0 || e >= 1 {
		return nil, "ε must be a number from 0 to below 1; the default is used."
	}
	return &e, ""
}

// fillHumanCompare adds the job beside its study's humans to a human-task
// job's page.
func (h *Handler) fillHumanCompare(r *http.Request, v *templates.JobView, res *runner.Results) error {
	if v.Human == nil {
		return nil
	}
	eps, refused := altEpsilon(r)
	c, err := h.Comparisons.CompareJobWithHumans(r.Context(), res, eps)
	if err != nil || c == nil {
		return err
	}
	base := templates.JobURL(res.Job.StudyID, res.Job.ID, "")
	cv := humanCompareView(c, res.Scorer, base)
	cv.EpsilonError = refused
	v.Human.Compare = cv
	return nil
}

func num3(p *float64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatFloat(*p, 'f', 3, 64)
}

// humanCompareView formats the comparison of the job's model for the page.
func humanCompareView(c *comparisons.JobHumanComparison, model, base string) *templates.HumanCompareView {
	at := c.AltTest
	scoringText := "accuracy: the share of the other humans giving the same answer"
	if at.Options.Scoring == modelhuman.AltNegRMSE {
		scoringText = "−RMSE against the other humans"
		if at.ZScore {
			scoringText += ", each annotator's ratings and the model's expected ratings z-scored first"
		}
	}
	v := &templates.HumanCompareView{FormAction: base, Epsilon: strconv.FormatFloat(at.Epsilon, 'g', -1, 64),
		DefaultEpsilon: strconv.FormatFloat(at.Default.Epsilon, 'g', -1, 64), Scoring: scoringText, Source: at.Source,
		Error: at.Error, Thin: at.Thin, LatinSquare: at.LatinSquare, Notes: at.Notes}
	if m := at.Result; m != nil {
		v.Passed = m.Passed
		v.Verdict = fmt.Sprintf("The model does not pass at ε = %s: it wins against %.0f%% of the humans, below half.", v.Epsilon, 100*m.WinningRate)
		if m.Passed {
			v.Verdict = fmt.Sprintf("The model passes at ε = %s: it wins against %.0f%% of the humans.", v.Epsilon, 100*m.WinningRate)
		}
		if m.Verdict == modelhuman.AltNA {
			v.Verdict = fmt.Sprintf("No verdict at ε = %s (%s): with fewer humans the test only asks which of them the model is closer to.", v.Epsilon, m.VerdictReason)
		}
		v.Measures = []templates.HumanMeasure{
			{Label: "Winning rate ω (share of humans the model beats, up to ε)", Value: strconv.FormatFloat(m.WinningRate, 'f', 3, 64)},
			{Label: "Advantage probability ρ (mean share of items where the model does at least as well)", Value: strconv.FormatFloat(m.AdvantageProbability, 'f', 3, 64)},
			{Label: "Humans tested (of those who answered)", Value: fmt.Sprintf("%d of %d", m.Humans, at.Humans)},
			{Label: "Items", Value: strconv.Itoa(m.Items)},
		}
		for _, p := range m.PerHuman {
			v.PerHuman = append(v.PerHuman, templates.AltHumanRow{Annotator: p.Annotator, Items: strconv.Itoa(p.Items),
				PValue: strconv.FormatFloat(p.PValue, 'g', 3, 64), Rejected: map[bool]string{true: "yes", false: "no"}[p.Rejected]})
		}
		// The whole comparison's methods text, as `score --methods` prints it.
		for _, l := range report.Langs {
			v.Methods = append(v.Methods, templates.HumanMeasure{Label: i18n.Default.Name(string(l)), Value: strings.Join(c.Methods(model, l).Paragraphs, "\n\n")})
		}
	}
	fillDistView(v, c, base)
	for _, k := range slices.Sorted(maps.Keys(c.Errors)) {
		v.Errors = append(v.Errors, k+": "+c.Errors[k])
	}
	return v
}

// fillDistView adds a likert job's distributions, correlation and
// calibration, and an expert job's ΔA.
func fillDistView(v *templates.HumanCompareView, c *comparisons.JobHumanComparison, base string) {
	if d := c.Distributions; d != nil {
		v.DistNote = fmt.Sprintf("Per item × condition, the model's distribution over the %d points against the humans' histogram, beside two chance baselines: the uniform distribution and the humans' marginal distribution over the scale (every rating pooled). The ceiling is the mean distance between random halves of the humans (%d splits); being within it does not separate chance from skill, since with few raters a chance baseline is often within it too. The skill score does: (baseline − model)/(baseline − sampling floor) against the closer of the two baselines, 0 at chance, 1 at the sampling floor (the distance a model that knew each item's distribution would have from its raters' histogram), below 0 worse than chance; its interval is a bootstrap over items. JSD is the Jensen–Shannon divergence in bits (not its square root); KL(human ‖ model) smooths the model's distribution by %g per point; Wasserstein is divided by (points − 1); TV is the total variation.", d.Points, d.Splits, d.Smoothing)
		for _, m := range modelhuman.Measures {
			s := d.SummaryOf(m, "all")
			if s == nil {
				continue
			}
			row := templates.DistRow{Measure: m, Units: strconv.Itoa(s.Units), Model: num3(s.MeanModel), Floor: num3(s.MeanFloor), Ceiling: num3(s.MeanCeiling),
				Within: withinText(s.WithinShare, s.Within), Skill: report.SkillText(s)}
			if b := s.Baseline(modelhuman.BaselineUniform); b != nil {
				row.Uniform, row.UniformWithin = num3(b.MeanDistance), withinText(b.WithinShare, b.Within)
			}
			if b := s.Baseline(modelhuman.BaselineMarginal); b != nil {
				row.Marginal, row.MarginalWithin = num3(b.MeanDistance), withinText(b.WithinShare, b.Within)
			}
			v.Dist = append(v.Dist, row)
		}
		if s := d.SummaryOf(modelhuman.MeasureJSD, "all"); s != nil {
			v.Skill = "Skill against chance (JSD): " + report.SkillText(s) + "; 0 is chance, 1 the sampling floor."
		}
		for _, f := range humanFigureNames(c) {
			v.Figures = append(v.Figures, templates.FigureLink{Title: f.title, Base: base + "/human-figures/" + f.name, Alt: f.title})
		}
	}
	if k := c.Correlation; k != nil {
		v.Correlation = []templates.HumanMeasure{
			{Label: "Pearson r of the model's expected rating with the crowd's mean z-score", Value: num3(k.R)},
			{Label: "Split-half reliability of the crowd's means (Spearman–Brown)", Value: num3(k.Reliability)},
			{Label: "Ceiling (√ reliability)", Value: num3(k.Ceiling)},
			{Label: "Share of the ceiling reached", Value: num3(k.Share)},
			{Label: "Items × conditions", Value: strconv.Itoa(k.Units)},
		}
	}
	if k := c.Calibration; k != nil {
		v.Calibration = []templates.HumanMeasure{{Label: "Expected calibration error", Value: num3(k.ECE)}, {Label: "Items × conditions", Value: strconv.Itoa(k.Items)}}
	}
	if k := c.Replacement; k != nil {
		v.Replacement = []templates.HumanMeasure{{Label: "α of the experts (plausibility, nominal)", Value: num3(k.Alpha)},
			{Label: "ΔA: mean change of α with the model in an expert's place", Value: num3(k.DeltaA)}}
	}
}

// withinText is a share within the ceiling as a percentage with its count.
func withinText(share *float64, n int) string {
	if share == nil {
		return "—"
	}
	return fmt.Sprintf("%.0f%% (%d)", 100**share, n)
}

type humanFigure struct{ name, title string }

// humanFigureNames lists a comparison's figures: the distributions' and
// the reliability diagram.
func humanFigureNames(c *comparisons.JobHumanComparison) []humanFigure {
	var out []humanFigure
	if c.Distributions != nil {
		out = append(out, humanFigure{"distance_ceiling_" + modelhuman.MeasureJSD, "Model JSD against the human ceiling, per item"},
			humanFigure{"distance_ceiling_" + modelhuman.MeasureWasserstein, "Model Wasserstein distance against the human ceiling, per item"},
			humanFigure{"distribution_panel", "Human and model distributions, the 12 items where they differ most"})
	}
	if c.Calibration != nil {
		out = append(out, humanFigure{"reliability_diagram", "Reliability diagram: P(above the midpoint) against the crowd's share"})
	}
	return out
}

// JobHumanFigure handles GET
// /admin/studies/{study}/jobs/{job}/human-figures/{name}.{format}.
func (h *Handler) JobHumanFigure(w http.ResponseWriter, r *http.Request) {
	_, res, err := h.jobResults(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	name, format := chi.URLParam(r, "name"), chi.URLParam(r, "format")
	if !slices.Contains(report.PlotFormats, format) {
		h.NotFound(w, r)
		return
	}
	c, err := h.Comparisons.CompareJobWithHumans(r.Context(), res, nil)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	b, ok, err := comparisons.HumanFigure(c, name, format)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if !ok {
		h.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", map[string]string{"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf"}[format])
	w.Write(b)
}
