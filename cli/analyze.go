package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

const analyzeUsage = `Usage: pragmalab analyze COMMAND [options]

Compute the statistics of docs/statistics.md from exported CSV files (a
platform export or a file of the same columns; the header is required,
column order is free). Output is an aligned table by default, JSON with
--json (docs/formats.md#analysis-json-output), or CSV with --csv. Bad input
is reported with its line and column (exit 2).

Commands:
  toplines      --ratings FILE      z-scored human toplines per item type
  agreement     --judgements FILE   expert agreement (raw, Cohen's κ, PABAK, Fleiss' κ)
  context       --answers FILE      context-expansion surveys (Fleiss' κ, consensus, curves)
  explanations  --ratings FILE      shares of each judgment per kind × strategy
  reliability   --ratings FILE      the crowd's own reliability: α and split-half
  alt-test      --humans FILE --models FILE --scoring S --epsilon E
                                    can a model stand in for the annotators? (the alt-test)
  plan          --ratings PILOT --participants N | --target-width W
                                    each topline's predicted 95 % interval with N participants,
                                    or the participants a target width needs
  integrity     --ratings FILE [--models FILE]
                                    each participant's integrity flags, LLM-echo among them
  conditions    --ratings FILE      any rating study by its own conditions: mean rating and
                                    mean z with two-way intervals, distributions, differences

Run "pragmalab analyze COMMAND --help" for the options of each. FILE "-" reads standard input.
`

// runAnalyze dispatches the analyze subcommands.
func runAnalyze(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(env.stdout, analyzeUsage)
		if len(args) == 0 {
			return usagef("analyze: name a command (toplines, agreement, context, explanations, reliability, alt-test, plan, integrity, conditions)")
		}
		return flag.ErrHelp
	}
	switch args[0] {
	case "toplines":
		return analyzeToplines(args[1:], env)
	case "agreement":
		return analyzeAgreement(args[1:], env)
	case "context":
		return analyzeContext(args[1:], env)
	case "explanations":
		return analyzeExplanations(args[1:], env)
	case "alt-test":
		return analyzeAltTest(args[1:], env)
	case "reliability":
		return analyzeReliability(args[1:], env)
	case "plan":
		return analyzePlan(ctx, args[1:], env)
	case "integrity":
		return analyzeIntegrity(args[1:], env)
	case "conditions":
		return analyzeConditions(args[1:], env)
	}
	return usagef("analyze: unknown command %q (toplines, agreement, context, explanations, reliability, alt-test, plan, integrity, conditions)", args[0])
}

// tableNames lists the tables of each command for --table's help.
var tableNames = map[string]string{
	"toplines":     "toplines, toplines_intervals, item_means",
	"agreement":    "agreement, agreement_intervals, annotator_models, annotator_review",
	"context":      "context, context_agreement, context_cumulative, context_intervals, context_kind_period",
	"explanations": "explanations, explanations_intervals",
	"reliability":  "crowd_alpha, split_half",
	"conditions":   "condition_means, condition_distribution, condition_differences",
}

// pick returns the tables to print: the one --table names (from all), or
// csvDefault with --csv, or all.
func (o *outputFlags) pick(all, csvDefault []*report.Table) ([]*report.Table, error) {
	if o.table == "" {
		if o.csv {
			return csvDefault, nil
		}
		return all, nil
	}
	var names []string
	for _, t := range all {
		if t.Name == o.table {
			return []*report.Table{t}, nil
		}
		names = append(names, t.Name)
	}
	return nil, usagef("analyze: --table %q: want one of %s", o.table, strings.Join(names, ", "))
}

// outputFlags are the flags every analyze command shares.
type outputFlags struct {
	input   string
	json    bool
	csv     bool
	latex   bool
	methods string
	lang    report.Lang
	table   string
	plots   string
	boot    analysis.Bootstrap
	fs      *flag.FlagSet
	inFlag  string
}

