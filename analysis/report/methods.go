package report

import (
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strconv"
	"strings"
)

// Methods is the methods paragraph of an analysis: sentences a researcher
// pastes into a paper, with the numbers filled in (docs/statistics.md#paper-ready-output),
// and the JSON keys each number comes from. The sentences name no JSON key
// and read as prose whatever the data — one participant, no item, a
// coefficient that cannot be computed.
type Methods struct {
	Lang       Lang
	Title      string
	Paragraphs []string
	Sources    []string // "participants.total", … in the order used
}

// Lang is a language of the methods paragraphs.
type Lang string

// The languages of the methods paragraphs, as --lang takes them.
const (
	English Lang = "en"
	Italian Lang = "it"
)

// Langs lists the languages, English (the default) first.
var Langs = []Lang{English, Italian}

// ParseLang reads a --lang value.
func ParseLang(s string) (Lang, bool) {
	for _, l := range Langs {
		if strings.EqualFold(s, string(l)) {
			return l, true
		}
	}
	return "", false
}

// Text is the paragraph as plain text, then where the numbers come from.
func (m *Methods) Text() string {
	var b strings.Builder
	b.WriteString(m.Title + "\n\n")
	for _, p := range m.Paragraphs {
		b.WriteString(p + "\n\n")
	}
	b.WriteString(m.sourcesLead() + ": " + strings.Join(m.Sources, ", ") + ".\n")
	return b.String()
}

// Markdown is the paragraph as Markdown.
func (m *Methods) Markdown() string {
	var b strings.Builder
	b.WriteString("### " + m.Title + "\n\n")
	for _, p := range m.Paragraphs {
		b.WriteString(p + "\n\n")
	}
	b.WriteString("<!-- " + m.sourcesLead() + ": " + strings.Join(m.Sources, ", ") + " -->\n")
	return b.String()
}

func (m *Methods) sourcesLead() string {
	return say3(m.Lang, "Numbers from the --json output", "Numeri dall'output --json", "Zahlen aus der Ausgabe von --json")
}

// say picks the sentence of the language.
func say(l Lang, en, it string) string {
	if l == Italian {
		return it
	}
	return en
}

// prose formats numbers and lists for the methods in one language, with the
// rounding of the tables (Fixed), so a number reads the same in both.
type prose struct{ l Lang }

func (p prose) say(en, it string) string { return say(p.l, en, it) }

