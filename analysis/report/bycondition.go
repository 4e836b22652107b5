package report

import (
	"fmt"
	"gonum.org/v1/plot"
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/conditions"
	"strconv"
	"strings"
)

// The tables, methods and figures of judgement by condition
// (docs/statistics.md#judgement-by-condition).

// German is the third language of the methods of judgement by
// condition (the others' methods are in English and Italian only).
const German Lang = "de"

// ConditionsLangs are the languages of ConditionsMethods.
var ConditionsLangs = []Lang{English, Italian, German}

// estOf is an estimate cell, with the reason its interval is missing.
func estOf(v *float64, ci *analysis.CI, na map[string]string, key string) any {
	if v != nil && ci == nil && na[key] != "" {
		return EstNA{analysis.Est{V: v}, na[key]}
	}
	return analysis.Est{V: v, CI: ci}
}

// ConditionMeansTable has a row per condition: the counts, the mean
// rating and the mean z with their 95 % intervals.
func ConditionMeansTable(r *conditions.Result) *Table {
	t := &Table{Name: "condition_means", Title: fmt.Sprintf("Ratings by condition (scale 1–%d; 95%% intervals, participants and items crossed)", r.ScalePoints),
		Columns: []string{"Condition", "Ratings", "Participants", "Items", "Mean rating", "Mean z"}}
	for _, c := range r.Conditions {
		t.Rows = append(t.Rows, []any{c.Name, c.Ratings, c.Participants, c.Items,
			estOf(c.MeanRating, c.MeanRatingCI, c.IntervalsNA, "mean_rating_ci95"), estOf(c.MeanZ, c.MeanZCI, c.IntervalsNA, "mean_z_ci95")})
	}
	p := r.Participants
	t.Notes = append(t.Notes,
		fmt.Sprintf("%d %s, %d excluded, %d with attention checks only, %d analysed (%d of them gave every item the same rating: no z-scores).", p.Total, map[bool]string{true: "participant", false: "participants"}[p.Total == 1], len(p.Excluded), len(p.ChecksOnly), p.Analysed, len(p.ZeroVariance)),
		"Mean z: each participant's ratings z-scored (population SD), averaged over the condition's ratings.",
		"Intervals: two-way cluster-robust (Cameron, Gelbach & Miller 2011), t with min(participants, items) − 1 df.")
	return t
}

