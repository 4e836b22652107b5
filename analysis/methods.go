package analysis

import (
	"fmt"
	"strings"
)

// Methods is the methods paragraph of an analysis: sentences a researcher
// pastes into a paper, with the numbers filled in, and the JSON keys each
// number comes from.
type Methods struct {
	Title      string
	Paragraphs []string
	Sources    []string // "participants.total", … in the order used
}

// Text is the paragraph as plain text, then where the numbers come from.
func (m *Methods) Text() string {
	var b strings.Builder
	b.WriteString(m.Title + "\n\n")
	for _, p := range m.Paragraphs {
		b.WriteString(p + "\n\n")
	}
	b.WriteString("Numbers from the --json output: " + strings.Join(m.Sources, ", ") + ".\n")
	return b.String()
}

// Markdown is the paragraph as Markdown.
func (m *Methods) Markdown() string {
	var b strings.Builder
	b.WriteString("### " + m.Title + "\n\n")
	for _, p := range m.Paragraphs {
		b.WriteString(p + "\n\n")
	}
	b.WriteString("<!-- numbers from the --json output: " + strings.Join(m.Sources, ", ") + " -->\n")
	return b.String()
}

// f2 prints a statistic as papers do (two decimals); "undefined" when nil.
func f2(x *float64) string {
	if x == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.2f", *x)
}

// pct prints a share as a percentage.
func pct(x *float64) string {
	if x == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.0f %%", 100**x)
}

// withCI prints "0.85, 95 % CI [0.76, 0.93]" (or without the interval).
func withCI(v string, ci *CI, asPct bool) string {
	if ci == nil {
		return v
	}
	if asPct {
		return fmt.Sprintf("%s (95 %% CI %.0f–%.0f %%)", v, 100*ci[0], 100*ci[1])
	}
	return fmt.Sprintf("%s, 95 %% CI [%.2f, %.2f]", v, ci[0], ci[1])
}

func bootSentence(b *BootstrapInfo, what string) string {
	if b == nil {
		return "No intervals were computed."
	}
	return fmt.Sprintf("Intervals come from %d bootstrap replicates (seed %d) %s; method: %s.", b.Replicates, b.Seed, what, b.Scheme)
}

// ToplinesMethods writes the methods paragraph of the toplines; rows is
// the number of rows read (ratings and attention checks).
func ToplinesMethods(t *Toplines, rows int) *Methods {
	ps := t.Participants
	all := t.ByType[TypeAll]
	m := &Methods{Title: "Methods: human ratings"}
	m.Paragraphs = append(m.Paragraphs, fmt.Sprintf(
		"Of %d participants, %d %s excluded for failing %d or more attention checks (a \"high\" check passed with a rating of at least %d, a \"low\" one with at most %d) or by the researcher, %d gave only attention-check ratings, and %d gave the same rating to every item, so that no z-score could be computed; %d participants were analysed (%d rows read, attention checks included). Each participant's ratings were z-scored (population standard deviation) and the z-scores averaged per item and condition.",
		ps.Total, len(ps.Excluded), wasWere(len(ps.Excluded)), t.Settings.MaxFailed, t.Settings.HighPass, t.Settings.LowPass, len(ps.ChecksOnly), len(ps.ZeroVariance), ps.Analysed, rows))
	m.Paragraphs = append(m.Paragraphs, fmt.Sprintf(
		"Of the %d items, the implicature was recognised (mean z without cancellation above 0) for %s of the %d rated without cancellation; the cancellation was recognised (mean z lower with it) for %s and both held (belief update) for %s of the %d rated in both conditions. Item means without and with cancellation correlated with r = %s (%s, n = %d items).",
		all.Items, withCI(pct(all.ImplicatureRecognition), all.ImplicatureRecognitionCI, true), all.Items-all.LeftOut[MImplicature],
		withCI(pct(all.CancellationRecognition), all.CancellationRecognitionCI, true),
		withCI(pct(all.BeliefUpdate), all.BeliefUpdateCI, true), all.Items-all.LeftOut[MCancellation],
		withCI(f2(all.PearsonR), all.PearsonRCI, false), pOrUndefined(all.PearsonP), all.PearsonN))
	m.Paragraphs = append(m.Paragraphs, bootSentence(t.Bootstrap,
		"that resample the analysed participants and, independently, the items within each type, keeping each participant's z-scores; shares are over the items having the conditions compared"))
	m.Sources = []string{"participants.total", "participants.excluded", "settings", "participants.checks_only", "participants.zero_variance",
		"participants.analysed", "by_type.all.items", "by_type.all.implicature_recognition(_ci95)", "by_type.all.cancellation_recognition(_ci95)",
		"by_type.all.belief_update(_ci95)", "by_type.all.pearson_r(_ci95)", "by_type.all.pearson_p", "by_type.all.pearson_n", "bootstrap"}
	return m
}