// num prints a statistic with two decimals (a decimal comma in Italian).
func (p prose) num(x float64) string {
	s := analysis.Fixed(x, 2)
	if p.l == Italian {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// est prints "0.85 (95 % CI [0.76, 0.93])"; x must not be nil.
func (p prose) est(x *float64, ci *analysis.CI) string {
	if ci == nil {
		return p.num(*x)
	}
	return p.num(*x) + p.say(fmt.Sprintf(" (95 %% CI [%s, %s])", p.num(ci[0]), p.num(ci[1])),
		fmt.Sprintf(" (IC 95 %% [%s; %s])", p.num(ci[0]), p.num(ci[1])))
}

// pct prints a share as "93 %" from its two-decimal form, with its
// interval when there is one: "93 % (95 % CI 85–97 %)".
func (p prose) pct(x *float64, ci *analysis.CI) string {
	s := analysis.Percent(*x) + " %"
	if ci != nil {
		s += p.say(fmt.Sprintf(" (95 %% CI %s–%s %%)", analysis.Percent(ci[0]), analysis.Percent(ci[1])),
			fmt.Sprintf(" (IC 95 %% %s–%s %%)", analysis.Percent(ci[0]), analysis.Percent(ci[1])))
	}
	return s
}

// the prints a share with the Italian article ("il 93 %", "l'80 %"); in
// English just the share.
func (p prose) the(x *float64, ci *analysis.CI) string {
	s := p.pct(x, ci)
	if p.l != Italian {
		return s
	}
	if strings.HasPrefix(s, "0 ") {
		return "lo " + s // zero
	}
	return itElided(s, "il ", "l'")
}

// on prints "sul 44 %" or "sull'80 %" in Italian, "on 44 %" in English.
func (p prose) on(x *float64, ci *analysis.CI) string {
	s := p.pct(x, ci)
	if p.l != Italian {
		return "on " + s
	}
	if strings.HasPrefix(s, "0 ") {
		return "sullo " + s
	}
	return itElided(s, "sul ", "sull'")
}

// itElided picks the Italian article form: elided before a number read
// with a vowel first (uno, otto, undici, ottanta…).
func itElided(s, full, elided string) string {
	if strings.HasPrefix(s, "8") || strings.HasPrefix(s, "1 ") || strings.HasPrefix(s, "11 ") {
		return elided + s
	}
	return full + s
}

// ofThe prints "of the 15 items" / "dei 15 item", "of the only item" /
// "dell'unico item" (the nouns of the language in use; either may be empty).
func (p prose) ofThe(n int, enOne, enMany, itOne, itMany string) string {
	if p.l == Italian {
		if n == 1 {
			return strings.TrimSpace("dell'unico " + itOne)
		}
		return strings.TrimSpace(fmt.Sprintf("dei %d %s", n, itMany))
	}
	if n == 1 {
		return strings.TrimSpace("of the only " + enOne)
	}
	return strings.TrimSpace(fmt.Sprintf("of the %d %s", n, enMany))
}

// theN prints "the 14 items" or "the only item".
func (p prose) theN(n int, one, many string) string {
	if n == 1 {
		return "the only " + one
	}
	return fmt.Sprintf("the %d %s", n, many)
}

// onThe prints the Italian "sui 14 passaggi" or "sull'unico passaggio".
func (p prose) onThe(n int, one, many string) string {
	if n == 1 {
		return "sull'unico " + one
	}
	return fmt.Sprintf("sui %d %s", n, many)
}

// n prints a count with its noun: "1 participant", "3 participants".
func (p prose) n(n int, one, many string) string { return strconv.Itoa(n) + " " + p.pl(n, one, many) }

// pl picks the singular or plural form for a count.
func (p prose) pl(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// list joins "a", "a and b", "a, b and c" ("e" in Italian).
func (p prose) list(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + p.say(" and ", " e ") + xs[len(xs)-1]
}

// measures collects coefficients: the defined ones go in a list, the
// others in a sentence saying they could not be computed.
type measures struct {
	p         prose
	defined   []string
	undefined []string
}

// add records "name = value (CI) qualifier", or name as not computable.
func (ms *measures) add(name string, x *float64, ci *analysis.CI, qualifier string) {
	if x == nil {
		ms.undefined = append(ms.undefined, name)
		return
	}
	s := name + " = " + ms.p.est(x, ci)
	if qualifier != "" {
		s += " " + qualifier
	}
	ms.defined = append(ms.defined, s)
}

// undefinedSentence says which coefficients could not be computed, and why.
func (ms *measures) undefinedSentence(why string) string {
	if len(ms.undefined) == 0 {
		return ""
	}
	verb := ms.p.say(" could not be computed", " non è calcolabile")
	if len(ms.undefined) > 1 {
		verb = ms.p.say(" could not be computed", " non sono calcolabili")
	}
	return " " + capitalise(ms.p.list(ms.undefined)) + verb + " (" + why + ")."
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	if r[0] >= 'a' && r[0] <= 'z' {
		r[0] -= 'a' - 'A'
	}
	return string(r)
}

func (p prose) bootSentence(b *analysis.BootstrapInfo, what string) string {
	if b == nil {
		return p.say("No intervals were computed.", "Non sono stati calcolati intervalli.")
	}
	return p.say(fmt.Sprintf("Intervals come from %d bootstrap replicates (seed %d) %s; method: %s.", b.Replicates, b.Seed, what, b.Scheme),
		fmt.Sprintf("Gli intervalli vengono da %d repliche bootstrap (seme %d) %s; metodo: %s.", b.Replicates, b.Seed, what, b.Scheme))
}

// ToplinesMethods writes the methods paragraph of the toplines; rows is
// the number of rows read (ratings and attention checks).
func ToplinesMethods(t *toplines.Toplines, rows int, l Lang) *Methods {
	p := prose{l}
	ps := t.Participants
	m := &Methods{Lang: l, Title: p.say("Methods: human ratings", "Metodi: giudizi umani")}
	set := t.Settings
	var s strings.Builder
	if ps.Total == 0 {
		s.WriteString(p.say("No participant gave a rating, so nothing could be analysed.", "Nessun partecipante ha dato un giudizio: non c'è nulla da analizzare."))
	} else {
		excl := p.say("none was", "nessuno è stato")
		if e := len(ps.Excluded); e == 1 {
			excl = p.say("1 was", "1 è stato")
		} else if e > 1 {
			excl = p.say(fmt.Sprintf("%d were", e), fmt.Sprintf("%d sono stati", e))
		}
		s.WriteString(p.say(
			fmt.Sprintf("Of %s, %s excluded for failing %d or more attention checks (a \"high\" check passed with a rating of at least %d, a \"low\" one with at most %d) or by the researcher.",
				p.n(ps.Total, "participant", "participants"), excl, set.MaxFailed, set.HighPass, set.LowPass),
			fmt.Sprintf("Su %s, %s escluso per aver fallito %d o più controlli di attenzione (un controllo \"alto\" era superato con un giudizio di almeno %d, uno \"basso\" con al massimo %d) o per decisione del ricercatore.",
				p.n(ps.Total, "partecipante", "partecipanti"), excl, set.MaxFailed, set.HighPass, set.LowPass)))
		var left []string
		if c := len(ps.ChecksOnly); c > 0 {
			left = append(left, p.say(p.n(c, "participant", "participants")+" gave only attention-check ratings",
				p.n(c, "partecipante", "partecipanti")+" "+p.pl(c, "ha", "hanno")+" risposto solo ai controlli di attenzione"))
		}
		if z := len(ps.ZeroVariance); z > 0 {
			left = append(left, p.say(p.n(z, "participant", "participants")+" gave the same rating to every item, so that no z-score could be computed",
				p.n(z, "partecipante", "partecipanti")+" "+p.pl(z, "ha", "hanno")+" dato lo stesso giudizio a ogni item, così che nessun punteggio z era calcolabile"))
		}
		if len(left) > 0 {
			s.WriteString(" " + capitalise(p.list(left)) + ".")
		}
		read := p.say(fmt.Sprintf("%s read, attention checks included", p.n(rows, "row", "rows")), fmt.Sprintf("%s %s, controlli di attenzione inclusi", p.n(rows, "riga", "righe"), p.pl(rows, "letta", "lette")))
		switch ps.Analysed {
		case 0:
			s.WriteString(p.say(" No participant could be analysed ("+read+").", " Nessun partecipante è stato analizzato ("+read+")."))
		case 1:
			s.WriteString(p.say(" 1 participant was analysed ("+read+").", " È stato analizzato 1 partecipante ("+read+")."))
		default:
			s.WriteString(p.say(fmt.Sprintf(" %d participants were analysed (%s).", ps.Analysed, read), fmt.Sprintf(" Sono stati analizzati %d partecipanti (%s).", ps.Analysed, read)))
		}
		if ps.Analysed > 0 {
			s.WriteString(p.say(" Each participant's ratings were z-scored (population standard deviation) and the z-scores averaged per item and condition.",
				" I giudizi di ciascun partecipante sono stati standardizzati in punteggi z (deviazione standard della popolazione) e i punteggi z mediati per item e condizione."))
		}
		if len(t.Conditions) > 0 {
			s.WriteString(p.say(fmt.Sprintf(" The items were rated in %s: %s.", p.n(len(t.Conditions), "condition", "conditions"), p.list(t.Conditions)),
				fmt.Sprintf(" Gli item sono stati giudicati in %s: %s.", p.n(len(t.Conditions), "condizione", "condizioni"), p.list(t.Conditions))))
		}
	}
	m.Paragraphs = append(m.Paragraphs, s.String())
	if ps.Analysed > 0 {
		m.Paragraphs = append(m.Paragraphs, toplinesItemsParagraph(p, t.ByType[domain.TypeAll]))
		m.Paragraphs = append(m.Paragraphs, p.bootSentence(t.Bootstrap, p.say(
			"that resample the analysed participants and, independently, the items within each type, keeping each participant's z-scores; shares are over the items having the conditions compared",
			"che ricampionano i partecipanti analizzati e, indipendentemente, gli item all'interno di ciascun tipo, mantenendo i punteggi z di ciascun partecipante; le proporzioni sono calcolate sugli item che hanno le condizioni confrontate")))
	}
	m.Sources = []string{"participants.total", "participants.excluded", "settings", "conditions", "participants.checks_only", "participants.zero_variance",
		"participants.analysed", "by_type.all.items", "by_type.all.implicature_recognition(_ci95)", "by_type.all.cancellation_recognition(_ci95)",
		"by_type.all.belief_update(_ci95)", "by_type.all.pearson_r(_ci95)", "by_type.all.pearson_p", "by_type.all.pearson_n",
		"by_type.all.pearson_r_disattenuated(_ci95, _na)", "by_type.all.reliability_trigger", "by_type.all.reliability_cancel", "by_type.all.approximate_intervals", "bootstrap"}
	return m
}

// toplinesItemsParagraph reports the pooled toplines over the items.
func toplinesItemsParagraph(p prose, all *toplines.TypeToplines) string {
	if all == nil || all.Items == 0 {
		return p.say("No item was rated by an analysed participant, so no topline could be computed.",
			"Nessun item è stato giudicato da un partecipante analizzato: nessuna misura è calcolabile.")
	}
	nT := all.Items - all.LeftOut[toplines.MImplicature]
	nTC := all.Items - all.LeftOut[toplines.MCancellation]
	var s strings.Builder
	s.WriteString(capitalise(p.ofThe(all.Items, "item", "items", "item", "item")) + ", ")
	if all.ImplicatureRecognition == nil {
		s.WriteString(p.say("none was rated without cancellation, so implicature recognition could not be computed; ",
			"nessuno è stato giudicato senza cancellazione, quindi il riconoscimento dell'implicatura non è calcolabile; "))
	} else {
		s.WriteString(p.say(fmt.Sprintf("the implicature was recognised (mean z without cancellation above 0) for %s %s rated without cancellation; ", p.pct(all.ImplicatureRecognition, all.ImplicatureRecognitionCI), p.ofThe(nT, "", "", "", "")),
			fmt.Sprintf("l'implicatura è stata riconosciuta (z medio senza cancellazione maggiore di 0) per %s %s senza cancellazione; ", p.the(all.ImplicatureRecognition, all.ImplicatureRecognitionCI), p.ofThe(nT, "", "", "giudicato", "giudicati"))))
	}
	if all.CancellationRecognition == nil || all.BeliefUpdate == nil {
		s.WriteString(p.say("none was rated in both conditions, so cancellation recognition and belief update could not be computed.",
			"nessuno è stato giudicato in entrambe le condizioni, quindi il riconoscimento della cancellazione e l'aggiornamento delle credenze non sono calcolabili."))
	} else {
		s.WriteString(p.say(fmt.Sprintf("the cancellation was recognised (mean z lower with it) for %s and both held (belief update) for %s %s rated in both conditions.",
			p.pct(all.CancellationRecognition, all.CancellationRecognitionCI), p.pct(all.BeliefUpdate, all.BeliefUpdateCI), p.ofThe(nTC, "", "", "", "")),
			fmt.Sprintf("la cancellazione è stata riconosciuta (z medio più basso con essa) per %s ed entrambi i riconoscimenti (aggiornamento delle credenze) per %s %s in entrambe le condizioni.",
				p.the(all.CancellationRecognition, all.CancellationRecognitionCI), p.the(all.BeliefUpdate, all.BeliefUpdateCI), p.ofThe(nTC, "", "", "giudicato", "giudicati"))))
		s.WriteString(nearThresholdSentence(p, all))
	}
	if all.PearsonR == nil {
		s.WriteString(p.say(fmt.Sprintf(" The correlation of item means without and with cancellation could not be computed (it needs at least 3 items rated in both conditions, with means that vary; there %s).",
			p.pl(all.PearsonN, "was 1", fmt.Sprintf("were %d", all.PearsonN))),
			fmt.Sprintf(" La correlazione tra le medie degli item senza e con cancellazione non è calcolabile (servono almeno 3 item giudicati in entrambe le condizioni, con medie non tutte uguali; ce n'erano %d).", all.PearsonN)))
	} else {
		pv := p.say("p could not be computed", "p non calcolabile")
		if all.PearsonP != nil {
			pv = FormatP(*all.PearsonP)
			if p.l == Italian {
				pv = strings.Replace(pv, ".", ",", 1)
			}
		}
		r := p.num(*all.PearsonR) + " ("
		if ci := all.PearsonRCI; ci != nil {
			r += p.say(fmt.Sprintf("95 %% CI [%s, %s], ", p.num(ci[0]), p.num(ci[1])), fmt.Sprintf("IC 95 %% [%s; %s], ", p.num(ci[0]), p.num(ci[1])))
		}
		s.WriteString(p.say(fmt.Sprintf(" Item means without and with cancellation correlated with r = %s%s, n = %s).", r, pv, p.n(all.PearsonN, "item", "items")),
			fmt.Sprintf(" Le medie degli item senza e con cancellazione hanno una correlazione r = %s%s, n = %s).", r, pv, p.n(all.PearsonN, "item", "item"))))
		s.WriteString(disattenuatedSentence(p, all))
	}
	return s.String()
}

// AgreementMethods writes the methods paragraph of the expert agreement;
// judgements is the number of rows read.
func AgreementMethods(a *agreement.Agreement, judgements int, l Lang) *Methods {
	p := prose{l}
	m := &Methods{Lang: l, Title: p.say("Methods: expert agreement", "Metodi: accordo tra esperti")}
	nA := len(a.Annotators)
	m.Paragraphs = append(m.Paragraphs, p.say(
		fmt.Sprintf("%s (%s) gave %s.", capitalise(p.n(nA, "expert", "experts")), strings.Join(a.Annotators, ", "), p.n(judgements, "judgement", "judgements")),
		fmt.Sprintf("%s (%s) %s %s.", capitalise(p.n(nA, "esperto", "esperti")), strings.Join(a.Annotators, ", "), p.pl(nA, "ha dato", "hanno dato"), p.n(judgements, "giudizio", "giudizi"))))
	if nA < 2 {
		m.Paragraphs[0] += p.say(" With a single expert, agreement cannot be measured.", " Con un solo esperto l'accordo non è misurabile.")
	} else {
		for _, q := range []struct {
			en, it string
			q      agreement.Question
		}{
			{"plausibility of the implicature", "plausibilità dell'implicatura", a.Plausibility},
			{"correctness of the cancellation (items both experts of a pair found plausible and answered)", "correttezza della cancellazione (item che entrambi gli esperti di una coppia hanno giudicato plausibili e valutato)", a.Cancellation},
		} {
			m.Paragraphs = append(m.Paragraphs, agreementQuestion(p, q.en, q.it, q.q, nA))
		}
	}
	last := p.bootSentence(a.Bootstrap, p.say("resampling the items within each item type", "ricampionando gli item all'interno di ciascun tipo"))
	if len(a.TypeOrder) > 2 { // named types beside "all"
		last += p.say(" The same coefficients are reported per item type.", " Gli stessi coefficienti sono riportati per tipo di item.")
	}
	if nA >= 2 {
		m.Paragraphs = append(m.Paragraphs, last)
	}
	if para := annotatorParagraph(p, a); para != "" {
		m.Paragraphs = append(m.Paragraphs, para)
	}
	m.Sources = []string{"annotators"}
	for _, key := range []string{"plausibility", "cancellation"} {
		m.Sources = append(m.Sources, key+".raw(_ci95)", key+".items", key+".pabak(_ci95)", key+".kappa(_ci95)", key+".lights_kappa(_ci95)",
			key+".fleiss_kappa(_ci95)", key+".krippendorff_alpha(_ci95)", key+".krippendorff_items")
	}
	m.Sources = append(m.Sources, "bootstrap")
	if a.AnnotatorModels != nil {
		m.Sources = append(m.Sources, "annotator_models")
	}
	return m
}

func agreementQuestion(p prose, en, it string, q agreement.Question, experts int) string {
	if q.Items == 0 {
		return p.say("On the "+en+", no item was judged by two experts, so agreement could not be computed.",
			"Sulla "+it+", nessun item è stato giudicato da due esperti: l'accordo non è calcolabile.")
	}
	ms := measures{p: p}
	ms.add(p.say("raw agreement", "l'accordo osservato"), q.Raw, q.RawCI, p.say(fmt.Sprintf("over %s", p.n(q.Items, "item pair", "item pairs")), fmt.Sprintf("su %s", p.n(q.Items, "coppia di giudizi", "coppie di giudizi"))))
	ms.add("PABAK", q.PABAK, q.PABAKCI, "")
	if experts == 2 && q.KappaNA != "" {
		ms.defined = append(ms.defined, p.say("Cohen's κ n/a (no variation: an expert gave the same answer on every item, so κ is 0 by construction)",
			"il κ di Cohen n/d (nessuna variazione: un esperto ha dato la stessa risposta su ogni item, quindi κ è 0 per costruzione)"))
	} else if experts == 2 {
		ms.add(p.say("Cohen's κ", "il κ di Cohen"), q.Kappa, q.KappaCI, "")
	} else {
		ms.add(p.say("Light's κ (mean pairwise Cohen's κ)", "il κ di Light (media dei κ di Cohen delle coppie)"), q.LightsKappa, q.LightsKappaCI, "")
		if q.FleissRaters > 0 {
			ms.add(p.say("Fleiss' κ", "il κ di Fleiss"), q.FleissKappa, q.FleissKappaCI, p.say(
				fmt.Sprintf("over %s judged by %d experts", p.theN(q.FleissItems, "item", "items"), q.FleissRaters),
				fmt.Sprintf("%s da %d esperti", p.onThe(q.FleissItems, "item giudicato", "item giudicati"), q.FleissRaters)))
		}
	}
	ms.add(p.say("Krippendorff's α (nominal)", "l'α di Krippendorff (nominale)"), q.KrippendorffAlpha, q.KrippendorffAlphaCI,
		p.say("over "+p.n(q.AlphaItems, "item", "items"), "su "+p.n(q.AlphaItems, "item", "item")))
	s := p.say("On the "+en+", ", "Sulla "+it+", ")
	if len(ms.defined) > 0 {
		s += p.list(ms.defined) + "."
	}
	return strings.TrimSuffix(s, ", ") + ms.undefinedSentence(p.say("chance agreement is 1 when every answer is the same, and a coefficient needs items judged by two experts",
		"l'accordo atteso per caso è 1 quando tutte le risposte sono uguali, e un coefficiente richiede item giudicati da due esperti"))
}

// ContextMethods writes the methods paragraph of the context surveys.
func ContextMethods(c *contextsurvey.Context, l Lang) *Methods {
	p := prose{l}
	o := c.Overall
	m := &Methods{Lang: l, Title: p.say("Methods: context needed", "Metodi: contesto necessario")}
	nS := len(c.SurveyOrder)
	var s strings.Builder
	s.WriteString(p.say(
		fmt.Sprintf("Experts gave %s on %s in %s, each answer one of 7 ordered categories: the implicit content understood with 0 to 5 added preceding sentences, or not understood once all were shown.",
			p.n(o.Judgements, "final answer", "final answers"), p.n(o.Items, "passage", "passages"), p.n(nS, "survey", "surveys")),
		fmt.Sprintf("Gli esperti hanno dato %s su %s in %s, ciascuna una di 7 categorie ordinate: il contenuto implicito compreso con da 0 a 5 frasi precedenti aggiunte, oppure non compreso dopo averle mostrate tutte.",
			p.n(o.Judgements, "risposta finale", "risposte finali"), p.n(o.Items, "passaggio", "passaggi"), p.n(nS, "questionario", "questionari"))))
	ms := measures{p: p}
	ms.add(p.say("Fleiss' κ", "il κ di Fleiss"), o.FleissKappa, o.FleissKappaCI, p.say(
		fmt.Sprintf("over %s answered by %d experts", p.theN(o.FleissItems, "passage", "passages"), o.FleissRaters),
		fmt.Sprintf("%s con le risposte di %d esperti", p.onThe(o.FleissItems, "passaggio", "passaggi"), o.FleissRaters)))
	over := p.say("over "+p.n(o.AlphaItems, "passage", "passages"), "su "+p.n(o.AlphaItems, "passaggio", "passaggi"))
	ms.add(p.say("Krippendorff's α (nominal)", "l'α di Krippendorff (nominale)"), o.KrippendorffAlphaNominal, o.KrippendorffAlphaNominalCI, over)
	ms.add(p.say("Krippendorff's α (ordinal, \"insufficient\" the highest category)", "l'α di Krippendorff (ordinale, \"insufficiente\" come categoria più alta)"),
		o.KrippendorffAlphaOrdinal, o.KrippendorffAlphaOrdinalCI, over)
	if len(ms.defined) > 0 {
		s.WriteString(p.say(" Over all surveys, ", " Su tutti i questionari, ") + p.list(ms.defined) + ".")
	}
	s.WriteString(ms.undefinedSentence(p.say("they need passages answered by two or more experts, and answers that are not all the same",
		"richiedono passaggi con le risposte di due o più esperti, e risposte non tutte uguali")))
	if o.FullConsensus == nil || o.MajorityConsensus == nil {
		s.WriteString(p.say(" No passage had two or more answers, so consensus could not be measured.", " Nessun passaggio ha avuto due o più risposte: il consenso non è misurabile."))
	} else {
		s.WriteString(p.say(fmt.Sprintf(" All experts chose the same category %s %s with two or more answers and a majority on %s more.",
			p.on(o.FullConsensus, o.FullConsensusCI), p.ofThe(o.ConsensusItems, "passage", "passages", "", ""), p.pct(o.MajorityConsensus, o.MajorityConsensusCI)),
			fmt.Sprintf(" Tutti gli esperti hanno scelto la stessa categoria %s %s con due o più risposte, e una maggioranza su un ulteriore %s.",
				p.on(o.FullConsensus, o.FullConsensusCI), p.ofThe(o.ConsensusItems, "", "", "passaggio", "passaggi"), p.pct(o.MajorityConsensus, o.MajorityConsensusCI))))
	}
	if len(o.CumulativeJudgements) > 0 && o.CumulativeJudgements[0] != nil {
		var ci *analysis.CI
		if len(o.CumulativeJudgementsCI) > 0 {
			ci = o.CumulativeJudgementsCI[0]
		}
		s.WriteString(p.say(fmt.Sprintf(" With no added sentence, %s of the judgements found the content understandable.", p.pct(o.CumulativeJudgements[0], ci)),
			fmt.Sprintf(" Senza frasi aggiunte, %s dei giudizi ha trovato il contenuto comprensibile.", p.the(o.CumulativeJudgements[0], ci))))
	}
	m.Paragraphs = append(m.Paragraphs, s.String())
	last := p.bootSentence(c.Bootstrap, p.say("resampling passages within each survey", "ricampionando i passaggi all'interno di ciascun questionario"))
	last += p.say(" The same figures are reported per survey and per kind × period.", " Le stesse misure sono riportate per questionario e per tipo × periodo.")
	m.Paragraphs = append(m.Paragraphs, last)
	m.Sources = []string{"overall.judgements", "overall.items", "overall.fleiss_kappa(_ci95)", "overall.fleiss_items", "overall.fleiss_raters",
		"overall.krippendorff_alpha_nominal(_ci95)", "overall.krippendorff_alpha_ordinal(_ci95)", "overall.krippendorff_items",
		"overall.full_consensus(_ci95)", "overall.consensus_items", "overall.majority_consensus(_ci95)", "overall.cumulative_judgements[0](_ci95)", "bootstrap"}
	return m
}

// ExplanationsMethods writes the methods paragraph of the explanation ratings.
func ExplanationsMethods(e *modelhuman.Explanations, ratings int, l Lang) *Methods {
	p := prose{l}
	m := &Methods{Lang: l, Title: p.say("Methods: ratings of model explanations", "Metodi: giudizi sulle spiegazioni dei modelli")}
	kind := e.PooledKind()
	var s strings.Builder
	s.WriteString(p.say(
		fmt.Sprintf("Experts gave %s of model explanations on a five-point scale (totally correct, correct among various options, partially correct, totally wrong, answer not given).", p.n(ratings, "rating", "ratings")),
		fmt.Sprintf("Gli esperti hanno dato %s sulle spiegazioni dei modelli su una scala di cinque valori (totalmente corretta, corretta tra varie opzioni, parzialmente corretta, totalmente sbagliata, risposta non data).", p.n(ratings, "giudizio", "giudizi"))))
	pooled := e.Table[kind][domain.TypeAll]
	if pooled == nil || pooled.N == 0 {
		s.WriteString(p.say(" No explanation was rated, so no share could be computed.", " Nessuna spiegazione è stata giudicata: nessuna proporzione è calcolabile."))
		m.Paragraphs = append(m.Paragraphs, s.String())
		return m
	}
	s.WriteString(p.say(fmt.Sprintf(" Counting the first three as acceptable, %s of the explanations were acceptable overall", p.pct(pooled.Acceptable(), pooled.AcceptableCI())),
		fmt.Sprintf(" Contando le prime tre come accettabili, è risultato accettabile nel complesso %s delle spiegazioni", p.the(pooled.Acceptable(), pooled.AcceptableCI()))))
	var parts []string
	for _, st := range e.StrategyOrder {
		if c := e.Table[kind][st]; c != nil && st != domain.TypeAll && c.N > 0 {
			parts = append(parts, st+" "+p.shareN(c))
		}
	}
	if len(parts) > 1 {
		s.WriteString(p.say("; by prompting strategy: ", "; per strategia di prompting: ") + strings.Join(parts, "; "))
	}
	s.WriteString(p.say(". Intervals are 95 % Wilson score intervals with the passages as clusters (effective sample size).", ". Gli intervalli sono intervalli di Wilson al 95 % con i passaggi come cluster (numerosità effettiva)."))
	m.Paragraphs = append(m.Paragraphs, s.String())
	if len(e.ModelOrder) > 1 {
		var ms []string
		for _, name := range e.ModelOrder {
			x := e.ByModel[name]
			if c := x.Table[x.PooledKind()][domain.TypeAll]; c != nil && c.N > 0 {
				ms = append(ms, name+" "+p.shareN(c))
			}
		}
		m.Paragraphs = append(m.Paragraphs, p.say("Acceptable by model: ", "Accettabili per modello: ")+strings.Join(ms, "; ")+".")
	}
	m.Sources = []string{kind + ".all.n", kind + ".all.acceptable(_ci95)", kind + ".<strategy>.acceptable(_ci95)", "by_model"}
	return m
}

// shareN prints "67 % (95 % CI 21–94 %, n = 3)".
func (p prose) shareN(c *modelhuman.JudgmentShares) string {
	s := p.pct(c.Acceptable(), c.AcceptableCI())
	if strings.HasSuffix(s, ")") {
		return strings.TrimSuffix(s, ")") + fmt.Sprintf(", n = %d)", c.N)
	}
	return s + fmt.Sprintf(" (n = %d)", c.N)
}
