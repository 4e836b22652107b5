package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
)

const analyzeAltTestUsage = `Usage: pragmalab analyze alt-test --humans FILE --models FILE --scoring accuracy|neg-rmse --epsilon E [options]

The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): can a
model stand in for the human annotators? Each human is left out in turn and
both the human and the model are scored against the other humans on each
item; a one-sided t-test per human asks whether the human's advantage is
below ε, Benjamini–Yekutieli corrects across the humans, and the model
passes when it wins against at least half of them (docs/statistics.md#alt-test).

The humans' file has the columns annotator, item_id, label; the models'
file model, item_id, label (docs/formats.md#alt-test-files). The paper's ε:
0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers.

Options:
`

// analyzeAltTest runs "analyze alt-test".
func analyzeAltTest(args []string, env *Env) error {
	fs := newFlagSet("analyze alt-test", analyzeAltTestUsage, env)
	var f altTestFlags
	fs.StringVar(&f.humans, "humans", "", `the humans' labels: annotator, item_id, label (CSV; "-" for standard input)`)
	fs.StringVar(&f.models, "models", "", "the models' labels: model, item_id, label (CSV)")
	scoring := fs.String("scoring", "", `"accuracy" (labels compared as strings) or "neg-rmse" (labels read as numbers)`)
	opt := modelhuman.DefaultAltTestOptions()
	opt.Epsilon = math.NaN()
	fs.Float64Var(&opt.Epsilon, "epsilon", math.NaN(), "ε, the humans' cost-benefit handicap (required; 0.2 experts, 0.15 skilled annotators, 0.1 crowd)")
	fs.Float64Var(&opt.Q, "q", opt.Q, "false discovery rate of the Benjamini–Yekutieli correction")
	fs.IntVar(&opt.MinItems, "min-items", opt.MinItems, "test only humans with at least this many usable items")
	fs.IntVar(&opt.MinHumans, "min-humans", opt.MinHumans, "use only items with at least this many humans")
	fs.BoolVar(&opt.ZScore, "zscore", false, "z-score each annotator and model over their items first (neg-rmse; advised for Likert ratings)")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON (docs/formats.md#alt-test-json)")
	fs.BoolVar(&f.asCSV, "csv", false, "print the per-model table as CSV")
	fs.BoolVar(&f.asLaTeX, "latex", false, "print the tables as LaTeX (booktabs)")
	fs.StringVar(&f.methods, "methods", "", `print the methods paragraph with the numbers filled in instead of the tables: "text" or "markdown"`)
	f.lang = report.English
	fs.Func("lang", `language of the --methods paragraph: "en" (default) or "it"`, func(v string) error {
		l, ok := report.ParseLang(v)
		if !ok {
			return fmt.Errorf("want en or it")
		}
		f.lang = l
		return nil
	})
	rDir := fs.String("r", "", "also write the two files, the settings and an analysis.R recomputing the test with base R to this directory (docs/statistics.md#reproducing-in-r)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.check(opt.Epsilon); err != nil {
		return err
	}
	s, ok := modelhuman.ParseAltScoring(*scoring)
	if !ok {
		return usagef("analyze alt-test: --scoring %q: want accuracy or neg-rmse", *scoring)
	}
	opt.Scoring = s
	if err := opt.Validate(); err != nil {
		return usagef("analyze alt-test: --%v", err)
	}
	humans, err := readAltFile(f.humans, env, modelhuman.ReadAltHumans)
	if err != nil {
		return err
	}
	models, err := readAltFile(f.models, env, modelhuman.ReadAltModels)
	if err != nil {
		return err
	}
	res, err := modelhuman.ComputeAltTest(humans, models, opt)
	var fe *modelhuman.AltFileError
	if errors.As(err, &fe) {
		return usagef("%s: %v", f.fileName(fe.File), fe.Err)
	}
	if err != nil {
		return usagef("analyze alt-test: %v", err)
	}
	if *rDir != "" {
		if err := altTestCompanion(args, humans, models, res).write(*rDir, env); err != nil {
			return err
		}
	}
	var out bytes.Buffer
	if err := f.write(&out, res); err != nil {
		return err
	}
	_, err = env.stdout.Write(out.Bytes())
	return err
}

// altTestFlags are the input files and the output choice of "analyze
// alt-test".
type altTestFlags struct {
	humans, models         string
	asJSON, asCSV, asLaTeX bool
	methods                string
	lang                   report.Lang
}

// check refuses more than one output, an unknown --methods, a missing
// file, two files on standard input and a missing ε.
func (f *altTestFlags) check(epsilon float64) error {
	chosen := 0
	for _, b := range []bool{f.asJSON, f.asCSV, f.asLaTeX, f.methods != ""} {
		if b {
			chosen++
		}
	}
	switch {
	case chosen > 1:
		return usagef("analyze alt-test: choose one of --json, --csv, --latex and --methods")
	case f.methods != "" && f.methods != "text" && f.methods != "markdown":
		return usagef("analyze alt-test: --methods %q: want text or markdown", f.methods)
	case f.humans == "" || f.models == "":
		return usagef("analyze alt-test: --humans FILE and --models FILE are required")
	case f.humans == "-" && f.models == "-":
		return usagef("analyze alt-test: only one of --humans and --models can read standard input")
	case math.IsNaN(epsilon):
		return usagef("analyze alt-test: --epsilon is required (the paper advises 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers)")
	}
	return nil
}

// fileName names the input an error is about ("humans" or "models").
func (f *altTestFlags) fileName(file string) string {
	name := f.humans
	if file == "models" {
		name = f.models
	}
	if name == "-" {
		name = "standard input"
	}
	return name
}

// write renders the result in the chosen form: JSON, the per-model CSV,
// LaTeX, the methods paragraph, or the text tables.
func (f *altTestFlags) write(out *bytes.Buffer, res *modelhuman.AltTest) error {
	tables := report.AltTestTable(res)
	switch {
	case f.asJSON:
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("analyze alt-test: encode JSON: %w", err)
		}
	case f.asCSV:
		return tables[0].WriteCSV(out)
	case f.asLaTeX:
		for _, t := range tables {
			if err := t.WriteLaTeX(out); err != nil {
				return err
			}
		}
	case f.methods == "text":
		out.WriteString(report.AltTestMethods(res, f.lang).Text())
	case f.methods == "markdown":
		out.WriteString(report.AltTestMethods(res, f.lang).Markdown())
	default:
		for _, t := range tables {
			if err := t.WriteText(out); err != nil {
				return err
			}
		}
	}
	return nil
}

// readAltFile reads one alt-test input; bad input is a usage error naming
// the file and line.
func readAltFile(path string, env *Env, read func(io.Reader) ([]modelhuman.AltLabel, error)) ([]modelhuman.AltLabel, error) {
	var r io.Reader = env.stdin
	name := "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, usagef("analyze alt-test: %v", err)
		}
		defer f.Close()
		r, name = f, path
	}
	rows, err := read(r)
	var ie *analysis.InputError
	if errors.As(err, &ie) {
		return nil, usagef("%s: %v", name, ie)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rows, nil
}
