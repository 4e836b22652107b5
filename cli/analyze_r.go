package cli

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"pragmalab/domain"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/csvsafe"
)

// rScripts are the parts of the R companion (docs/statistics.md#reproducing-in-r):
// a header template, helpers, and one body per command.
//
//go:embed rscript/*.R
var rScripts embed.FS

// rFlag registers --r DIR on an analyze command's flags.
func rFlag(o *outputFlags) *string {
	return o.fs.String("r", "", "also write the analysed data as CSV and an analysis.R recomputing the results with base R to this directory (docs/statistics.md#reproducing-in-r)")
}

// rCompanion is what one command puts in the --r directory.
type rCompanion struct {
	command string // toplines, agreement or context
	// program is the pragmalab command the companion belongs to, for the
	// header: "analyze COMMAND" when empty.
	program string
	args    []string // the command's arguments, for the header
	what    []string // the header's "What it does" lines
	ordinal bool     // the script fits a model with the ordinal package
	// parts are more script bodies after the command's own (rscript/NAME.R).
	parts []string
	// data are the files written beside analysis.R; outputs the files the
	// script writes, removed so a reused directory holds no stale results.
	data    map[string]func(io.Writer) error
	outputs []string
}

// files renders the data files and analysis.R (its header naming the
// script as scriptPath), by name; a data file that fails is an error
// prefixed with prefix and its name.
func (c *rCompanion) files(scriptPath, prefix string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, fill := range c.data {
		var b bytes.Buffer
		if err := fill(&b); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", prefix, name, err)
		}
		out[name] = b.Bytes()
	}
	script, err := c.script(scriptPath)
	if err != nil {
		return nil, err
	}
	out["analysis.R"] = script
	return out, nil
}

// write creates dir and writes the files into it, removing the script's
// outputs of an earlier run, then tells on stderr how to run it.
func (c *rCompanion) write(dir string, env *Env) error {
	cmd := "analyze"
	if c.program != "" {
		cmd = strings.Fields(c.program)[0]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: --r: %w", cmd, err)
	}
	script := filepath.Join(dir, "analysis.R")
	files, err := c.files(script, cmd+": --r")
	if err != nil {
		return err
	}
	for _, name := range c.outputs {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("%s: --r: %w", cmd, err)
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("%s: --r: %w", cmd, err)
		}
	}
	fmt.Fprintf(env.stderr, "R companion written to %s; run: Rscript %s\n", dir, quoteArg(script))
	return nil
}

// script assembles analysis.R: the header, the helpers, the command's body.
func (c *rCompanion) script(path string) ([]byte, error) {
	head, err := rScripts.ReadFile("rscript/header.R")
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("header").Parse(string(head))
	if err != nil {
		return nil, err
	}
	var what strings.Builder
	for _, l := range c.what {
		what.WriteString("#   " + l + "\n")
	}
	quoted := make([]string, len(c.args))
	for i, a := range c.args {
		quoted[i] = quoteArg(a)
	}
	program := c.program
	if program == "" {
		program = "analyze " + c.command
	}
	var out bytes.Buffer
	err = tmpl.Execute(&out, map[string]any{
		"Program":     program,
		"Version":     pragmalabVersion(),
		"CommandLine": "pragmalab " + program + " " + strings.Join(quoted, " "),
		"What":        what.String(),
		"Ordinal":     c.ordinal,
		"Script":      quoteArg(path),
	})
	if err != nil {
		return nil, err
	}
	parts := []string{"rscript/common.R", "rscript/" + c.command + ".R"}
	for _, p := range c.parts {
		parts = append(parts, "rscript/"+p+".R")
	}
	for _, part := range parts {
		b, err := rScripts.ReadFile(part)
		if err != nil {
			return nil, err
		}
		out.Write(b)
	}
	return out.Bytes(), nil
}

// quoteArg writes an argument so it can be pasted into a shell and cannot
// end the R comment it is shown in: plain when it is, Go-quoted otherwise.
func quoteArg(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:+@", r))
	}) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// pragmalabVersion names the build: the module version and, when the
