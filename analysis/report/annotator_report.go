package report

import (
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"strings"
)

// annotatorQuestions are the questions the models cover, in table order.
var annotatorQuestions = []struct{ key, label, en, it string }{
	{"plausibility", "Plausibility", "plausibility", "plausibilità"},
	{"cancellation", "Cancellation correctness", "cancellation correctness", "correttezza della cancellazione"},
}

// AnnotatorModelsTable lists every annotator's Dawid–Skene accuracy,
// sensitivity and specificity and MACE competence, per question and item
// type; nil without models.
func AnnotatorModelsTable(a *agreement.Agreement) *Table {
	if a.AnnotatorModels == nil {
		return nil
	}
	tb := &Table{Name: "annotator_models", Title: "Annotator models: Dawid–Skene and MACE",
		Columns: []string{"Question", "Items of type", "Annotator", "Judgements", "Dawid–Skene accuracy", "P(yes | yes)", "P(no | no)", "MACE competence"}}
	for _, q := range annotatorQuestions {
		m := a.AnnotatorModels[q.key]
		if m == nil {
			continue
		}
		for _, t := range agreement.AnnotatorModelTypes(m, a.TypeOrder) {
			g := m.Group(t)
			for _, id := range g.SortedAnnotators() {
				ds, mc := g.DawidSkene.Annotators[id], g.MACE.Annotators[id]
				tb.Rows = append(tb.Rows, []any{q.label, t, id, ds.Judgements, analysis.Num(ds.Accuracy), analysis.Num(ds.Confusion[0][0]), analysis.Num(ds.Confusion[1][1]), analysis.Num(mc.Competence)})
			}
		}
	}
	tb.Notes = []string{
		"Dawid–Skene (1979) by EM from the majority vote, unsmoothed, until the log-likelihood changes by less than 1e-8 (at most 1,000 iterations); accuracy = Σ_k π_k θ_kk, the class priors weighting each annotator's chance of giving the true class.",
		"P(yes | yes) and P(no | no): the chance the annotator answers yes on an item whose true class is yes, and no on one that is no (0.50 when the model puts no item in that class).",
		"MACE (Hovy et al. 2013): the chance the annotator knows the answer rather than guesses; " + agreement.MACETraining + ".",
	}
	for _, q := range annotatorQuestions {
		if m := a.AnnotatorModels[q.key]; m != nil {
			for _, w := range m.Warnings {
				tb.Notes = append(tb.Notes, "Warning ("+q.en+"): "+w+".")
			}
		}
	}
	return tb
}

// AnnotatorReviewTable lists the items whose majority label has a
// Dawid–Skene posterior below ReviewThreshold, per question, lowest first;
// nil without models.
func AnnotatorReviewTable(a *agreement.Agreement) *Table {
	if a.AnnotatorModels == nil {
		return nil
	}
	tb := &Table{Name: "annotator_review", Title: fmt.Sprintf("Items to review: majority label with a Dawid–Skene posterior below %.2f", agreement.ReviewThreshold),
		Columns: []string{"Question", "Item", "Type", "Yes", "No", "Majority", "Posterior of the majority", "MACE P(yes)"}}
	for _, q := range annotatorQuestions {
		m := a.AnnotatorModels[q.key]
		if m == nil {
			continue
		}
		for _, r := range m.Review {
			tb.Rows = append(tb.Rows, []any{q.label, r.Item, r.Type, r.Yes, r.No, r.Majority, analysis.Num(r.PosteriorMajority), analysis.Num(r.MACEPosteriorYes)})
		}
	}
	tb.Notes = []string{"Over every item of the question, pooled over types. On a tie the posterior of the less likely label is given, so a tie is always listed."}
	return tb
}

// AnnotatorTables are the annotator models' tables, none without models.
func AnnotatorTables(a *agreement.Agreement) []*Table {
	if a.AnnotatorModels == nil {
		return nil
	}
	return []*Table{AnnotatorModelsTable(a), AnnotatorReviewTable(a)}
}