func pOrUndefined(p *float64) string {
	if p == nil {
		return "p undefined"
	}
	return FormatP(*p)
}

// AgreementMethods writes the methods paragraph of the expert agreement;
// judgements is the number of rows read.
func AgreementMethods(a *Agreement, judgements int) *Methods {
	m := &Methods{Title: "Methods: expert agreement"}
	m.Paragraphs = append(m.Paragraphs, fmt.Sprintf("%d experts (%s) gave %d judgements.", len(a.Annotators), strings.Join(a.Annotators, ", "), judgements))
	for _, q := range []struct {
		label string
		q     Question
		key   string
	}{{"plausibility of the implicature", a.Plausibility, "plausibility"}, {"correctness of the cancellation (items both experts of a pair found plausible and answered)", a.Cancellation, "cancellation"}} {
		kappa := fmt.Sprintf("Cohen's κ = %s", withCI(f2(q.q.Kappa), q.q.KappaCI, false))
		if len(a.Annotators) > 2 {
			kappa = fmt.Sprintf("Light's κ (mean pairwise Cohen's κ) = %s", withCI(f2(q.q.LightsKappa), q.q.LightsKappaCI, false))
			if q.q.FleissRaters > 0 {
				kappa += fmt.Sprintf(", Fleiss' κ = %s over the %d items judged by %d experts", withCI(f2(q.q.FleissKappa), q.q.FleissKappaCI, false), q.q.FleissItems, q.q.FleissRaters)
			}
		}
		m.Paragraphs = append(m.Paragraphs, fmt.Sprintf("On the %s, raw agreement was %s over %d item pairs (PABAK = %s), %s, and Krippendorff's α (nominal) = %s over %d items.",
			q.label, withCI(f2(q.q.Raw), q.q.RawCI, false), q.q.Items, withCI(f2(q.q.PABAK), q.q.PABAKCI, false), kappa,
			withCI(f2(q.q.KrippendorffAlpha), q.q.KrippendorffAlphaCI, false), q.q.AlphaItems))
		m.Sources = append(m.Sources, q.key+".raw(_ci95)", q.key+".items", q.key+".pabak(_ci95)", q.key+".kappa(_ci95)", q.key+".lights_kappa(_ci95)",
			q.key+".fleiss_kappa(_ci95)", q.key+".krippendorff_alpha(_ci95)", q.key+".krippendorff_items")
	}
	m.Paragraphs = append(m.Paragraphs, bootSentence(a.Bootstrap, "resampling the items within each item type")+" The same figures per item type are in by_type.")
	m.Sources = append(m.Sources, "annotators", "bootstrap")
	return m
}

