// Package report writes every room's results for people: tables (text,
// CSV, JSON, LaTeX), methods text, plots and the R companion's files.
package report

import (
	"fmt"
	"io"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/toplines"
	"pragmalab/csvsafe"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Table is a result laid out for people: the CLI prints it aligned, the
// admin pages show it as HTML and offer it as CSV. Cells are string, int,
// *float64 (nil = cannot be computed) or PValue.
type Table struct {
	Name    string // file name stem for downloads, e.g. "toplines"
	Title   string
	Columns []string
	Rows    [][]any
	Notes   []string
	// Landscape lays the LaTeX out for an A4 landscape page (the context
	// tables); the others are for A4 portrait.
	Landscape bool
}

// PValue is a p-value cell: printed "< 0.001" for people, raw in CSV.
type PValue struct{ P *float64 }

// EstNA is an estimate whose interval could not be computed, with the
// reason in plain words ("too few items: 2"): printed "0.85 [n/a: too few
// items: 2]", in CSV with empty bounds, in JSON with "<column>_ci95_na".
type EstNA struct {
	analysis.Est
	NA string
}

// toplineCell is the cell of topline q (its JSON name, as
// TypeToplines.quantity takes it), without its interval.
func toplineCell(q string) func(*toplines.TypeToplines) any {
	return func(x *toplines.TypeToplines) any {
		v, _ := x.Quantity(q)
		return v
	}
}

// intervalCell is the cell of topline q with its interval, or with the
// reason it has none when the topline exists.
func intervalCell(q string) func(*toplines.TypeToplines) any {
	return func(x *toplines.TypeToplines) any {
		v, ci := x.Quantity(q)
		if na := x.IntervalsNA[q+"_ci95"]; v != nil && ci == nil && na != "" {
			return EstNA{analysis.Est{V: v, CI: nil}, na}
		}
		return analysis.Est{V: v, CI: ci}
	}
}

// Marked is a number with a mark after it for people ("0.77 ‡"); CSV and
// JSON hold the number alone.
type Marked struct {
	V    any
	Mark string
}

// Text formats a cell for people: shares and statistics with 2 decimals.
func Text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case *float64:
		if x == nil {
			return analysis.Missing
		}
		return analysis.Fixed(*x, 2)
	case PValue:
		if x.P == nil {
			return analysis.Missing
		}
		return strings.TrimPrefix(strings.TrimPrefix(FormatP(*x.P), "p "), "= ")
	case analysis.Est:
		if x.V == nil {
			return analysis.Missing
		}
		if x.CI == nil {
			return Text(x.V)
		}
		return Text(x.V) + " " + analysis.CIText(x.CI)
	case EstNA:
		return Text(x.V) + " " + naText(x.NA)
	case Marked:
		if t := Text(x.V); t != analysis.Missing && x.Mark != "" {
			return t + " " + x.Mark
		}
		return Text(x.V)
	}
	return fmt.Sprint(v)
}

// naText is an interval that could not be computed, with the reason.
func naText(reason string) string { return "[n/a: " + reason + "]" }

// Raw formats a cell for CSV: full precision, empty when missing.
func Raw(v any) string {
	switch x := v.(type) {
	case *float64:
		if x == nil {
			return ""
		}
		return strconv.FormatFloat(*x, 'g', -1, 64)
	case PValue:
		return Raw(x.P)
	case analysis.Est:
		return Raw(x.V)
	case EstNA:
		return Raw(x.V)
	case Marked:
		return Raw(x.V)
	}
	return Text(v)
}