func newAnalyzeFlags(name, inFlag, inHelp, summary string, env *Env, withPlots bool) *outputFlags {
	o := &outputFlags{fs: flag.NewFlagSet("analyze "+name, flag.ContinueOnError), inFlag: inFlag, lang: report.English}
	o.fs.SetOutput(env.stderr)
	o.fs.StringVar(&o.input, inFlag, "", inHelp+` (CSV; "-" for standard input)`)
	o.fs.BoolVar(&o.json, "json", false, "print the result as JSON instead of a table")
	o.fs.BoolVar(&o.csv, "csv", false, "print the table as CSV instead of aligned text")
	o.fs.BoolVar(&o.latex, "latex", false, "print the tables as LaTeX (booktabs; \\usepackage{booktabs}) with the 95% intervals, ready to \\input")
	o.fs.StringVar(&o.table, "table", "", "print only this table (with --csv or --latex too), e.g. "+tableNames[name])
	o.fs.StringVar(&o.methods, "methods", "", `print the methods paragraph with the numbers filled in instead of the tables: "text" or "markdown"`)
	o.fs.Func("lang", `language of the --methods paragraph: "en" (default) or "it"`, func(v string) error {
		l, ok := report.ParseLang(v)
		if !ok {
			return fmt.Errorf("want en or it")
		}
		o.lang = l
		return nil
	})
	o.fs.IntVar(&o.boot.Replicates, "bootstrap", analysis.DefaultReplicates, "bootstrap replicates for the 95% intervals (0: no intervals)")
	o.fs.Uint64Var(&o.boot.Seed, "seed", analysis.DefaultSeed, "seed of the bootstrap (the same input and seed give the same intervals)")
	if withPlots {
		o.fs.StringVar(&o.plots, "plots", "", "also write the figures to this directory as PDF, SVG and PNG (2× resolution)")
	}
	o.fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: pragmalab analyze %s --%s FILE [options]\n\n%s\n\nOptions:\n", name, inFlag, summary)
		o.fs.PrintDefaults()
	}
	return o
}

func (o *outputFlags) parse(args []string) error {
	if err := o.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("analyze: %v", err)
	}
	// --methods takes a value: "--methods --lang de" makes "--lang" its
	// value and leaves "de" over, which is named as the mistake it is.
	if o.methods != "" && o.methods != "text" && o.methods != "markdown" {
		return usagef("analyze: --methods %q: want text or markdown (e.g. --methods text --lang de)", o.methods)
	}
	if o.fs.NArg() > 0 {
		return usagef("analyze: unexpected argument %q", o.fs.Arg(0))
	}
	if o.input == "" {
		return usagef("analyze: --%s FILE is required", o.inFlag)
	}
	chosen := 0
	for _, b := range []bool{o.json, o.csv, o.latex, o.methods != ""} {
		if b {
			chosen++
		}
	}
	if chosen > 1 {
		return usagef("analyze: choose one of --json, --csv, --latex and --methods")
	}
	if o.boot.Replicates < 0 || o.boot.Replicates > 100000 {
		return usagef("analyze: --bootstrap must be from 0 to 100000")
	}
	return nil
}

