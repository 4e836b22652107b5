package report

import (
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"strings"
)

// A model against its study's humans beyond the alt-test (docs/statistics.md#where-each-shows): the
// tables and the methods paragraphs of the distributions against the
// human ceiling, the correlation against the split-half ceiling, the
// calibration and ΔA, as the job page, `score --latex` and `score
// --methods` give them (docs/statistics.md).

// CorrelationCeilingTable lays a model–human correlation out beside the
// crowd's split-half reliability, the ceiling √reliability and the share
// of the ceiling the model reaches.
func CorrelationCeilingTable(c *modelhuman.ModelHumanCorrelation) *Table {
	return &Table{Name: "correlation_ceiling", Title: "Model–human correlation against the crowd's split-half ceiling",
		Columns: []string{"units", "r", "split-half reliability", "ceiling √rel", "share of ceiling"},
		Rows:    [][]any{{c.Units, c.R, analysis.Est{V: c.SplitHalf.Reliability, CI: c.SplitHalf.CI}, c.Ceiling, c.Share}},
		Notes: []string{"r: Pearson correlation of the model's expected rating with the crowd's mean z-score per item × condition; the reliability is Spearman–Brown corrected, averaged over " +
			analysis.Itoa(c.SplitHalf.Splits) + " random half-splits of each unit's raters (interval: their 2.5–97.5 percentiles)."}}
}

// ModelHumanTables lays out what of the comparison exists, in the order of
// the job page: distributions, correlation, calibration, ΔA.
func ModelHumanTables(d *modelhuman.Distributions, c *modelhuman.ModelHumanCorrelation, cal *modelhuman.Calibration, r *modelhuman.ExpertReplacement) []*Table {
	var out []*Table
	if d != nil {
		out = append(out, DistributionsTable(d))
	}
	if c != nil {
		out = append(out, CorrelationCeilingTable(c))
	}
	if cal != nil {
		t := CalibrationTable(cal)
		t.Title = "Calibration of the model's P(above the midpoint) against the crowd's share"
		t.Columns = []string{"bin", "items", "mean P(above the midpoint)", "mean crowd share"}
		out = append(out, t)
	}
	if r != nil {
		out = append(out, ExpertReplacementTable(r))
	}
	return out
}

// ModelHumanMethods is the methods text of the comparison beyond the
// alt-test, in English or Italian, with the numbers filled in; one
// paragraph per measure the comparison has.
func ModelHumanMethods(l Lang, d *modelhuman.Distributions, c *modelhuman.ModelHumanCorrelation, cal *modelhuman.Calibration, r *modelhuman.ExpertReplacement) []string {
	p := prose{l}
	var out []string
	if d != nil {
		out = append(out, distributionsParagraph(p, d))
	}
	if c != nil {
		out = append(out, correlationParagraph(p, c))
	}
	if cal != nil {
		out = append(out, calibrationParagraph(p, cal))
	}
	if r != nil {
		out = append(out, replacementParagraph(p, r))
	}
	return out
}

func (p prose) maybe(x *float64, ci *analysis.CI) string {
	if x == nil {
		return p.say("undefined", "non definito")
	}
	return p.est(x, ci)
}

