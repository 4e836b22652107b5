package report

import (
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"strings"
)

// The corrected r in the tables
// (docs/statistics.md#disattenuated-correlation): beside the observed r,
// "n/a" where the correction is undefined, and a mark (†) on a row whose
// interval the coverage study found short for data like these, explained
// in the notes.

// NotAvailable is how a statistic that is undefined for a stated reason
// is printed for people.
const NotAvailable = "n/a"

// KappaNoVariation is how a κ of an annotator who gave one answer on every
// item is printed: it is 0 by construction.
const KappaNoVariation = "n/a (no variation)"

// approxMark marks an approximate interval in the tables.
const approxMark = "†"

// disattenuatedCell is the corrected r of x (with its interval when
// withCI), or "n/a" when the correction is undefined while r is not.
func disattenuatedCell(x *toplines.TypeToplines, withCI bool) any {
	if x.PearsonRDisattenuated == nil && x.PearsonRDisattenuatedNA != "" {
		return NotAvailable
	}
	if withCI {
		return analysis.Est{V: x.PearsonRDisattenuated, CI: x.PearsonRDisattenuatedCI}
	}
	return x.PearsonRDisattenuated
}

// disattenuatedRows adds the corrected r and the reliabilities to the
// point-estimate table.
func disattenuatedRows(t *toplines.Toplines, row func(string, func(*toplines.TypeToplines) any)) {
	row("Pearson r corrected for attenuation", func(x *toplines.TypeToplines) any { return disattenuatedCell(x, false) })
	row("Reliability of the item means without cancellation", func(x *toplines.TypeToplines) any { return x.ReliabilityTrigger })
	row("Reliability of the item means with cancellation", func(x *toplines.TypeToplines) any { return x.ReliabilityCancel })
}

// approxLabel is a row label, marked when the interval under key is
// approximate in some column.
func approxLabel(t *toplines.Toplines, key, label string) string {
	if anyType(t, func(x *toplines.TypeToplines) bool { return x.Approximate[key] != nil }) {
		return label + " " + approxMark
	}
	return label
}

// disattenuatedNotes explain the corrected r, its n/a cells and the
// approximate intervals, by column.
func disattenuatedNotes(t *toplines.Toplines, intervals bool) []string {
	notes := []string{"Pearson r corrected for attenuation: the observed r divided by the square root of the two sets of item means' reliabilities (docs/statistics.md#disattenuated-correlation); it estimates the correlation of the items' population mean z-scores, which the observed r underestimates."}
	var approx, shares, near, na []string
	for _, typ := range allTypes() {
		x := t.ByType[typ]
		if x == nil {
			continue
		}
		if x.Approximate["pearson_r_ci95"] != nil {
			approx = append(approx, typ)
		}
		if x.Approximate[toplines.MStrengthen+"_ci95"] != nil || x.Approximate[toplines.MUnchanged+"_ci95"] != nil {
			shares = append(shares, typ)
		}
		if x.Approximate[toplines.MCancellation+"_ci95"] != nil || x.Approximate[toplines.MBeliefUpdate+"_ci95"] != nil {
			near = append(near, typ)
		}
		if x.PearsonRDisattenuated == nil && x.PearsonRDisattenuatedNA != "" {
			na = append(na, fmt.Sprintf("%s (%s)", typ, x.PearsonRDisattenuatedNA))
		}
	}
	if !intervals {
		approx, shares, near = nil, nil, nil
	}
	if len(near) > 0 {
		notes = append(notes, fmt.Sprintf("%s Approximate intervals of cancellation recognition and belief update in %s: most items' differences between the mean z without and with cancellation are within one standard error of 0, so the rating noise decides the comparison (coverage 0.27–0.91 in the coverage study's cell with such items).", approxMark, strings.Join(near, ", ")))
	}
	if len(approx) > 0 {
		notes = append(notes, fmt.Sprintf("%s Approximate interval of the observed r in %s: the rating noise of the item means (reliability below %.2f) attenuates the observed r, so its interval can miss the correlation of the items' population means (down to 0 %% coverage in the coverage study at a true r of 0.99); the corrected r's interval covers it.", approxMark, strings.Join(approx, ", "), toplines.MinReliability))
	}
	if len(shares) > 0 {
		notes = append(notes, fmt.Sprintf("%s Approximate intervals of strengthening and unchanged in %s: fewer than %d ratings per item and condition on average, where the coverage study measured them at 0.72–0.97 (10–20 ratings) and 0.39–0.92 (5 ratings); see result.json's approximate_intervals.", approxMark, strings.Join(shares, ", "), toplines.MinRatingsPerCell))
	}
	if len(na) > 0 {
		notes = append(notes, "n/a: the correction is undefined in "+strings.Join(na, "; ")+".")
	}
	return notes
}