// ConditionDistributionTable has a row per condition and a column per
// point of the scale: the count of ratings and their share.
func ConditionDistributionTable(r *conditions.Result) *Table {
	t := &Table{Name: "condition_distribution", Title: "Distribution of the ratings by condition (count and share of the condition's ratings)",
		Columns: []string{"Condition", "Ratings"}}
	for k := 1; k <= r.ScalePoints; k++ {
		t.Columns = append(t.Columns, strconv.Itoa(k))
	}
	for _, c := range r.Conditions {
		row := []any{c.Name, c.Ratings}
		for _, pt := range c.Distribution {
			cell := strconv.Itoa(pt.Count)
			if pt.Share != nil {
				cell += " (" + analysis.Percent(*pt.Share) + " %)"
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// ConditionDifferencesTable has a row per difference: the condition, the
// one it is compared with, what the difference is taken within, and the
// differences in mean rating and mean z with their intervals.
func ConditionDifferencesTable(r *conditions.Result) *Table {
	t := &Table{Name: "condition_differences", Title: "Differences between conditions (95% intervals, participants and items crossed)",
		Columns: []string{"Condition", "Versus", "Participants in both", "Items in both", "Within", "Difference in mean rating", "Difference in mean z"}}
	for _, d := range r.Differences {
		t.Rows = append(t.Rows, []any{d.Condition, d.Versus, d.ParticipantsInBoth, d.ItemsInBoth, d.AdjustedFor,
			estOf(d.MeanRating, d.MeanRatingCI, d.IntervalsNA, "mean_rating_difference_ci95"), estOf(d.MeanZ, d.MeanZCI, d.IntervalsNA, "mean_z_difference_ci95")})
	}
	t.Notes = []string{"Difference: the condition minus the one it is compared with, estimated within the participants and items the two share (\"Within\"); in a Latin square it is the difference of the two means."}
	switch {
	case len(r.Conditions) == 0:
		t.Notes = append(t.Notes, "No condition was rated by an analysed participant: no difference to take.")
	case len(r.Differences) == 0:
		t.Notes = append(t.Notes, "Only one condition: no difference to take.")
	}
	return t
}

// ConditionsTables are the three tables in the order printed.
func ConditionsTables(r *conditions.Result) []*Table {
	return []*Table{ConditionMeansTable(r), ConditionDistributionTable(r), ConditionDifferencesTable(r)}
}

// ConditionsFigures are the figures: the mean rating per condition with
// its interval, and the distribution of the ratings per condition.
func ConditionsFigures(r *conditions.Result) ([]Figure, error) {
	if len(r.Conditions) == 0 {
		return nil, nil
	}
	names := make([]string, len(r.Conditions))
	s := IntervalSeries{Name: "mean rating"}
	for k, c := range r.Conditions {
		names[k] = c.Name
		s.Values, s.CIs = append(s.Values, c.MeanRating), append(s.CIs, c.MeanRatingCI)
	}
	for k := range names {
		names[k] = wrapLabel(names[k], 14)
	}
	means, err := IntervalPlot("Mean rating by condition (95 % intervals)", fmt.Sprintf("mean rating (1–%d)", r.ScalePoints), names, []IntervalSeries{s}, 1, float64(r.ScalePoints))
	if err != nil {
		return nil, err
	}
	means.Y.Tick.Marker = scaleTicks(r.ScalePoints)
	points := make([]string, r.ScalePoints)
	for k := range points {
		points[k] = strconv.Itoa(k + 1)
	}
	var series []ModelSeries
	for _, c := range r.Conditions {
		ms := ModelSeries{Name: c.Name}
		for _, pt := range c.Distribution {
			v := math.NaN()
			if pt.Share != nil {
				v = *pt.Share
			}
			ms.Values = append(ms.Values, v)
		}
		series = append(series, ms)
	}
	dist, err := AccuracyBars("Distribution of the ratings by condition", "share of the condition's ratings", points, series[0], series[1:])
	if err != nil {
		return nil, err
	}
	dist.X.Label.Text = "rating"
	return []Figure{
		{Name: "condition_means", Title: means.Title.Text, Plot: means},
		{Name: "condition_distribution", Title: dist.Title.Text, Plot: dist},
	}, nil
}

// say3 picks the sentence of the language, German included.
func say3(l Lang, en, it, de string) string {
	switch l {
	case Italian:
		return it
	case German:
		return de
	}
	return en
}

// ConditionsMethods writes the methods paragraph of judgement by
// condition in English, Italian or German, with the numbers filled in.
func ConditionsMethods(r *conditions.Result, l Lang) *Methods {
	say := func(en, it, de string) string { return say3(l, en, it, de) }
	num := func(x float64) string {
		s := analysis.Fixed(x, 2)
		if l != English {
			s = strings.Replace(s, ".", ",", 1)
		}
		return s
	}
	est := func(x *float64, ci *analysis.CI) string {
		if x == nil {
			return say("not computable", "non calcolabile", "nicht berechenbar")
		}
		if ci == nil {
			return num(*x) + say(" (no interval)", " (senza intervallo)", " (ohne Intervall)")
		}
		sep := ", "
		if l != English {
			sep = "; "
		}
		return num(*x) + say(" (95 % CI [", " (IC 95 % [", " (95-%-KI [") + num(ci[0]) + sep + num(ci[1]) + "])"
	}
	list := func(xs []string) string {
		if len(xs) <= 1 {
			return strings.Join(xs, "")
		}
		return strings.Join(xs[:len(xs)-1], ", ") + say(" and ", " e ", " und ") + xs[len(xs)-1]
	}
	pl := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + many
	}
	m := &Methods{Lang: l, Title: say("Methods: ratings by condition", "Metodi: giudizi per condizione", "Methoden: Urteile nach Bedingung")}
	p := r.Participants
	set := r.Settings
	var b strings.Builder
	v := func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	}
	e, c, a := len(p.Excluded), len(p.ChecksOnly), p.Analysed
	b.WriteString(say(
		fmt.Sprintf("Ratings were given on a %d-point scale. Of %s, %d %s excluded for failing %d or more attention checks (a \"high\" check passed with a rating of at least %d, a \"low\" one with at most %d) or by the researcher, and %d rated attention checks only; %d %s analysed.",
			r.ScalePoints, pl(p.Total, "participant", "participants"), e, v(e, "was", "were"), set.MaxFailed, set.HighPass, set.LowPass, c, a, v(a, "was", "were")),
		fmt.Sprintf("I giudizi sono stati dati su una scala a %d punti. Su %s, %d %s per aver fallito %d o più controlli di attenzione (un controllo \"alto\" era superato con un giudizio di almeno %d, uno \"basso\" con al massimo %d) o per decisione del ricercatore, e %d %s solo ai controlli di attenzione; %s %d.",
			r.ScalePoints, pl(p.Total, "partecipante", "partecipanti"), e, v(e, "è stato escluso", "sono stati esclusi"), set.MaxFailed, set.HighPass, set.LowPass, c, v(c, "ha risposto", "hanno risposto"), v(a, "è stato analizzato", "ne sono stati analizzati"), a),
		fmt.Sprintf("Die Urteile wurden auf einer %d-stufigen Skala abgegeben. Von %s %s %d ausgeschlossen, weil sie %d oder mehr Aufmerksamkeitskontrollen nicht bestanden (eine „hohe“ Kontrolle galt ab einem Urteil von %d als bestanden, eine „niedrige“ bis %d) oder auf Entscheidung der Forschenden, und %d %s nur Aufmerksamkeitskontrollen; %d %s ausgewertet.",
			r.ScalePoints, pl(p.Total, "teilnehmenden Person", "Teilnehmenden"), v(e, "wurde", "wurden"), e, set.MaxFailed, set.HighPass, set.LowPass, c, v(c, "beantwortete", "beantworteten"), a, v(a, "wurde", "wurden"))))
	if z := len(p.ZeroVariance); z > 0 {
		b.WriteString(say(
			fmt.Sprintf(" %s gave every item the same rating: these ratings count in the means on the scale but have no z-scores.", pl(z, "participant", "participants")),
			fmt.Sprintf(" %s %s lo stesso giudizio a ogni item: questi giudizi contano nelle medie sulla scala, ma non hanno punteggi z.", pl(z, "partecipante", "partecipanti"), v(z, "ha dato", "hanno dato")),
			fmt.Sprintf(" %s %s jedem Satz dasselbe Urteil: Diese Urteile zählen in den Mittelwerten auf der Skala, haben aber keine z-Werte.", pl(z, "teilnehmende Person", "Teilnehmende"), v(z, "gab", "gaben"))))
	}
	if len(r.Conditions) == 0 {
		b.WriteString(say(" No item was rated by an analysed participant, so nothing could be averaged.",
			" Nessun item è stato giudicato da un partecipante analizzato: non c'è nulla da mediare.",
			" Kein Satz wurde von einer ausgewerteten Person beurteilt: Es gibt nichts zu mitteln."))
		m.Paragraphs = append(m.Paragraphs, b.String())
		m.Sources = []string{"scale_points", "participants", "settings", "conditions"}
		return m
	}
	names := make([]string, len(r.Conditions))
	for k, c := range r.Conditions {
		names[k] = c.Name
	}
	b.WriteString(say(
		fmt.Sprintf(" The items were rated in %s: %s.", pl(len(names), "condition", "conditions"), list(names)),
		fmt.Sprintf(" Gli item sono stati giudicati in %s: %s.", pl(len(names), "condizione", "condizioni"), list(names)),
		fmt.Sprintf(" Die Sätze wurden in %s beurteilt: %s.", pl(len(names), "Bedingung", "Bedingungen"), list(names))))
	m.Paragraphs = append(m.Paragraphs, b.String())

	b.Reset()
	b.WriteString(say(
		"Per condition we report the mean rating on the scale and the mean z-score (each participant's ratings standardised with the population standard deviation), each with a 95 % interval from the two-way cluster-robust variance of Cameron, Gelbach and Miller (2011), which treats participants and items as crossed random samples, and a t quantile with one fewer degrees of freedom than the smaller number of participants or items.",
		"Per ogni condizione riportiamo il giudizio medio sulla scala e il punteggio z medio (i giudizi di ciascun partecipante standardizzati con la deviazione standard della popolazione), ciascuno con un intervallo al 95 % dalla varianza robusta a due vie di Cameron, Gelbach e Miller (2011), che tratta partecipanti e item come campioni incrociati, e un quantile t con un grado di libertà in meno del numero minore tra partecipanti e item.",
		"Für jede Bedingung berichten wir das mittlere Urteil auf der Skala und den mittleren z-Wert (die Urteile jeder teilnehmenden Person mit der Standardabweichung der Population standardisiert), jeweils mit einem 95-%-Konfidenzintervall aus der zweifach cluster-robusten Varianz nach Cameron, Gelbach und Miller (2011), die Teilnehmende und Sätze als gekreuzte Stichproben behandelt, und einem t-Quantil mit einem Freiheitsgrad weniger als die kleinere Zahl von Teilnehmenden oder Sätzen."))
	for _, c := range r.Conditions {
		b.WriteString(say(
			fmt.Sprintf(" In %s (%s, %s, %s), the mean rating was %s and the mean z %s.", c.Name, pl(c.Ratings, "rating", "ratings"), pl(c.Participants, "participant", "participants"), pl(c.Items, "item", "items"), est(c.MeanRating, c.MeanRatingCI), est(c.MeanZ, c.MeanZCI)),
			fmt.Sprintf(" In %s (%s, %s, %s) il giudizio medio è stato %s e lo z medio %s.", c.Name, pl(c.Ratings, "giudizio", "giudizi"), pl(c.Participants, "partecipante", "partecipanti"), pl(c.Items, "item", "item"), est(c.MeanRating, c.MeanRatingCI), est(c.MeanZ, c.MeanZCI)),
			fmt.Sprintf(" In %s (%s, %s, %s) betrug das mittlere Urteil %s und der mittlere z-Wert %s.", c.Name, pl(c.Ratings, "Urteil", "Urteile"), pl(c.Participants, "Teilnehmende", "Teilnehmende"), pl(c.Items, "Satz", "Sätze"), est(c.MeanRating, c.MeanRatingCI), est(c.MeanZ, c.MeanZCI))))
	}
	m.Paragraphs = append(m.Paragraphs, b.String())

	if len(r.Differences) > 0 {
		b.Reset()
		b.WriteString(say(
			"Each difference between two conditions was estimated within the participants and items they share (the coefficient of the condition in a least-squares fit with participant and item effects; in a Latin square, the difference of the two means), with the same two-way interval.",
			"Ogni differenza tra due condizioni è stata stimata all'interno dei partecipanti e degli item che le due condividono (il coefficiente della condizione in un modello ai minimi quadrati con effetti di partecipante e di item; in un quadrato latino, la differenza delle due medie), con lo stesso intervallo a due vie.",
			"Jeder Unterschied zwischen zwei Bedingungen wurde innerhalb der Teilnehmenden und Sätze geschätzt, die beide gemeinsam haben (der Koeffizient der Bedingung in einem Kleinste-Quadrate-Modell mit Effekten für Teilnehmende und Sätze; in einem lateinischen Quadrat die Differenz der beiden Mittelwerte), mit demselben zweifachen Intervall."))
		for _, d := range r.Differences {
			b.WriteString(say(
				fmt.Sprintf(" %s minus %s: %s on the scale, %s in z.", d.Condition, d.Versus, est(d.MeanRating, d.MeanRatingCI), est(d.MeanZ, d.MeanZCI)),
				fmt.Sprintf(" %s meno %s: %s sulla scala, %s in z.", d.Condition, d.Versus, est(d.MeanRating, d.MeanRatingCI), est(d.MeanZ, d.MeanZCI)),
				fmt.Sprintf(" %s minus %s: %s auf der Skala, %s in z.", d.Condition, d.Versus, est(d.MeanRating, d.MeanRatingCI), est(d.MeanZ, d.MeanZCI))))
		}
		m.Paragraphs = append(m.Paragraphs, b.String())
	}
	m.Sources = []string{"scale_points", "participants.total", "participants.excluded", "settings", "participants.checks_only", "participants.zero_variance", "participants.analysed",
		"conditions[].condition", "conditions[].ratings", "conditions[].participants", "conditions[].items", "conditions[].mean_rating(_ci95)", "conditions[].mean_z(_ci95)",
		"differences[].mean_rating_difference(_ci95)", "differences[].mean_z_difference(_ci95)"}
	return m
}

// scaleTicks labels a rating axis at the points of the scale, 1 to its
// last point, whatever room the axis leaves around them.
type scaleTicks int

func (s scaleTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for k := max(1, int(math.Ceil(lo-1e-9))); float64(k) <= min(hi+1e-9, float64(s)); k++ {
		ts = append(ts, plot.Tick{Value: float64(k), Label: strconv.Itoa(k)})
	}
	return ts
}

// wrapLabel breaks a long axis label at spaces into lines of about width
// characters, so neighbouring condition names do not run into each other.
func wrapLabel(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}