func distributionsParagraph(p prose, d *modelhuman.Distributions) string {
	var s strings.Builder
	s.WriteString(p.say(
		fmt.Sprintf("For each item and condition we compared the model's distribution over the %d scale points with the histogram of the human ratings, by the Jensen–Shannon divergence in bits (the divergence, not its square root), KL(human ‖ model) with the model's distribution smoothed by %s per point, the Wasserstein distance divided by the number of points minus one, and the total variation. As the humans' own ceiling we split the humans who rated each item and condition into random halves (%d splits) and took the mean distance between the halves' histograms; a model is within the ceiling on an item when its distance is at most the ceiling.",
			d.Points, p.num(d.Smoothing), d.Splits),
		fmt.Sprintf("Per ciascun item e condizione abbiamo confrontato la distribuzione del modello sui %d punti della scala con l'istogramma dei giudizi umani, mediante la divergenza di Jensen–Shannon in bit (la divergenza, non la sua radice quadrata), KL(umani ‖ modello) con la distribuzione del modello smussata di %s per punto, la distanza di Wasserstein divisa per il numero di punti meno uno e la variazione totale. Come soglia degli stessi umani abbiamo diviso a caso in due metà i partecipanti che hanno giudicato ciascun item e condizione (%d divisioni) e preso la distanza media tra gli istogrammi delle due metà; il modello è entro la soglia su un item quando la sua distanza non la supera.",
			d.Points, p.num(d.Smoothing), d.Splits)))
	if sum := d.SummaryOf(modelhuman.MeasureJSD, "all"); sum != nil && sum.MeanModel != nil && sum.MeanCeiling != nil {
		within := p.say("undefined", "non definita")
		if sum.WithinShare != nil {
			within = p.the(sum.WithinShare, sum.WithinCI)
		}
		s.WriteString(p.say(
			fmt.Sprintf(" Over %s, the model's mean JSD was %s against a ceiling of %s; it was within the ceiling on %s of them.", p.n(sum.Units, "item × condition", "items × conditions"), p.num(*sum.MeanModel), p.num(*sum.MeanCeiling), within),
			fmt.Sprintf(" Su %s, la JSD media del modello è stata %s contro una soglia di %s; il modello è rimasto entro la soglia per %s di essi.", p.n(sum.Units, "item × condizione", "item × condizioni"), p.num(*sum.MeanModel), p.num(*sum.MeanCeiling), within)))
	}
	if sum := d.SummaryOf(modelhuman.MeasureJSD, "all"); sum != nil {
		u, m := sum.Baseline(modelhuman.BaselineUniform), sum.Baseline(modelhuman.BaselineMarginal)
		s.WriteString(p.say(
			" A share within the ceiling does not by itself separate chance from skill, so we set the model beside two chance baselines, the uniform distribution over the points and the humans' ratings pooled over every item and condition, and scored its skill against the closer of them as (D_baseline − D_model)/(D_baseline − D_floor), with D the mean JSD over the units and D_floor the mean sampling floor, the JSD a model that knew each unit's distribution would be expected to have from its raters' histogram (estimated per unit from draws of as many ratings from the unit's histogram shrunk toward the pooled one by one rating); 0 is chance and 1 the floor, and the interval is a percentile bootstrap over units within each condition.",
			" Una quota entro la soglia non separa da sola il caso dalla competenza: abbiamo quindi posto il modello accanto a due riferimenti casuali, la distribuzione uniforme sui punti e i giudizi umani aggregati su tutti gli item e le condizioni, e ne abbiamo misurato la competenza rispetto al più vicino dei due come (D_riferimento − D_modello)/(D_riferimento − D_minimo), con D la JSD media sulle unità e D_minimo la media del minimo campionario, la JSD che un modello che conoscesse la distribuzione di ciascuna unità avrebbe in attesa dall'istogramma dei suoi valutatori (stimata per unità da estrazioni di altrettanti giudizi dall'istogramma dell'unità avvicinato a quello aggregato di un giudizio); 0 è il caso e 1 il minimo, e l'intervallo è un bootstrap percentile sulle unità entro ciascuna condizione."))
		if u != nil && m != nil && u.MeanDistance != nil && m.MeanDistance != nil && sum.MeanFloor != nil {
			skill := p.say("undefined", "non definita")
			if sum.Skill != nil {
				skill = p.est(sum.Skill, sum.SkillCI)
			}
			uw, mw := p.say("undefined", "non definita"), p.say("undefined", "non definita")
			if u.WithinShare != nil {
				uw = p.the(u.WithinShare, u.WithinCI)
			}
			if m.WithinShare != nil {
				mw = p.the(m.WithinShare, m.WithinCI)
			}
			base := p.say("the pooled human ratings", "i giudizi umani aggregati")
			if sum.SkillBaseline == modelhuman.BaselineUniform {
				base = p.say("the uniform distribution", "la distribuzione uniforme")
			}
			s.WriteString(p.say(
				fmt.Sprintf(" The uniform's mean JSD was %s (within the ceiling on %s of the units), the pooled ratings' %s (%s), the sampling floor %s; the model's skill against %s was %s.", p.num(*u.MeanDistance), uw, p.num(*m.MeanDistance), mw, p.num(*sum.MeanFloor), base, skill),
				fmt.Sprintf(" La JSD media dell'uniforme è stata %s (entro la soglia per %s delle unità), quella dei giudizi aggregati %s (%s), il minimo campionario %s; la competenza del modello rispetto a %s è stata %s.", p.num(*u.MeanDistance), uw, p.num(*m.MeanDistance), mw, p.num(*sum.MeanFloor), base, skill)))
		}
	}
	return s.String()
}

func correlationParagraph(p prose, c *modelhuman.ModelHumanCorrelation) string {
	share := p.say("could not be computed", "non è calcolabile")
	if c.Share != nil {
		share = p.num(*c.Share)
	}
	ceiling := p.say("undefined (a reliability of 0 or less)", "non definita (affidabilità nulla o negativa)")
	if c.Ceiling != nil {
		ceiling = p.num(*c.Ceiling)
	}
	return p.say(
		fmt.Sprintf("The model's expected rating correlated with the crowd's mean z-score per item and condition at r = %s (%s). The crowd's split-half reliability of these means, Spearman–Brown corrected and averaged over %d random half-splits of each unit's raters, was %s, so the highest correlation a model could reach, √reliability, is %s; the model reached a share of %s of it.",
			p.maybe(c.R, nil), p.n(c.Units, "unit", "units"), c.SplitHalf.Splits, p.maybe(c.SplitHalf.Reliability, c.SplitHalf.CI), ceiling, share),
		fmt.Sprintf("Il giudizio atteso del modello è correlato con il punteggio z medio della folla per item e condizione con r = %s (%s). L'affidabilità split-half di queste medie, corretta con Spearman–Brown e mediata su %d divisioni casuali a metà dei valutatori di ciascuna unità, è stata %s: la correlazione più alta raggiungibile da un modello, √affidabilità, è quindi %s; il modello ne ha raggiunto una quota di %s.",
			p.maybe(c.R, nil), p.n(c.Units, "unità", "unità"), c.SplitHalf.Splits, p.maybe(c.SplitHalf.Reliability, c.SplitHalf.CI), ceiling, share))
}