// binary was built from a git checkout, its commit.
func pragmalabVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", with uncommitted changes"
			}
		}
	}
	if rev != "" {
		v += " (commit " + rev + dirty + ")"
	}
	// Nothing in it may end the R comment it is shown in.
	return strings.Map(func(r rune) rune {
		if r < ' ' {
			return -1
		}
		return r
	}, v)
}

// longWriter writes a long results table: key columns, then the value at
// full precision (empty when undefined), as the R script writes its own.
type longWriter struct{ cw *csvsafe.Writer }

func newLongWriter(w io.Writer, keys ...string) *longWriter {
	l := &longWriter{csvsafe.NewWriter(w)}
	l.cw.Write(append(keys, "value"))
	return l
}

func (l *longWriter) num(x *float64, keys ...string) {
	v := ""
	if x != nil {
		v = strconv.FormatFloat(*x, 'g', -1, 64)
	}
	l.cw.Write(append(keys, v))
}

func (l *longWriter) int(n int, keys ...string) { l.cw.Write(append(keys, strconv.Itoa(n))) }

func (l *longWriter) close() error {
	l.cw.Flush()
	return l.cw.Error()
}

// toplinesCompanion holds the analysed ratings, the participants with
// their status, the settings, and pragmalab's toplines.
func toplinesCompanion(args []string, rs *toplines.Ratings, t *toplines.Toplines, opt toplines.Options, within bool) *rCompanion {
	// Both reliability files come from one computation (1,000 splits per
	// group), made when the first of them is written.
	reliability := sync.OnceValue(func() *modelhuman.CrowdReliability { return crowdReliability(rs, t) })
	return &rCompanion{
		command: "toplines", args: args, ordinal: true,
		what: []string{
			"Re-computes pragmalab's toplines from ratings.csv (every row read, with its",
			"line in the input file), participants.csv and settings.csv: exclusion by",
			"attention checks and the researcher's decisions, per-participant z-scores",
			"(population SD), item means per condition, the topline shares of the declared conditions per item",
			"type and for all items (differences within 1e-12 count as ties), Pearson r",
			"and p between mean zT and mean zC, the reliabilities of the two sets of",
			"item means and r corrected for attenuation. Prints them, writes toplines_r.csv and",
			"compares them with pragmalab's (toplines_pragmalab.csv). Then fits the",
			"cumulative link mixed model",
			"  ordered(rating) ~ condition * type + (1 | participant) + (1 | item)",
			"on the analysed participants' ratings (a one-level factor is dropped, and a",
			"random intercept the design cannot support), falling back in printed steps",
			"to simpler models where it does not converge; prints the summary of the",
			"model the numbers come from and its convergence, writes clmm.csv and",
			"clmm_coefficients.csv.",
			"Last, the crowd's own reliability over the participants kept: Krippendorff's",
			"α (interval, ordinal) per condition and pooled, compared with pragmalab's",
			"(reliability_pragmalab.csv) to 1e-9, and the split-half reliability with",
			"Spearman–Brown over R's own 1,000 random splits, compared with pragmalab's",
			"(split_half_pragmalab.csv) within Monte Carlo error; writes reliability_r.csv.",
		},
		data: map[string]func(io.Writer) error{
			"ratings.csv":      func(w io.Writer) error { return report.WriteAnalysedRatings(w, rs, t) },
			"participants.csv": func(w io.Writer) error { return report.WriteParticipants(w, t, opt) },
			"settings.csv": func(w io.Writer) error {
				l := newLongWriter(w, "setting")
				l.int(opt.HighPass, "high_pass_at_least")
				l.int(opt.LowPass, "low_pass_at_most")
				l.int(opt.MaxFailed, "excluded_when_failed_at_least")
				l.cw.Write([]string{"within_participant", strconv.FormatBool(within)})
				l.cw.Write([]string{"conditions", strings.Join(t.Conditions, " ")})
				return l.close()
			},
			"toplines_pragmalab.csv":    func(w io.Writer) error { return writeToplinesLong(w, t) },
			"reliability_pragmalab.csv": func(w io.Writer) error { return writeReliabilityLong(w, reliability(), false) },
			"split_half_pragmalab.csv":  func(w io.Writer) error { return writeReliabilityLong(w, reliability(), true) },
		},
		parts:   []string{"reliability"},
		outputs: []string{"toplines_r.csv", "reliability_r.csv", "clmm.csv", "clmm_coefficients.csv"},
	}
}