// readInput opens the input and runs the reader; bad input becomes a usage error
// (exit 2) naming the file, line and column.
func readInput[T any](o *outputFlags, env *Env, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	var r io.Reader = env.stdin
	name := "standard input"
	if o.input != "-" {
		f, err := os.Open(o.input)
		if err != nil {
			return zero, usagef("analyze: %v", err)
		}
		defer f.Close()
		r, name = f, o.input
	}
	v, err := read(r)
	var ie *analysis.InputError
	if errors.As(err, &ie) {
		return zero, usagef("%s: %v", name, ie)
	}
	if err != nil {
		return zero, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// emit writes the result (JSON, CSV or text tables) to stdout only once
// everything is computed, so a failure leaves stdout empty.
// With --csv the first table is written.
func (o *outputFlags) emit(env *Env, result any, tables []*report.Table, methods *report.Methods, figures func() ([]report.Figure, error)) error {
	var out bytes.Buffer
	if err := o.write(&out, result, tables, methods); err != nil {
		return err
	}
	if o.plots != "" {
		if err := o.writePlots(&out, figures); err != nil {
			return err
		}
	}
	_, err := env.stdout.Write(out.Bytes())
	return err
}

// write renders the result in the chosen form: LaTeX, the methods
// paragraph, JSON, the first table as CSV, or the text tables.
func (o *outputFlags) write(out *bytes.Buffer, result any, tables []*report.Table, methods *report.Methods) error {
	switch {
	case o.latex:
		for _, t := range tables {
			if err := t.WriteLaTeX(out); err != nil {
				return err
			}
		}
	case o.methods == "text":
		out.WriteString(methods.Text())
	case o.methods == "markdown":
		out.WriteString(methods.Markdown())
	case o.json:
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(result); err != nil {
			return fmt.Errorf("analyze: encode JSON: %w", err)
		}
	case o.csv:
		return tables[0].WriteCSV(out)
	default:
		for _, t := range tables {
			if err := t.WriteText(out); err != nil {
				return err
			}
		}
	}
	return nil
}

// writePlots writes the figures to the --plots directory; the text
// tables end with a line saying where.
func (o *outputFlags) writePlots(out *bytes.Buffer, figures func() ([]report.Figure, error)) error {
	figs, err := figures()
	if err != nil {
		return fmt.Errorf("analyze: plots: %w", err)
	}
	if err := writeFigures(o.plots, figs); err != nil {
		return err
	}
	if !o.json && !o.csv && !o.latex && o.methods == "" {
		fmt.Fprintf(out, "Figures (%d, PDF, SVG and PNG) written to %s\n", len(figs), o.plots)
	}
	return nil
}

func writeFigures(dir string, figs []report.Figure) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("analyze: plots: %w", err)
	}
	for _, f := range figs {
		for _, format := range report.PlotFormats {
			b, err := report.PlotBytes(f.Plot, format)
			if err != nil {
				return fmt.Errorf("analyze: plot %s: %w", f.Name, err)
			}
			if err := os.WriteFile(filepath.Join(dir, f.Name+"."+format), b, 0o644); err != nil {
				return fmt.Errorf("analyze: plots: %w", err)
			}
		}
	}
	return nil
}

func analyzeToplines(args []string, env *Env) error {
	o := newAnalyzeFlags("toplines", "ratings", "ratings file: participant_id, batch_id, item_id, item_type, condition, rating, check",
		"Exclude participants by attention checks, z-score each participant's ratings, and\nreport implicature recognition, cancellation recognition, belief update,\nstrengthening, unchanged and Pearson r per item type (docs/statistics.md#toplines).", env, true)
	opt := toplines.DefaultOptions()
	ex := addExclusionFlags(o.fs, &opt)
	within := o.fs.Bool("within-participant", false, "allow a participant to rate the same item in several conditions (a within-participant design; by default an input error)")
	conds := o.fs.String("conditions", "", "comma-separated conditions the study declares (trigger and cancel always; default: those rated in the file); only their measures are reported")
	items := o.fs.Bool("items", false, "also list every item's mean z per condition (with --csv: list them instead of the toplines)")
	rDir := rFlag(o)
	if err := o.parse(args); err != nil {
		return err
	}
	if err := ex.check("toplines"); err != nil {
		return err
	}
	for _, c := range splitIDs(*conds) {
		if !domain.IsCondition(c) {
			return usagef("analyze toplines: --conditions: unknown condition %q (%s)", c, strings.Join(domain.Conditions, ", "))
		}
		opt.Conditions = append(opt.Conditions, c)
	}
	opt.Bootstrap = o.boot
	rs, err := readInput(o, env, func(r io.Reader) (*toplines.Ratings, error) {
		r, err := pickVersion(r, ex.designVersion)
		if err != nil {
			return nil, err
		}
		return toplines.ReadRatingsWith(r, ex.readOptions(*within))
	})
	if err != nil {
		return err
	}
	if err := ex.onScale("toplines", rs); err != nil {
		return err
	}
	t := toplines.ComputeToplines(rs, opt)
	if *rDir != "" {
		if err := toplinesCompanion(args, rs, t, opt, *within).write(*rDir, env); err != nil {
			return err
		}
	}
	all := []*report.Table{report.ToplinesTable(t), report.ToplinesIntervalsTable(t)}
	csvDefault := all[:1]
	if *items {
		csvDefault = []*report.Table{report.ItemMeansTable(t)}
		all = append(all, csvDefault[0])
	}
	tables, err := o.pick(all, csvDefault)
	if err != nil {
		return err
	}
	return o.emit(env, t, tables, report.ToplinesMethods(t, rs.NumRows(), o.lang), func() ([]report.Figure, error) { return report.ToplinesFiguresWithIntervals(t) })
}