func calibrationParagraph(p prose, c *modelhuman.Calibration) string {
	return p.say(
		fmt.Sprintf("Calibration: over %s, binned into %d equal-width bins of the model's probability of a rating above the scale's midpoint, the expected calibration error against the share of the crowd rating above the midpoint was %s (interval: bootstrap over items).",
			p.n(c.Items, "item × condition", "items × conditions"), len(c.Bins), p.maybe(c.ECE, c.ECECI)),
		fmt.Sprintf("Calibrazione: su %s, raggruppati in %d intervalli di uguale ampiezza della probabilità del modello di un giudizio sopra il punto medio della scala, l'errore di calibrazione atteso (ECE) rispetto alla quota della folla sopra il punto medio è stato %s (intervallo: bootstrap sugli item).",
			p.n(c.Items, "item × condizione", "item × condizioni"), len(c.Bins), p.maybe(c.ECE, c.ECECI)))
}

func replacementParagraph(p prose, r *modelhuman.ExpertReplacement) string {
	return p.say(
		fmt.Sprintf("Putting the model in each expert's place in turn, Krippendorff's α (%s) over %s changed on average by ΔA = %s from the experts' own α of %s (interval: bootstrap over items).",
			r.Metric, p.n(r.Units, "item", "items"), p.maybe(r.DeltaA, r.DeltaACI), p.maybe(r.Alpha, nil)),
		fmt.Sprintf("Sostituendo a turno il modello a ciascun esperto, l'α di Krippendorff (%s) su %s è variato in media di ΔA = %s rispetto all'α degli esperti, %s (intervallo: bootstrap sugli item).",
			metricIt(r.Metric), p.n(r.Units, "item", "item"), p.maybe(r.DeltaA, r.DeltaACI), p.maybe(r.Alpha, nil)))
}

func metricIt(m string) string {
	switch m {
	case "nominal":
		return "nominale"
	case "ordinal":
		return "ordinale"
	case "interval":
		return "intervallo"
	}
	return m
}

// CrowdReliabilityMethods is the methods paragraph of the crowd's own
// reliability: α pooled and the split-half reliability of the item means.
func CrowdReliabilityMethods(c *modelhuman.CrowdReliability, l Lang) string {
	p := prose{l}
	if len(c.Alpha) == 0 || len(c.SplitHalf) == 0 {
		return ""
	}
	a, sh := c.Alpha[len(c.Alpha)-1], c.SplitHalf[len(c.SplitHalf)-1]
	return p.say(
		fmt.Sprintf("The crowd's own reliability: Krippendorff's α over the ratings (units: item × condition, %s) was %s with the interval metric and %s with the ordinal metric; the split-half reliability of the item means (z-scores), Spearman–Brown corrected and averaged over %d random half-splits of each unit's raters, was %s. A model's correlation with the crowd's means is set against its ceiling, the square root of that reliability.",
			p.n(a.Units, "unit", "units"), p.maybe(a.Interval, a.IntervalCI), p.maybe(a.Ordinal, a.OrdinalCI), sh.Splits, p.maybe(sh.Reliability, sh.CI)),
		fmt.Sprintf("Affidabilità della folla: l'α di Krippendorff sui giudizi (unità: item × condizione, %s) è stata %s con la metrica a intervalli e %s con quella ordinale; l'affidabilità split-half delle medie per item (punteggi z), corretta con Spearman–Brown e mediata su %d divisioni casuali a metà dei valutatori di ciascuna unità, è stata %s. La correlazione di un modello con le medie della folla va letta rispetto al suo tetto, la radice quadrata di questa affidabilità.",
			p.n(a.Units, "unità", "unità"), p.maybe(a.Interval, a.IntervalCI), p.maybe(a.Ordinal, a.OrdinalCI), sh.Splits, p.maybe(sh.Reliability, sh.CI)))
}

// CrowdReliabilityMethodsOf is CrowdReliabilityMethods as a methods text
// of its own (`analyze reliability --methods`).
func CrowdReliabilityMethodsOf(c *modelhuman.CrowdReliability, l Lang) *Methods {
	return &Methods{Lang: l, Title: say(l, "Methods: the crowd's reliability", "Metodi: l'affidabilità della folla"),
		Paragraphs: []string{CrowdReliabilityMethods(c, l)},
		Sources:    []string{"alpha[].alpha_interval(_ci95)", "alpha[].alpha_ordinal(_ci95)", "alpha[].units", "split_half[].reliability(_ci95)", "split_half[].splits"}}
}