func writeToplinesLong(w io.Writer, t *toplines.Toplines) error {
	l := newLongWriter(w, "group", "measure")
	p := t.Participants
	l.int(p.Total, "participants", "total")
	l.int(p.Analysed, "participants", "analysed")
	l.int(len(p.Excluded), "participants", "excluded")
	l.int(len(p.ZeroVariance), "participants", "zero_variance")
	l.int(len(p.ChecksOnly), "participants", "checks_only")
	controls := report.ControlMeasures(t)
	for _, typ := range append(append([]string(nil), domain.TableTypes...), domain.TypeAll) {
		tt := t.ByType[typ]
		l.int(tt.Items, typ, "items")
		l.num(tt.ImplicatureRecognition, typ, toplines.MImplicature)
		l.num(tt.CancellationRecognition, typ, toplines.MCancellation)
		l.num(tt.BeliefUpdate, typ, toplines.MBeliefUpdate)
		for _, q := range controls {
			v, _ := plan.Quantity(tt, q)
			l.num(v, typ, q)
		}
		l.num(tt.PearsonR, typ, "pearson_r")
		l.num(tt.PearsonP, typ, "pearson_p")
		l.int(tt.PearsonN, typ, "pearson_n")
		l.num(tt.PearsonRDisattenuated, typ, "pearson_r_disattenuated")
		l.num(tt.ReliabilityTrigger, typ, "reliability_trigger")
		l.num(tt.ReliabilityCancel, typ, "reliability_cancel")
	}
	return l.close()
}

// agreementCompanion holds the judgements and pragmalab's agreement.
func agreementCompanion(args []string, js []agreement.Judgement, a *agreement.Agreement) *rCompanion {
	return &rCompanion{
		command: "agreement", args: args,
		what: []string{
			"Re-computes pragmalab's expert agreement from judgements.csv, for",
			"plausibility and cancellation correctness (counted where both annotators",
			"found the item plausible and answered), per item type and for all items:",
			"every pair's confusion matrix, raw agreement, Cohen's kappa and PABAK; the",
			"pooled raw agreement and PABAK (pairs' matrices summed), Light's kappa and",
			"Fleiss' kappa (items with the most annotators). Prints them, writes",
			"agreement_r.csv and compares them with pragmalab's (agreement_pragmalab.csv).",
		},
		data: map[string]func(io.Writer) error{
			"judgements.csv":          func(w io.Writer) error { return report.WriteJudgements(w, js) },
			"agreement_pragmalab.csv": func(w io.Writer) error { return writeAgreementLong(w, a) },
		},
		outputs: []string{"agreement_r.csv"},
	}
}

func writeAgreementLong(w io.Writer, a *agreement.Agreement) error {
	l := newLongWriter(w, "group", "annotator_a", "annotator_b", "question", "measure")
	binary := func(b agreement.Binary, keys ...string) {
		l.int(b.Items, append(keys, "items")...)
		l.num(b.Raw, append(keys, "raw")...)
		l.num(b.Kappa, append(keys, "kappa")...)
		l.num(b.PABAK, append(keys, "pabak")...)
	}
	for _, g := range a.TypeOrder {
		ga := a.ByType[g]
		for _, q := range []struct {
			name string
			q    agreement.Question
		}{{"plausibility", ga.Plausibility}, {"cancellation", ga.Cancellation}} {
			binary(q.q.Binary, g, "", "", q.name)
			l.num(q.q.LightsKappa, g, "", "", q.name, "lights_kappa")
			l.num(q.q.FleissKappa, g, "", "", q.name, "fleiss_kappa")
			l.int(q.q.FleissItems, g, "", "", q.name, "fleiss_items")
			l.int(q.q.FleissRaters, g, "", "", q.name, "fleiss_raters")
		}
		for _, p := range ga.Pairs {
			binary(p.Plausibility, g, p.A, p.B, "plausibility")
			binary(p.Cancellation, g, p.A, p.B, "cancellation")
		}
	}
	return l.close()
}