func analyzeAgreement(args []string, env *Env) error {
	o := newAnalyzeFlags("agreement", "judgements", "expert judgements file: annotator_id, item_id, item_type, plausible, cancellation_correct",
		"Raw agreement, Cohen's κ, PABAK and confusion matrices for plausibility and\ncancellation correctness; every pair, Light's and Fleiss' κ with more than two\nannotators; Krippendorff's α; per item type; 95% bootstrap intervals.", env, true)
	rDir := rFlag(o)
	if err := o.parse(args); err != nil {
		return err
	}
	js, err := readInput(o, env, agreement.ReadJudgements)
	if err != nil {
		return err
	}
	a := agreement.ComputeAgreementWith(js, o.boot)
	if *rDir != "" {
		if err := agreementCompanion(args, js, a).write(*rDir, env); err != nil {
			return err
		}
	}
	all := append([]*report.Table{report.AgreementTable(a), report.AgreementIntervalsTable(a)}, report.AnnotatorTables(a)...)
	tables, err := o.pick(all, all[:1])
	if err != nil {
		return err
	}
	return o.emit(env, a, tables, report.AgreementMethods(a, len(js), o.lang), func() ([]report.Figure, error) { return report.AgreementFigures(a) })
}

func analyzeContext(args []string, env *Env) error {
	o := newAnalyzeFlags("context", "answers", "context answers file: annotator_id, survey_id, item_id, kind, period, sentences, sufficient",
		"Per survey and overall: Fleiss' κ over the 7 answer categories, full and\nmajority consensus, and the cumulative share understandable with ≤ k sentences.", env, true)
	rDir := rFlag(o)
	if err := o.parse(args); err != nil {
		return err
	}
	as, err := readInput(o, env, contextsurvey.ReadContextAnswers)
	if err != nil {
		return err
	}
	c := contextsurvey.ComputeContextWith(as, o.boot)
	if *rDir != "" {
		if err := contextCompanion(args, as, c).write(*rDir, env); err != nil {
			return err
		}
	}
	whole := report.ContextTable(c)
	all := append(report.ContextTables(c), report.ContextIntervalsTable(c), report.ContextKindPeriodTable(c), whole)
	tables, err := o.pick(all, []*report.Table{whole})
	if err != nil {
		return err
	}
	if o.table == "" && !o.csv {
		tables = all[:len(all)-1] // the wide table repeats the two before it
	}
	return o.emit(env, c, tables, report.ContextMethods(c, o.lang), func() ([]report.Figure, error) { return report.ContextFigures(c) })
}

func analyzeExplanations(args []string, env *Env) error {
	o := newAnalyzeFlags("explanations", "ratings", "explanation ratings file: annotator_id, item_id, kind, strategy, judgment",
		"The share of each judgment (totally correct … answer not given) and of acceptable\nexplanations per kind × strategy.", env, true)
	if err := o.parse(args); err != nil {
		return err
	}
	rs, err := readInput(o, env, modelhuman.ReadExplanationRatings)
	if err != nil {
		return err
	}
	e := modelhuman.ComputeExplanations(rs)
	all := []*report.Table{report.ExplanationsTable(e), report.ExplanationsIntervalsTable(e)}
	tables, err := o.pick(all, all[:1])
	if err != nil {
		return err
	}
	return o.emit(env, e, tables, report.ExplanationsMethods(e, len(rs), o.lang), func() ([]report.Figure, error) { return report.ExplanationFigures(e) })
}