// ContextMethods writes the methods paragraph of the context surveys.
func ContextMethods(c *Context) *Methods {
	o := c.Overall
	m := &Methods{Title: "Methods: context needed"}
	m.Paragraphs = append(m.Paragraphs, fmt.Sprintf(
		"Experts gave %d final answers on %d passages in %d %s, each answer one of 7 ordered categories: the implicit content understood with 0 to 5 added preceding sentences, or not understood once all were shown. Over all surveys, Fleiss' κ was %s (over the %d passages answered by %d experts), Krippendorff's α %s (nominal) and %s (ordinal, \"insufficient\" the highest category) over %d passages; all experts chose the same category on %s of the %d passages with two or more answers and a majority on %s more. With no added sentence, %s of the judgements found the content understandable.",
		o.Judgements, o.Items, len(c.SurveyOrder), plural(len(c.SurveyOrder), "survey", "surveys"), withCI(f2(o.FleissKappa), o.FleissKappaCI, false), o.FleissItems, o.FleissRaters,
		withCI(f2(o.KrippendorffAlphaNominal), o.KrippendorffAlphaNominalCI, false), withCI(f2(o.KrippendorffAlphaOrdinal), o.KrippendorffAlphaOrdinalCI, false), o.AlphaItems,
		withCI(pct(o.FullConsensus), o.FullConsensusCI, true), o.ConsensusItems, withCI(pct(o.MajorityConsensus), o.MajorityConsensusCI, true),
		withCI(pct(o.CumulativeJudgements[0]), o.CumulativeJudgementsCI[0], true)))
	m.Paragraphs = append(m.Paragraphs, bootSentence(c.Bootstrap, "resampling passages within each survey")+" The same figures per survey are in surveys and per kind × period in by_kind_period.")
	m.Sources = []string{"overall.judgements", "overall.items", "overall.fleiss_kappa(_ci95)", "overall.fleiss_items", "overall.fleiss_raters",
		"overall.krippendorff_alpha_nominal(_ci95)", "overall.krippendorff_alpha_ordinal(_ci95)", "overall.krippendorff_items",
		"overall.full_consensus(_ci95)", "overall.consensus_items", "overall.majority_consensus(_ci95)", "overall.cumulative_judgements[0](_ci95)", "bootstrap"}
	return m
}

// ExplanationsMethods writes the methods paragraph of the explanation ratings.
func ExplanationsMethods(e *Explanations, ratings int) *Methods {
	m := &Methods{Title: "Methods: ratings of model explanations"}
	var parts []string
	kind := TypeAll
	if e.Table[TypeAll] == nil && len(e.KindOrder) > 0 {
		kind = e.KindOrder[0]
	}
	for _, s := range e.StrategyOrder {
		if c := e.Table[kind][s]; c != nil && s != TypeAll {
			parts = append(parts, s+" "+pctN(c.Acceptable(), c.AcceptableCI(), c.N))
		}
	}
	pooled := e.Table[kind][TypeAll]
	m.Paragraphs = append(m.Paragraphs, fmt.Sprintf(
		"Experts gave %d ratings of model explanations on a five-point scale (totally correct, correct among various options, partially correct, totally wrong, answer not given). Counting the first three as acceptable, %s of the explanations were acceptable overall; by prompting strategy: %s. Intervals are 95 %% Wilson score intervals with the passages as clusters (effective sample size).",
		ratings, withCI(pct(pooled.Acceptable()), pooled.AcceptableCI(), true), strings.Join(parts, "; ")))
	if len(e.ModelOrder) > 0 {
		var ms []string
		for _, name := range e.ModelOrder {
			x := e.ByModel[name]
			k := TypeAll
			if x.Table[TypeAll] == nil && len(x.KindOrder) > 0 {
				k = x.KindOrder[0]
			}
			c := x.Table[k][TypeAll]
			ms = append(ms, name+" "+pctN(c.Acceptable(), c.AcceptableCI(), c.N))
		}
		m.Paragraphs = append(m.Paragraphs, "By model: "+strings.Join(ms, "; ")+".")
	}
	m.Sources = []string{kind + ".all.n", kind + ".all.acceptable(_ci95)", kind + ".<strategy>.acceptable(_ci95)", "by_model"}
	return m
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// pctN prints "67 % (95 % CI 21–94 %, n = 3)".
func pctN(x *float64, ci *CI, n int) string {
	if ci == nil {
		return fmt.Sprintf("%s (n = %d)", pct(x), n)
	}
	return fmt.Sprintf("%s (95 %% CI %.0f–%.0f %%, n = %d)", pct(x), 100*ci[0], 100*ci[1], n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