// contextCompanion holds the answers and pragmalab's context measures.
func contextCompanion(args []string, as []contextsurvey.ContextAnswer, c *contextsurvey.Context) *rCompanion {
	return &rCompanion{
		command: "context", args: args,
		what: []string{
			"Re-computes pragmalab's context analysis from answers.csv (an item is a",
			"passage of a survey), overall, per survey and per kind x period: the",
			"cumulative share of judgements sufficient with at most k added sentences",
			"and of items a majority found so, k = 0..5; full and majority consensus;",
			"Fleiss' kappa over the 7 answer categories. Prints them, writes",
			"context_r.csv and compares them with pragmalab's (context_pragmalab.csv).",
		},
		data: map[string]func(io.Writer) error{
			"answers.csv":           func(w io.Writer) error { return report.WriteContextAnswers(w, as) },
			"context_pragmalab.csv": func(w io.Writer) error { return writeContextLong(w, c) },
		},
		outputs: []string{"context_r.csv"},
	}
}

func writeContextLong(w io.Writer, c *contextsurvey.Context) error {
	l := newLongWriter(w, "group", "survey", "kind", "period", "measure", "k")
	stats := func(s *contextsurvey.ContextStats, keys ...string) {
		l.int(s.Items, append(keys, "items", "")...)
		l.int(s.Judgements, append(keys, "judgements", "")...)
		l.num(s.FleissKappa, append(keys, "fleiss_kappa", "")...)
		l.int(s.FleissItems, append(keys, "fleiss_items", "")...)
		l.int(s.FleissRaters, append(keys, "fleiss_raters", "")...)
		l.num(s.FullConsensus, append(keys, "full_consensus", "")...)
		l.num(s.MajorityConsensus, append(keys, "majority_consensus", "")...)
		l.int(s.ConsensusItems, append(keys, "consensus_items", "")...)
		for k, v := range s.CumulativeJudgements {
			l.num(v, append(keys, "cumulative_judgements", strconv.Itoa(k))...)
		}
		for k, v := range s.CumulativeItems {
			l.num(v, append(keys, "cumulative_items", strconv.Itoa(k))...)
		}
	}
	stats(c.Overall, "overall", "", "", "")
	for _, s := range c.SurveyOrder {
		stats(c.Surveys[s], "survey", s, "", "")
	}
	for _, kind := range c.KindOrder {
		for _, period := range append(append([]string(nil), c.PeriodOrder...), domain.TypeAll) {
			if s, ok := c.ByKindPeriod[kind][period]; ok {
				stats(s, "kind_period", "", kind, period)
			}
		}
	}
	return l.close()
}

// writeReliabilityLong writes the crowd's reliability over the
// participants the toplines kept (as the Analysis page shows it): α, the
// counts and the split-half units, which R recomputes exactly, or (split)
// the split-half reliabilities, which R recomputes over its own random
// splits.
// crowdReliability is the crowd's reliability the companion recomputes:
// α and the split-half, no bootstrap; nil when no item rating is kept.
func crowdReliability(rs *toplines.Ratings, t *toplines.Toplines) *modelhuman.CrowdReliability {
	opt := modelhuman.DefaultReliabilityOptions()
	opt.Bootstrap.Replicates = 0
	rel, err := modelhuman.ComputeCrowdReliability(modelhuman.CrowdRatingsOf(rs, t), opt)
	if err != nil {
		return nil
	}
	return rel
}

func writeReliabilityLong(w io.Writer, rel *modelhuman.CrowdReliability, split bool) error {
	l := newLongWriter(w, "group", "measure")
	if rel == nil {
		// No item rating kept: nothing to recompute.
		return l.close()
	}
	for i, a := range rel.Alpha {
		sh := rel.SplitHalf[i]
		if split {
			l.num(sh.Reliability, sh.Condition, "split_half_reliability")
			continue
		}
		l.int(a.Units, a.Condition, "units")
		l.int(a.Ratings, a.Condition, "ratings")
		l.num(a.Interval, a.Condition, "alpha_interval")
		l.num(a.Ordinal, a.Condition, "alpha_ordinal")
		l.int(sh.Units, sh.Condition, "split_half_units")
	}
	return l.close()
}
