package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"pragmalab/analysis/report"
	"pragmalab/comparisons"
	"pragmalab/runner"
	"pragmalab/scoring"
)

// humansOut are score's outputs of a human-task job beside its study's
// humans (docs/scoring.md#against-the-studys-own-humans): the tables as
// booktabs LaTeX, or the methods text in English or Italian, with ε
// changeable.
type humansOut struct {
	latex   bool
	methods string
	lang    report.Lang
	epsilon float64
	rDir    string
}

func (h *humansOut) flags(fs *flag.FlagSet) {
	fs.BoolVar(&h.latex, "latex", false, "print the job's comparison with its study's humans as LaTeX (booktabs): the alt-test, the distributions against the human ceiling, the correlation against the split-half ceiling, the calibration, ΔA")
	fs.StringVar(&h.methods, "methods", "", `print the methods text of the job's comparison with its study's humans, numbers filled in: "text" or "markdown"`)
	h.lang = report.English
	fs.Func("lang", `language of the --methods text: "en" (default) or "it"`, func(v string) error {
		l, ok := report.ParseLang(v)
		if !ok {
			return fmt.Errorf("want en or it")
		}
		h.lang = l
		return nil
	})
	fs.StringVar(&h.rDir, "r", "", "also write a likert job's data beside its study's crowd and an analysis.R recomputing the distributions against the human ceiling and the calibration with base R to this directory (docs/statistics.md#reproducing-in-r)")
	fs.Float64Var(&h.epsilon, "epsilon", math.NaN(), "ε of the alt-test in --latex, --methods and --json (default: the task's; docs/statistics.md#alt-test, Choosing ε)")
}

// check refuses two outputs at once, an unknown --methods and an ε out of [0, 1).
func (h *humansOut) check(asJSON bool) error {
	n := 0
	for _, b := range []bool{h.latex, h.methods != "", asJSON} {
		if b {
			n++
		}
	}
	switch {
	case n > 1:
		return usagef("score: choose one of --json, --latex and --methods")
	case h.methods != "" && h.methods != "text" && h.methods != "markdown":
		return usagef("score: --methods %q: want text or markdown", h.methods)
	case !math.IsNaN(h.epsilon) && (h.epsilon < 0 || h.epsilon >= 1):
		return usagef("score: --epsilon %g: want a number from 0 to below 1", h.epsilon)
	}
	return nil
}

func (h *humansOut) wanted() bool { return h.latex || h.methods != "" }

func (h *humansOut) eps() *float64 {
	if math.IsNaN(h.epsilon) {
		return nil
	}
	return &h.epsilon
}

// compare is the job's comparison with its study's humans; nil for a task
// that asks no human question or a study without human answers.
func (h *humansOut) compare(ctx context.Context, svc *app, res *runner.Results) (*comparisons.JobHumanComparison, error) {
	if !scoring.IsHumanTask(scoring.Task(res.Job.Task)) {
		return nil, nil
	}
	return svc.comparisons.CompareJobWithHumans(ctx, res, h.eps())
}

// write prints the comparison as --latex or --methods asks; a job with
// nothing to compare is a usage error saying why.
func (h *humansOut) write(w io.Writer, res *runner.Results, c *comparisons.JobHumanComparison) error {
	if c == nil {
		return usagef("score: --latex and --methods print a human-task job (likert, expert, context, explanation-rating) beside its study's human answers; job %d is %s on study %d, which has none to compare with", res.Job.ID, res.Job.Task, res.Job.StudyID)
	}
	if h.methods != "" {
		m := c.Methods(res.Scorer, h.lang)
		if h.methods == "markdown" {
			_, err := io.WriteString(w, m.Markdown())
			return err
		}
		_, err := io.WriteString(w, m.Text())
		return err
	}
	tables := c.Tables(res.Scorer)
	if len(tables) == 0 {
		return usagef("score: job %d has no comparison with the humans to print: %s", res.Job.ID, humanCompareWhy(c))
	}
	for _, t := range tables {
		if err := t.WriteLaTeX(w); err != nil {
			return err
		}
	}
	return nil
}

// humanCompareWhy says why a comparison holds no table.
func humanCompareWhy(c *comparisons.JobHumanComparison) string {
	if c.AltTest != nil && c.AltTest.Error != "" {
		return c.AltTest.Error
	}
	if len(c.Errors) > 0 {
		// The first by name, so every run says the same.
		k := slices.Min(slices.Collect(maps.Keys(c.Errors)))
		return k + ": " + c.Errors[k]
	}
	return "no measure could be computed"
}