// WriteText prints the title, the aligned table and the notes.
func (t *Table) WriteText(w io.Writer) error {
	if t.Title != "" {
		fmt.Fprintf(w, "%s\n\n", t.Title)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.Columns, "\t"))
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = Text(v)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(t.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range t.Notes {
			fmt.Fprintf(w, "%s\n", n)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// WriteCSV writes the header and rows (notes are not part of the data),
// formula cells neutralised (csvsafe).
// A column holding estimates with intervals (Est) is followed by two
// columns "<column> 95% CI low" and "… high".
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csvsafe.NewWriter(w)
	est := t.estColumns()
	var header []string
	for i, c := range t.Columns {
		header = append(header, c)
		if est[i] {
			header = append(header, c+" 95% CI low", c+" 95% CI high")
		}
	}
	cw.Write(header)
	for _, r := range t.Rows {
		cells := make([]string, 0, len(header))
		for i, v := range r {
			cells = append(cells, Raw(v))
			if est[i] {
				lo, hi := "", ""
				if e, ok := v.(analysis.Est); ok && e.CI != nil && e.V != nil {
					lo, hi = strconv.FormatFloat(e.CI[0], 'g', -1, 64), strconv.FormatFloat(e.CI[1], 'g', -1, 64)
				}
				cells = append(cells, lo, hi)
			}
		}
		cw.Write(cells)
	}
	cw.Flush()
	return cw.Error()
}

// estColumns marks the columns where some row holds an Est.
func (t *Table) estColumns() []bool {
	est := make([]bool, len(t.Columns))
	for _, r := range t.Rows {
		for i, v := range r {
			_, isEst := v.(analysis.Est)
			_, isNA := v.(EstNA)
			if (isEst || isNA) && i < len(est) {
				est[i] = true
			}
		}
	}
	return est
}

func typeColumns(first string) []string {
	cols := []string{first}
	for _, t := range domain.TableTypes {
		cols = append(cols, strings.ToUpper(t[:1])+t[1:])
	}
	return append(cols, "All")
}

func allTypes() []string { return append(append([]string{}, domain.TableTypes...), domain.TypeAll) }

// typeRows returns the function that adds to tb a row labelled label with
// f of each item type's toplines, in allTypes order.
func typeRows(tb *Table, t *toplines.Toplines) func(label string, f func(*toplines.TypeToplines) any) {
	return func(label string, f func(*toplines.TypeToplines) any) {
		r := []any{label}
		for _, typ := range allTypes() {
			r = append(r, f(t.ByType[typ]))
		}
		tb.Rows = append(tb.Rows, r)
	}
}

// anyType reports whether some column's toplines (of allTypes) meet ok.
func anyType(t *toplines.Toplines, ok func(*toplines.TypeToplines) bool) bool {
	for _, typ := range allTypes() {
		if x := t.ByType[typ]; x != nil && ok(x) {
			return true
		}
	}
	return false
}

// ToplinesTable lays out the toplines as in the ImplicatureX paper: one
// row per measure, one column per item type.
func ToplinesTable(t *toplines.Toplines) *Table {
	tb := &Table{Name: "toplines", Title: "Human toplines (share of items; per-participant z-scores, mean per item)", Columns: typeColumns("Measure")}
	row := typeRows(tb, t)
	row("Items", func(x *toplines.TypeToplines) any { return x.Items })
	row("Implicature recognition", toplineCell(toplines.MImplicature))
	row("Cancellation recognition", toplineCell(toplines.MCancellation))
	row("Belief update", toplineCell(toplines.MBeliefUpdate))
	controlRows(t, func(c control) { row(c.label, toplineCell(c.key)) })
	row("Pearson r, mean z without vs with cancellation", func(x *toplines.TypeToplines) any { return pearsonCell(x) })
	row("p (two-sided)", func(x *toplines.TypeToplines) any { return PValue{x.PearsonP} })
	row("Items with both conditions (n for r)", func(x *toplines.TypeToplines) any { return x.PearsonN })
	disattenuatedRows(t, row)
	for _, m := range leftOutRows(t) {
		row(m.label, func(x *toplines.TypeToplines) any { return x.LeftOut[m.key] })
	}
	ps := t.Participants
	tb.Notes = []string{
		fmt.Sprintf("Participants: %d in the file, %d excluded (%d or more failed attention checks; high passes at ≥ %d, low at ≤ %d), %d with constant ratings (no z-scores), %d with attention checks only, %d analysed.",
			ps.Total, len(ps.Excluded), t.Settings.MaxFailed, t.Settings.HighPass, t.Settings.LowPass, len(ps.ZeroVariance), len(ps.ChecksOnly), ps.Analysed),
		"Excluded: " + listOrNone(ps.Excluded),
		"Constant ratings: " + listOrNone(ps.ZeroVariance),
		"Attention checks only (no item rated): " + listOrNone(ps.ChecksOnly),
		"Implicature recognition: mean z(trigger) > 0. Cancellation recognition: mean z(cancel) < mean z(trigger). Belief update: both.",
	}
	for _, n := range []string{controlNote(t), conditionsNote(t), fewItemsNote(t)} {
		if n != "" {
			tb.Notes = append(tb.Notes, n)
		}
	}
	tb.Notes = append(tb.Notes, disattenuatedNotes(t, false)...)
	return tb
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// ParticipantsTable lists every participant with their check results.
func ParticipantsTable(t *toplines.Toplines) *Table {
	tb := &Table{Name: "participants", Title: "Participants", Columns: []string{"Participant", "Ratings (non-check)", "Checks", "Failed checks", "Status"}}
	for _, p := range t.Participants.Details {
		status := "analysed"
		if p.Excluded {
			status = "excluded"
		} else if p.ZeroVariance {
			status = "constant ratings"
		} else if p.ChecksOnly {
			status = "attention checks only"
		}
		tb.Rows = append(tb.Rows, []any{p.ID, p.Ratings, p.Checks, p.FailedChecks, status})
	}
	return tb
}

// ItemMeansTable lists every item's mean z and number of ratings per
// analysed condition, items sorted by id (numbers in ids compared as
// numbers: s2 before s10).
func ItemMeansTable(t *toplines.Toplines) *Table {
	cols := []string{"Item", "Type"}
	var conds []toplines.Condition
	for c, name := range toplines.ConditionNames {
		if t.HasCondition(name) {
			conds = append(conds, toplines.Condition(c))
			cols = append(cols, "Mean z ("+name+")", "n ("+name+")")
		}
	}
	tb := &Table{Name: "item_means", Title: "Mean z-score per item and condition", Columns: cols}
	order := make([]int, len(t.Items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return NaturalCompare(t.Items[a].ID, t.Items[b].ID) })
	for _, i := range order {
		m := &t.Items[i]
		r := []any{m.ID, m.Type}
		for _, c := range conds {
			r = append(r, analysis.Num(m.MeanZ[c]), m.N[c])
		}
		tb.Rows = append(tb.Rows, r)
	}
	return tb
}

// AgreementTable lays out agreement per question, pooled then per pair.
func AgreementTable(a *agreement.Agreement) *Table {
	tb := &Table{Name: "agreement", Title: "Inter-annotator agreement",
		Columns: []string{"Question", "Annotators", "Items", "Raw agreement", "Cohen's κ", "PABAK", "Confusion", "Fleiss' κ", "Fleiss items", "Light's κ", "Krippendorff's α"}}
	pooled := strings.Join(a.Annotators, ", ")
	if len(a.Pairs) > 1 {
		pooled = "all pairs pooled"
	}
	add := func(q, who string, b agreement.Binary, whole *agreement.Question) {
		var fk any = analysis.Missing
		var fi any = analysis.Missing
		if b.FleissRaters > 0 {
			fk, fi = b.FleissKappa, b.FleissItems
		}
		var lk, ka any = analysis.Missing, analysis.Missing
		if whole != nil {
			lk, ka = whole.LightsKappa, whole.KrippendorffAlpha
		}
		var kappa any = b.Kappa
		if b.KappaNA != "" {
			kappa = KappaNoVariation
		}
		tb.Rows = append(tb.Rows, []any{q, who, b.Items, b.Raw, kappa, b.PABAK, agreement.ConfusionString(b.Confusion), fk, fi, lk, ka})
	}
	add("Plausibility", pooled, a.Plausibility.Binary, &a.Plausibility)
	add("Cancellation correctness", pooled, a.Cancellation.Binary, &a.Cancellation)
	if len(a.Pairs) > 1 {
		for _, p := range a.Pairs {
			add("Plausibility", p.A+" – "+p.B, p.Plausibility, nil)
			add("Cancellation correctness", p.A+" – "+p.B, p.Cancellation, nil)
		}
	}
	tb.Notes = []string{
		"Confusion [[yes/yes, yes/no], [no/yes, no/no]]: rows the first annotator's answer, columns the second's.",
		"Cancellation correctness counts only items both annotators judged plausible and answered.",
		"PABAK = 2 × raw − 1. Cohen's κ is undefined (–) when both annotators give every item the same single answer, and shown as n/a (no variation) when one of them does: it is then 0 by construction.",
		"With more than two annotators the pooled row sums the pairs' confusion matrices for raw agreement and PABAK; Cohen's κ is given per pair, and Light's κ is their mean.",
		"Fleiss' κ is over the items judged by the most annotators (an equal number per item). Krippendorff's α (nominal) uses every item with two or more values.",
	}
	return tb
}

// AgreementIntervalsTable lists every agreement coefficient over all items
// and per item type with its 95 % bootstrap interval.
func AgreementIntervalsTable(a *agreement.Agreement) *Table {
	tb := &Table{Name: "agreement_intervals", Title: "Agreement with 95 % intervals (BCa bootstrap over items, within type; raw agreement and PABAK: Wilson)",
		Columns: []string{"Items of type", "Question", "Items", "Raw agreement", "PABAK", "Cohen's κ / Light's κ", "Fleiss' κ", "Krippendorff's α"}}
	for _, t := range a.TypeOrder {
		g := a.ByType[t]
		for _, q := range []struct {
			label string
			q     agreement.Question
		}{{"Plausibility", g.Plausibility}, {"Cancellation correctness", g.Cancellation}} {
			var k any = analysis.Est{V: q.q.LightsKappa, CI: q.q.LightsKappaCI}
			if len(a.Annotators) == 2 && q.q.KappaNA != "" {
				k = KappaNoVariation
			}
			var fk any = analysis.Missing
			if q.q.FleissRaters > 0 {
				fk = analysis.Est{V: q.q.FleissKappa, CI: q.q.FleissKappaCI}
			}
			tb.Rows = append(tb.Rows, []any{t, q.label, q.q.Items, analysis.Est{V: q.q.Raw, CI: q.q.RawCI}, analysis.Est{V: q.q.PABAK, CI: q.q.PABAKCI}, k, fk,
				analysis.Est{V: q.q.KrippendorffAlpha, CI: q.q.KrippendorffAlphaCI}})
		}
	}
	tb.Notes = []string{
		"Items: item pairs compared (summed over annotator pairs when there are more than two annotators).",
		"Cohen's κ with two annotators; Light's κ (mean pairwise κ) with more.",
	}
	if b := a.Bootstrap; b != nil {
		tb.Notes = append(tb.Notes, fmt.Sprintf("Intervals: %s; %d replicates, seed %d.", b.Scheme, b.Replicates, b.Seed))
	}
	return tb
}

// ContextTable lays out the context measures per survey and overall, with
// the cumulative shares as columns (one row per survey: the CSV download).
func ContextTable(c *contextsurvey.Context) *Table {
	cols := []string{"Survey", "Items", "Judgements", "Fleiss' κ", "Full consensus", "Majority consensus"}
	for k := 0; k <= contextsurvey.MaxAddedSentences; k++ {
		cols = append(cols, fmt.Sprintf("Judgements ≤%d", k))
	}
	for k := 0; k <= contextsurvey.MaxAddedSentences; k++ {
		cols = append(cols, fmt.Sprintf("Items ≤%d", k))
	}
	tb := &Table{Name: "context", Title: "Context needed to understand the implicit content", Columns: cols, Landscape: true}
	c.Each(func(name string, s *contextsurvey.ContextStats) {
		r := []any{name, s.Items, s.Judgements, s.FleissKappa, s.FullConsensus, s.MajorityConsensus}
		for _, v := range s.CumulativeJudgements {
			r = append(r, v)
		}
		for _, v := range s.CumulativeItems {
			r = append(r, v)
		}
		tb.Rows = append(tb.Rows, r)
	})
	tb.Notes = contextNotes
	return tb
}

var contextNotes = []string{
	"Fleiss' κ over 7 categories: sufficient with 0–5 added sentences, or insufficient once all context (at most 5 sentences) was shown.",
	"Full consensus: all annotators chose the same category; majority: more than half but not all (items with 2+ annotators).",
	"Judgements ≤k: share of judgements 'sufficient' with at most k added sentences. Items ≤k: share of items a majority found sufficient with at most k.",
}

// ContextTables splits ContextTable for reading: the agreement measures,
// then the cumulative shares with one column per k.
func ContextTables(c *contextsurvey.Context) []*Table {
	m := &Table{Name: "context_agreement", Title: "Context needed to understand the implicit content: agreement", Landscape: true,
		Columns: []string{"Survey", "Items", "Judgements", "Fleiss' κ", "Fleiss items", "Full consensus", "Majority consensus"}}
	cols := []string{"Survey", "Share of"}
	for k := 0; k <= contextsurvey.MaxAddedSentences; k++ {
		cols = append(cols, fmt.Sprintf("≤%d", k))
	}
	cum := &Table{Name: "context_cumulative", Title: "Understandable with at most k added preceding sentences (cumulative share)", Columns: cols, Landscape: true}
	c.Each(func(name string, s *contextsurvey.ContextStats) {
		m.Rows = append(m.Rows, []any{name, s.Items, s.Judgements, s.FleissKappa, s.FleissItems, s.FullConsensus, s.MajorityConsensus})
		for _, what := range []struct {
			label string
			vals  []*float64
		}{{"judgements", s.CumulativeJudgements}, {"items (majority)", s.CumulativeItems}} {
			r := []any{name, what.label}
			for _, v := range what.vals {
				r = append(r, v)
			}
			cum.Rows = append(cum.Rows, r)
		}
	})
	cum.Notes = contextNotes
	return []*Table{m, cum}
}

// ExplanationsTable lays out the judgment shares per kind × strategy.
func ExplanationsTable(e *modelhuman.Explanations) *Table {
	cols := []string{"Kind", "Strategy", "n"}
	cols = append(cols, modelhuman.JudgmentLabels...)
	cols = append(cols, "Acceptable")
	tb := &Table{Name: "explanations", Title: "Ratings of model explanations (share of ratings)", Columns: cols}
	for _, k := range e.KindOrder {
		for _, s := range e.StrategyOrder {
			c := e.Table[k][s]
			if c == nil {
				continue
			}
			r := []any{k, s, c.N}
			for j := range modelhuman.Judgments {
				r = append(r, c.Share(j))
			}
			tb.Rows = append(tb.Rows, append(r, c.Acceptable()))
		}
	}
	tb.Notes = []string{"Acceptable = totally correct + correct among various options + partially correct."}
	return tb
}

// ExplanationsIntervalsTable is the explanation table with 95 % Wilson
// intervals, pooled over models and then per model.
func ExplanationsIntervalsTable(e *modelhuman.Explanations) *Table {
	cols := []string{"Model", "Kind", "Strategy", "n"}
	cols = append(cols, modelhuman.JudgmentLabels...)
	cols = append(cols, "Acceptable")
	tb := &Table{Name: "explanations_intervals", Title: "Ratings of model explanations with 95 % Wilson intervals", Columns: cols}
	add := func(model string, x *modelhuman.Explanations) {
		for _, k := range x.KindOrder {
			for _, s := range x.StrategyOrder {
				c := x.Table[k][s]
				if c == nil {
					continue
				}
				r := []any{model, k, s, c.N}
				for j := range modelhuman.Judgments {
					r = append(r, analysis.Est{V: c.Share(j), CI: c.ShareCI(j)})
				}
				tb.Rows = append(tb.Rows, append(r, analysis.Est{V: c.Acceptable(), CI: c.AcceptableCI()}))
			}
		}
	}
	add("all models", e)
	for _, m := range e.ModelOrder {
		add(m, e.ByModel[m])
	}
	tb.Notes = []string{"Wilson score intervals with the passages as clusters: n is the effective sample size, smaller than the ratings when ratings of one passage agree."}
	return tb
}

// WriteJSON writes the rows as an array of objects keyed by column name,
// in column order; numbers stay numbers and missing measures are null.
func (t *Table) WriteJSON(w io.Writer) error {
	var b strings.Builder
	b.WriteString("[")
	for i, r := range t.Rows {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for k, v := range r {
			if k > 0 {
				b.WriteString(", ")
			}
			key, _ := analysis.JSONMarshal(t.Columns[k])
			b.Write(key)
			b.WriteString(": ")
			b.WriteString(jsonCell(v))
			if e, ok := v.(analysis.Est); ok {
				key, _ := analysis.JSONMarshal(t.Columns[k] + "_ci95")
				b.WriteString(", ")
				b.Write(key)
				b.WriteString(": ")
				b.WriteString(analysis.JSONCI(e))
			}
			if e, ok := v.(EstNA); ok {
				key, _ := analysis.JSONMarshal(t.Columns[k] + "_ci95")
				na, _ := analysis.JSONMarshal(t.Columns[k] + "_ci95_na")
				reason, _ := analysis.JSONMarshal(e.NA)
				fmt.Fprintf(&b, ", %s: null, %s: %s", key, na, reason)
			}
		}
		b.WriteString("}")
	}
	b.WriteString("\n]\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func jsonCell(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case *float64:
		return analysis.JSONNum(x)
	case PValue:
		return analysis.JSONNum(x.P)
	case analysis.Est:
		return analysis.JSONNum(x.V)
	case EstNA:
		return analysis.JSONNum(x.V)
	case Marked:
		return jsonCell(x.V)
	}
	s, _ := analysis.JSONMarshal(Text(v))
	return string(s)
}

// ToplinesIntervalsTable is the toplines with their 95 % bootstrap
// intervals, one row per measure, one column per item type.
func ToplinesIntervalsTable(t *toplines.Toplines) *Table {
	tb := &Table{Name: "toplines_intervals", Title: "Human toplines with 95 % intervals", Columns: typeColumns("Measure")}
	row := typeRows(tb, t)
	row("Items", func(x *toplines.TypeToplines) any { return x.Items })
	row("Implicature recognition", intervalCell(toplines.MImplicature))
	row(approxLabel(t, toplines.MCancellation+"_ci95", "Cancellation recognition"), intervalCell(toplines.MCancellation))
	row(approxLabel(t, toplines.MBeliefUpdate+"_ci95", "Belief update"), intervalCell(toplines.MBeliefUpdate))
	controlRows(t, func(c control) { row(approxLabel(t, c.key+"_ci95", c.label), intervalCell(c.key)) })
	row(approxLabel(t, "pearson_r_ci95", "Pearson r, observed"), intervalCell("pearson_r"))
	row("Pearson r corrected for attenuation", func(x *toplines.TypeToplines) any { return disattenuatedCell(x, true) })
	if b := t.Bootstrap; b != nil {
		tb.Notes = []string{fmt.Sprintf("Intervals: %s; %d replicates, seed %d (n/a, with the reason, when the measure is undefined in more than 10 %% of replicates).", b.Scheme, b.Replicates, b.Seed)}
	} else {
		tb.Notes = []string{"No intervals: the bootstrap was turned off (--bootstrap 0)."}
	}
	tb.Notes = append(tb.Notes, disattenuatedNotes(t, true)...)
	return tb
}

// ContextIntervalsTable lists the agreement coefficients per survey and
// overall with their 95 % intervals.
func ContextIntervalsTable(c *contextsurvey.Context) *Table {
	tb := &Table{Name: "context_intervals", Title: "Context agreement with 95 % intervals (bootstrap over items, within survey)", Landscape: true,
		Columns: []string{"Survey", "Items", "Fleiss' κ", "Krippendorff's α (nominal)", "Krippendorff's α (ordinal)", "Full consensus", "Majority consensus"}}
	c.Each(func(name string, s *contextsurvey.ContextStats) {
		tb.Rows = append(tb.Rows, contextEstRow(name, s))
	})
	tb.Notes = []string{"Ordinal α orders the categories 0–5 added sentences, then insufficient as the highest."}
	if b := c.Bootstrap; b != nil {
		tb.Notes = append(tb.Notes, fmt.Sprintf("Intervals: %s; %d replicates, seed %d.", b.Scheme, b.Replicates, b.Seed))
	}
	return tb
}

func contextEstRow(name string, s *contextsurvey.ContextStats) []any {
	return []any{name, s.Items, analysis.Est{V: s.FleissKappa, CI: s.FleissKappaCI}, analysis.Est{V: s.KrippendorffAlphaNominal, CI: s.KrippendorffAlphaNominalCI},
		analysis.Est{V: s.KrippendorffAlphaOrdinal, CI: s.KrippendorffAlphaOrdinalCI}, analysis.Est{V: s.FullConsensus, CI: s.FullConsensusCI}, analysis.Est{V: s.MajorityConsensus, CI: s.MajorityConsensusCI}}
}

// ContextKindPeriodTable breaks the context measures down by kind × period.
func ContextKindPeriodTable(c *contextsurvey.Context) *Table {
	tb := &Table{Name: "context_kind_period", Title: "Context by kind × period (95 % intervals)", Landscape: true,
		Columns: []string{"Kind", "Period", "Items", "Fleiss' κ", "Krippendorff's α (nominal)", "Krippendorff's α (ordinal)", "Full consensus", "Majority consensus", "Judgements ≤0", "Items ≤0"}}
	for _, k := range c.KindOrder {
		for _, p := range append(slices.Clone(c.PeriodOrder), domain.TypeAll) {
			s := c.ByKindPeriod[k][p]
			if s == nil {
				continue
			}
			r := contextEstRow(p, s)
			r = append([]any{k}, r...)
			r = append(r, analysis.Est{V: s.CumulativeJudgements[0], CI: s.CumulativeJudgementsCI[0]}, analysis.Est{V: s.CumulativeItems[0], CI: s.CumulativeItemsCI[0]})
			tb.Rows = append(tb.Rows, r)
		}
	}
	tb.Notes = []string{"Period \"all\" pools the periods of a kind."}
	return tb
}
