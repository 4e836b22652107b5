package report

import (
	"fmt"
	"pragmalab/analysis/modelhuman"
	"strconv"
	"strings"
)

// AltTestDefault is the app's alt-test set-up for one scoring task, with
// the source of its ε (docs/statistics.md#alt-test, "Choosing ε").
type AltTestDefault struct {
	Scoring modelhuman.AltScoring
	Epsilon float64
	ZScore  bool
	Source  string
}

// AltTestDefaults are the set-ups per scoring task: experts and
// explanation ratings by accuracy with the experts' ε, the crowd's Likert
// ratings by −RMSE on z-scores with the crowd's ε, the context decisions
// by accuracy with the skilled annotators' ε.
var AltTestDefaults = map[string]AltTestDefault{
	"expert":             {modelhuman.AltAccuracy, modelhuman.AltEpsilonExperts, false, "Calderon, Reichart & Dror (2025): ε = 0.2 for expert annotators"},
	"explanation-rating": {modelhuman.AltAccuracy, modelhuman.AltEpsilonExperts, false, "Calderon, Reichart & Dror (2025): ε = 0.2 for expert annotators"},
	"likert":             {modelhuman.AltNegRMSE, modelhuman.AltEpsilonCrowd, true, "Calderon, Reichart & Dror (2025): ε = 0.1 for crowd workers; z-scores for Likert ratings"},
	"context":            {modelhuman.AltAccuracy, modelhuman.AltEpsilonSkilled, false, "Calderon, Reichart & Dror (2025): ε = 0.15 for skilled annotators"},
}

// AltTestMethods is the methods paragraph of an alt-test, in English or
// Italian, with the numbers filled in.
func AltTestMethods(a *modelhuman.AltTest, l Lang) *Methods {
	p := prose{l}
	o := a.Options
	m := &Methods{Lang: l, Title: p.say("Methods: the alternative annotator test", "Metodi: il test dell'annotatore alternativo")}
	eps, q := p.num(o.Epsilon), strings.Replace(strconv.FormatFloat(o.Q, 'g', -1, 64), ".", p.say(".", ","), 1)
	var score string
	switch {
	case o.Scoring == modelhuman.AltAccuracy:
		score = p.say("the share of the other humans giving the same label", "la quota degli altri annotatori che danno la stessa etichetta")
	case o.ZScore:
		score = p.say("the negative root mean squared error of the labels, z-scored per annotator", "l'opposto dell'errore quadratico medio (RMSE) delle etichette, standardizzate per annotatore")
	default:
		score = p.say("the negative root mean squared error of the labels", "l'opposto dell'errore quadratico medio (RMSE) delle etichette")
	}
	m.Paragraphs = append(m.Paragraphs, p.say(
		fmt.Sprintf("We applied the alternative annotator test (alt-test; Calderon, Reichart and Dror, 2025) to ask whether each model could replace the human annotators. Leaving out one human at a time, we scored the human and the model against the remaining humans on each item (%s) and counted a win for whichever scored at least as high, a tie counting for both. For each human with at least %d items, a one-sided one-sample t-test asked whether the human's advantage fell below ε = %s; the p-values were corrected across the humans with the Benjamini–Yekutieli procedure at q = %s. A model passes when it wins against at least half of the humans (winning rate ω ≥ 0.5); the advantage probability ρ is the mean share of items on which the model did at least as well as the human.",
			score, o.MinItems, eps, q),
		fmt.Sprintf("Abbiamo applicato il test dell'annotatore alternativo (alt-test; Calderon, Reichart e Dror, 2025) per stabilire se ciascun modello possa sostituire gli annotatori umani. Escludendo a turno un annotatore, abbiamo valutato l'annotatore e il modello rispetto agli altri annotatori su ciascun item (%s) e contato una vittoria per chi otteneva un punteggio almeno pari, un pareggio valendo per entrambi. Per ogni annotatore con almeno %d item, un t-test unilaterale a un campione ha verificato se il vantaggio dell'annotatore fosse inferiore a ε = %s; i valori p sono stati corretti tra gli annotatori con la procedura di Benjamini–Yekutieli a q = %s. Un modello supera il test quando vince contro almeno metà degli annotatori (tasso di vittoria ω ≥ 0,5); la probabilità di vantaggio ρ è la quota media di item su cui il modello ha fatto almeno quanto l'annotatore.",
			score, o.MinItems, eps, q)))
	var per []string
	for _, name := range a.Order {
		r := a.Models[name]
		verdict := p.say("it did not pass", "non ha superato il test")
		if r.Passed {
			verdict = p.say("it passed", "ha superato il test")
		}
		if r.Verdict == modelhuman.AltNA {
			verdict = p.say(fmt.Sprintf("no verdict is given with fewer than %d humans tested", modelhuman.AltMinHumans),
				fmt.Sprintf("non si dà un verdetto con meno di %d annotatori", modelhuman.AltMinHumans))
		}
		per = append(per, p.say(
			fmt.Sprintf("%s was tested against %s on %s: ω = %s, ρ = %s; %s.", name, p.n(r.Humans, "human", "humans"), p.n(r.Items, "item", "items"), p.num(r.WinningRate), p.num(r.AdvantageProbability), verdict),
			fmt.Sprintf("%s è stato confrontato con %s su %s: ω = %s, ρ = %s; %s.", name, p.n(r.Humans, "annotatore", "annotatori"), p.n(r.Items, "item", "item"), p.num(r.WinningRate), p.num(r.AdvantageProbability), verdict)))
	}
	m.Paragraphs = append(m.Paragraphs, strings.Join(per, " "))
	m.Sources = []string{"models.<model>.humans", "models.<model>.items", "models.<model>.winning_rate", "models.<model>.advantage_probability", "models.<model>.passed", "models.<model>.epsilon"}
	return m
}

// AltTestLatinSquareNote explains to a crowd study's page what its
// Latin-square batches mean for the alt-test
// (docs/statistics.md#when-the-design-is-too-thin).
const AltTestLatinSquareNote = "Each participant rated one batch of about 30 items, half with the cancelling utterance and half without, each item in one condition only, and each batch was rated by 5 participants. So a participant has about 30 items in all and about 15 per condition: the whole batch just reaches the 30 items the t-test wants, a condition on its own does not, and each item is compared against the 4 other participants of its batch only."