// AnnotatorFigures draws, per question, each annotator's Dawid–Skene
// accuracy and MACE competence side by side (pooled over types).
func AnnotatorFigures(a *agreement.Agreement) ([]Figure, error) {
	var figs []Figure
	for _, q := range annotatorQuestions {
		m := a.AnnotatorModels[q.key]
		if m == nil {
			continue
		}
		anns := m.SortedAnnotators()
		ds := IntervalSeries{Name: "Dawid–Skene accuracy"}
		mc := IntervalSeries{Name: "MACE competence"}
		for _, id := range anns {
			ds.Values = append(ds.Values, analysis.Num(m.DawidSkene.Annotators[id].Accuracy))
			mc.Values = append(mc.Values, analysis.Num(m.MACE.Annotators[id].Competence))
		}
		p, err := IntervalPlot(q.label+": annotator models", "estimate", anns, []IntervalSeries{ds, mc}, 0, 1)
		if err != nil {
			return nil, err
		}
		figs = append(figs, Figure{Name: "annotators_" + q.key, Title: p.Title.Text, Plot: p})
	}
	return figs, nil
}

// annotatorParagraph is the methods paragraph on the annotator models.
func annotatorParagraph(p prose, a *agreement.Agreement) string {
	if a.AnnotatorModels == nil {
		return ""
	}
	var parts []string
	for _, q := range annotatorQuestions {
		m := a.AnnotatorModels[q.key]
		if m == nil {
			continue
		}
		var accs []string
		for _, id := range m.SortedAnnotators() {
			accs = append(accs, fmt.Sprintf("%s %s/%s", id, p.num(m.DawidSkene.Annotators[id].Accuracy), p.num(m.MACE.Annotators[id].Competence)))
		}
		parts = append(parts, p.say(
			fmt.Sprintf("on %s (%s), accuracy/competence were %s, and %s below %s", q.en, p.n(m.Items, "item", "items"), strings.Join(accs, ", "),
				p.n(len(m.Review), "item had a majority label with a posterior", "items had a majority label with a posterior"), p.num(agreement.ReviewThreshold)),
			fmt.Sprintf("sulla %s (%s), accuratezza/competenza sono state %s, e %s sotto %s", q.it, p.n(m.Items, "item", "item"), strings.Join(accs, ", "),
				p.pl(len(m.Review), fmt.Sprintf("%d item aveva l'etichetta di maggioranza con probabilità a posteriori", len(m.Review)),
					fmt.Sprintf("%d item avevano l'etichetta di maggioranza con probabilità a posteriori", len(m.Review))), p.num(agreement.ReviewThreshold))))
	}
	var warn []string
	for _, q := range annotatorQuestions {
		if m := a.AnnotatorModels[q.key]; m != nil {
			for _, w := range m.Warnings {
				warn = append(warn, p.say(" On "+q.en+", "+w+".", " Sulla "+q.it+": "+w+"."))
			}
		}
	}
	return p.say(
		"Each expert's reliability was also estimated with two annotator models: Dawid and Skene's (1979) model, fitted by EM from the majority vote without smoothing until the log-likelihood changed by less than 10⁻⁸ (at most 1,000 iterations), whose accuracy is the prior-weighted diagonal of the expert's confusion matrix, and MACE (Hovy et al. 2013), trained by variational-Bayes EM with a Beta(0.5, 0.5) prior on competence and a Dirichlet(10) prior on guessed labels (best of 10 seeded starts of 50 iterations). Over all items, ",
		"L'affidabilità di ciascun esperto è stata stimata anche con due modelli degli annotatori: il modello di Dawid e Skene (1979), stimato con l'algoritmo EM a partire dal voto di maggioranza, senza smoothing, finché la log-verosimiglianza è variata di meno di 10⁻⁸ (al più 1.000 iterazioni), la cui accuratezza è la diagonale della matrice di confusione dell'esperto pesata per le probabilità a priori delle classi, e MACE (Hovy et al. 2013), stimato con EM variazionale bayesiano con a priori Beta(0,5; 0,5) sulla competenza e Dirichlet(10) sulle etichette tirate a indovinare (la migliore di 10 partenze con seme fisso, di 50 iterazioni ciascuna). Su tutti gli item, ") +
		strings.Join(parts, "; ") + "." + strings.Join(warn, "")
}