// nearThresholdSentence warns, in the methods text, of approximate
// cancellation recognition and belief update intervals.
func nearThresholdSentence(p prose, all *toplines.TypeToplines) string {
	a := all.Approximate[toplines.MCancellation+"_ci95"]
	if a == nil {
		a = all.Approximate[toplines.MBeliefUpdate+"_ci95"]
	}
	if a == nil {
		return ""
	}
	return p.say(" The intervals of cancellation recognition and belief update are approximate: "+a.Reason+".",
		" Gli intervalli del riconoscimento della cancellazione e dell'aggiornamento delle credenze sono approssimati: la maggior parte delle differenze tra le medie degli item è entro un errore standard da 0 (copertura 0,27–0,91 nello studio di copertura).")
}

// disattenuatedSentence is the methods text of the corrected r, after the
// observed r's sentence.
func disattenuatedSentence(p prose, all *toplines.TypeToplines) string {
	var s strings.Builder
	if a := all.Approximate["pearson_r_ci95"]; a != nil && all.PearsonRCI != nil {
		s.WriteString(p.say(" This observed r is attenuated by the rating noise of the item means, so its interval is approximate as an interval for the correlation of the items' population means.",
			" Questa r osservata è attenuata dal rumore dei giudizi nelle medie degli item: il suo intervallo è approssimato come intervallo della correlazione tra le medie degli item nella popolazione."))
	}
	if all.PearsonRDisattenuated == nil {
		if all.PearsonRDisattenuatedNA != "" {
			s.WriteString(p.say(" The correction for attenuation could not be applied: "+all.PearsonRDisattenuatedNA+".",
				" La correzione per l'attenuazione non è applicabile (n/d): "+all.PearsonRDisattenuatedNA+"."))
		}
		return s.String()
	}
	rel := func(x *float64) string {
		if x == nil {
			return NotAvailable
		}
		return p.num(*x)
	}
	ci := ""
	if c := all.PearsonRDisattenuatedCI; c != nil {
		ci = p.say(fmt.Sprintf(", 95 %% CI [%s, %s]", p.num(c[0]), p.num(c[1])), fmt.Sprintf(", IC 95 %% [%s; %s]", p.num(c[0]), p.num(c[1])))
	}
	s.WriteString(p.say(fmt.Sprintf(" Corrected for attenuation (Spearman's correction, with reliabilities of the item means of %s without and %s with cancellation, from the within-cell variance of the z-scores), the correlation of the items' population means was estimated as r = %s%s.",
		rel(all.ReliabilityTrigger), rel(all.ReliabilityCancel), p.num(*all.PearsonRDisattenuated), ci),
		fmt.Sprintf(" Corretta per l'attenuazione (correzione di Spearman, con attendibilità delle medie degli item di %s senza e %s con cancellazione, dalla varianza dei punteggi z entro cella), la correlazione tra le medie degli item nella popolazione è stimata in r = %s%s.",
			rel(all.ReliabilityTrigger), rel(all.ReliabilityCancel), p.num(*all.PearsonRDisattenuated), ci)))
	return s.String()
}
