package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
)

// The flags of `pragmalab score` for scoring at scale
// (docs/scoring.md#engines): several models at once, the batch engine,
// the export and import of the OpenAI batch format, the dry run and its
// prices.
type scaleOpts struct {
	models     listFlag
	batch      bool
	live       bool
	exportFile string
	importFile string
	dryRun     bool
	priceFlags listFlag
	batchPoll  time.Duration
	prices     map[string]runner.Price
}

func (s *scaleOpts) flags(fs *flag.FlagSet) {
	fs.BoolVar(&s.batch, "batch", false, "send the prompts through the OpenAI Batch API of the (first) base URL instead of live requests")
	fs.BoolVar(&s.live, "live", false, "with --job: ask the job's unanswered prompts live (after a batch run)")
	fs.StringVar(&s.exportFile, "export-batch", "", "write the job's unanswered prompts as OpenAI batch JSONL to this file (for vllm run-batch or any offline runner)")
	fs.StringVar(&s.importFile, "import-batch", "", "with --job: read an offline runner's output (OpenAI batch output JSONL) into the job")
	fs.BoolVar(&s.dryRun, "dry-run", false, "print the prompts, tokens and cost of the job(s) and stop: nothing is created or sent")
	fs.Var(&s.priceFlags, "price", "MODEL=IN/OUT[/BATCH_IN/BATCH_OUT]: USD per million tokens, for the cost estimate (repeatable; also PRAGMALAB_PRICES)")
	fs.DurationVar(&s.batchPoll, "batch-poll", 5*time.Second, "first wait between two status reads of a batch (doubling up to 2m)")
}

// model is the model of a single job ("" for none).
func (s *scaleOpts) model() string {
	if len(s.models) == 0 {
		return ""
	}
	return s.models[0]
}

// engine is the engine the flags ask for.
func (s *scaleOpts) engine() scoring.Engine {
	switch {
	case s.batch:
		return scoring.EngineBatch
	case s.live:
		return scoring.EngineLive
	case s.exportFile != "":
		return scoring.EngineOffline
	}
	return ""
}

// check refuses combinations that mean nothing, and reads the prices.
func (s *scaleOpts) check(o *scoreOpts, env *Env) error {
	for _, r := range s.conflicts(o) {
		if r.bad {
			return usagef("%s", r.msg)
		}
	}
	seen := map[string]bool{}
	for _, m := range s.models {
		if seen[m] {
			return usagef("score: --model %s given twice", m)
		}
		seen[m] = true
	}
	return s.readPrices(env)
}

// flagRule is one combination of flags that means nothing, and what to
// tell the user.
type flagRule struct {
	bad bool
	msg string
}

// conflicts are check's rules, the first that holds reported.
func (s *scaleOpts) conflicts(o *scoreOpts) []flagRule {
	return []flagRule{
		{s.batch && s.live, "score: --batch and --live are two engines; give one"},
		{s.exportFile != "" && s.importFile != "", "score: --export-batch and --import-batch are two steps; run them one after the other"},
		{s.importFile != "" && o.jobID == 0, "score: --import-batch needs --job ID, the job whose prompts the file answers"},
		{s.dryRun && (s.exportFile != "" || s.importFile != ""), "score: --dry-run sends and writes nothing; leave out --export-batch and --import-batch"},
		{s.exportFile != "" && (s.batch || s.live), "score: --export-batch writes a file for an offline runner; leave out --batch and --live"},
		{s.exportFile != "" && len(s.models) > 1, "score: --export-batch writes one model's requests; export one model at a time"},
		{len(s.models) > 1 && o.set["scorer"] && o.spec.Scorer != runner.ModelScorer, "score: several --model values need --scorer model"},
		{s.batchPoll < time.Millisecond, "score: --batch-poll must be at least 1ms"},
	}
}

// readPrices reads PRAGMALAB_PRICES, then the --price flags over it.
func (s *scaleOpts) readPrices(env *Env) error {
	var err error
	if s.prices, err = runner.ParsePrices(env.getenv("PRAGMALAB_PRICES")); err != nil {
		return usagef("score: PRAGMALAB_PRICES: %s", err)
	}
	flags, err := runner.ParsePrices(strings.Join(s.priceFlags, ","))
	if err != nil {
		return usagef("score: --price: %s", err)
	}
	for m, p := range flags {
		s.prices[m] = p
	}
	return nil
}

// specs are the new jobs the flags ask for: one per model.
func (o *scoreOpts) specs() []runner.Spec {
	if o.spec.Scorer != runner.ModelScorer || len(o.scale.models) < 2 {
		return []runner.Spec{o.spec}
	}
	var out []runner.Spec
	for _, m := range o.scale.models {
		sp := o.spec
		sp.Config.Model = m
		out = append(out, sp)
	}
	return out
}

// run handles what is not one job run: a dry run, an export, an import,
// several models. done is false when the caller runs one job as before.
func (s *scaleOpts) run(ctx context.Context, o *scoreOpts, svc *app, jobs jobRunner, env *Env) (done bool, _ error) {
	switch {
	case s.dryRun:
		return true, o.dryRun(ctx, svc, env)
	case s.importFile != "":
		return true, o.importBatch(ctx, svc, jobs, env)
	case s.exportFile != "":
		return true, o.exportBatch(ctx, svc, jobs, env)
	case o.jobID == 0 && len(s.models) > 1:
		return true, o.runMany(ctx, svc, jobs, env)
	}
	return false, nil
}

// dryRun prints the size and cost of the new jobs, or of what a job has
// left to ask.
func (o *scoreOpts) dryRun(ctx context.Context, svc *app, env *Env) error {
	var es []runner.Estimate
	if o.jobID != 0 {
		j, err := svc.store.Job(ctx, o.jobID)
		if err != nil {
			return usagef("score: %s", domain.ErrorMessage(err))
		}
		e, err := svc.EstimateJob(ctx, j, o.scale.prices)
		if err != nil {
			return err
		}
		es = append(es, e)
	} else {
		var err error
		if es, err = svc.EstimateLaunch(ctx, o.specs(), env.getenv, o.scale.prices); err != nil {
			if c := domain.ErrorCode(err); c == domain.EINVALID || c == domain.ENOTFOUND {
				return usagef("score: %s", domain.ErrorMessage(err))
			}
			return err
		}
	}
	if o.asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"dry_run": true, "estimates": es})
	}
	printEstimates(env.stdout, es, o.jobID != 0)
	return nil
}

// usd prints a cost with enough digits to be read.
func usd(v float64) string {
	if v < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

func printEstimates(w io.Writer, es []runner.Estimate, left bool) {
	what := "prompts"
	if left {
		what = "prompts left"
	}
	fmt.Fprintln(w, "dry run: nothing was created or sent")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\tengine\t%s\trequests\tinput tokens*\toutput tokens ≤\tcost live ≤\tcost batch ≤\n", what)
	var unpriced []string
	for _, e := range es {
		live, batch := "—", "—"
		if e.Live != nil {
			live, batch = usd(e.Live.Max()), usd(e.Batch.Max())
		} else if e.Engine != "built-in" {
			unpriced = append(unpriced, e.Model)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", e.Model, e.Engine, e.Prompts, e.Requests, e.InputTokens, e.OutputTokensMax, live, batch)
	}
	tw.Flush()
	fmt.Fprintf(w, "* tokens %s; output ≤: every reply at its token limit.\n", runner.TokenRule)
	if len(unpriced) > 0 {
		fmt.Fprintf(w, "no price for %s: give --price MODEL=IN/OUT (USD per million tokens) or PRAGMALAB_PRICES for the cost\n", strings.Join(unpriced, ", "))
	} else if len(es) > 0 && es[0].Live != nil {
		fmt.Fprintln(w, "costs: input at the estimated tokens plus output at every reply's token limit; batch at the batch price (half of live unless given)")
	}
}

// exportBatch writes the JSONL of a job (a new one waiting for an offline
// runner, or one that exists) for an offline runner.
func (o *scoreOpts) exportBatch(ctx context.Context, svc *app, jobs jobRunner, env *Env) error {
	id := o.jobID
	if id == 0 {
		js, err := o.launch(ctx, svc, env)
		if err != nil {
			return err
		}
		id = js[0].ID
	}
	n := 0
	err := writeFileAtomic(o.scale.exportFile, func(w io.Writer) error {
		var err error
		n, err = svc.ExportJobBatch(ctx, id, w)
		return err
	})
	if err != nil {
		return fmt.Errorf("score: writing %s: %s", o.scale.exportFile, domain.ErrorMessage(err))
	}
	if n == 0 {
		fmt.Fprintf(env.stderr, "job %d has no unanswered prompt: %s is empty\n", id, o.scale.exportFile)
		return nil
	}
	j, err := svc.store.Job(ctx, id)
	if err != nil {
		return err
	}
	model := runner.ScorerName(j)
	fmt.Fprintf(env.stderr, "%d requests of job %d written to %s (OpenAI batch JSONL, custom_id = prompt key)\n", n, id, o.scale.exportFile)
	fmt.Fprintf(env.stderr, "run them, e.g.:  vllm run-batch -i %s -o results.jsonl --model %s\n", o.scale.exportFile, model)
	fmt.Fprintf(env.stderr, "then read them back:  pragmalab score --job %d --import-batch results.jsonl\n", id)
	return nil
}

// importBatch reads an offline runner's output into the job and prints its
// results as a run would.
func (o *scoreOpts) importBatch(ctx context.Context, svc *app, jobs jobRunner, env *Env) error {
	start := time.Now()
	data, err := os.ReadFile(o.scale.importFile)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	rep, err := svc.ImportJobBatch(ctx, o.jobID, data, env.getenv)
	if err != nil {
		return fmt.Errorf("score: %s: %s", o.scale.importFile, domain.ErrorMessage(err))
	}
	j, _ := svc.store.Job(ctx, o.jobID)
	if err := svc.store.Audit(ctx, cliActor, j.StudyID, "import batch results", fmt.Sprintf("job #%d: %d results from %s", o.jobID, rep.Lines, o.scale.importFile)); err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "%d results read from %s: %d answered, %d failed, %d for prompts answered before (kept)\n", rep.Lines, o.scale.importFile, rep.Answered, rep.Failed, rep.Kept)
	return o.finish(ctx, svc, jobs, env, o.jobID, start)
}

// launch creates the jobs of the flags (one per model) and audits them.
func (o *scoreOpts) launch(ctx context.Context, svc *app, env *Env) ([]*domain.Job, error) {
	js, err := svc.LaunchJobs(ctx, o.specs(), env.getenv)
	if err != nil {
		if c := domain.ErrorCode(err); c == domain.EINVALID || c == domain.ENOTFOUND {
			return nil, usagef("score: %s", domain.ErrorMessage(err))
		}
		return nil, err
	}
	for _, j := range js {
		if err := svc.store.Audit(ctx, cliActor, o.studyID, "start scoring job", fmt.Sprintf("job #%d: %s, %s", j.ID, j.Task, runner.ScorerName(j))); err != nil {
			return nil, err
		}
		fmt.Fprintf(env.stderr, "job %d created for study %d (%s)\n", j.ID, o.studyID, runner.ScorerName(j))
	}
	return js, nil
}

// runMany runs one job per model over the same prompts, at once, and
// prints them side by side (with the humans when --compare is given).
func (o *scoreOpts) runMany(ctx context.Context, svc *app, jobs jobRunner, env *Env) error {
	js, err := o.launch(ctx, svc, env)
	if err != nil {
		return err
	}
	bar := newProgressBar(env.stderr, o.quiet)
	var mu sync.Mutex
	counts := map[int64][3]int{}
	start := time.Now()
	errs := make([]error, len(js))
	var wg sync.WaitGroup
	for i, j := range js {
		wg.Go(func() {
			errs[i] = jobs.run(ctx, j.ID, func(a, t, f int) {
				mu.Lock()
				counts[j.ID] = [3]int{a, t, f}
				var sum [3]int
				for _, c := range counts {
					sum[0], sum[1], sum[2] = sum[0]+c[0], sum[1]+c[1], sum[2]+c[2]
				}
				mu.Unlock()
				bar.update(sum[0], sum[1], sum[2])
			})
		})
	}
	wg.Wait()
	bar.finish()
	var ids []string
	for _, j := range js {
		ids = append(ids, fmt.Sprint(j.ID))
	}
	if err := errors.Join(errs...); err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("score: interrupted; the answers so far are saved — resume each job with: pragmalab score --job ID (jobs %s)", strings.Join(ids, ", "))
		}
		return fmt.Errorf("score: %s", domain.ErrorMessage(err))
	}
	var all []*runner.Results
	var notDone []string
	for _, j := range js {
		res, err := jobs.results(ctx, j.ID)
		if err != nil {
			return err
		}
		reportJob(ctx, svc, env, res, time.Since(start))
		all = append(all, res)
		if res.Job.Status != domain.JobDone {
			notDone = append(notDone, fmt.Sprintf("job %d (%s) ended %s", j.ID, res.Scorer, res.Job.Status))
		}
	}
	if err := o.printMany(ctx, svc, env, all); err != nil {
		return err
	}
	if len(notDone) > 0 {
		return fmt.Errorf("score: %s — resume with: pragmalab score --job ID", strings.Join(notDone, "; "))
	}
	return nil
}

// printMany prints several jobs over the same prompts side by side: the
// True/False measures with their 95 % intervals beside the humans', the
// multiple-choice accuracies, or the generation counts.
func (o *scoreOpts) printMany(ctx context.Context, svc *app, env *Env, all []*runner.Results) error {
	first := all[0]
	var cmp runner.Comparison
	if first.Job.Task == string(scoring.TrueFalse) {
		ht, err := svc.JobHumanToplines(ctx, first)
		if err != nil {
			return err
		}
		cmp = runner.Compare(ht, all...)
	}
	if o.asJSON {
		var out []any
		for _, r := range all {
			out = append(out, r.JSON())
		}
		doc := map[string]any{"jobs": out}
		if cmp.Human != nil {
			doc["humans"] = cmp.Human
			byModel := map[string]any{}
			for _, col := range cmp.Models {
				byModel[col.Name] = col.JSON()
			}
			doc["comparison"] = byModel
		}
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	printSideBySide(env.stdout, all, cmp)
	return nil
}

// printSideBySide prints jobs over the same prompts as one table, a
// column per model (and the humans first, when cmp has them).
func printSideBySide(w io.Writer, all []*runner.Results, cmp runner.Comparison) {
	first := all[0]
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	fmt.Fprintf(tw, "%d models on the same %d prompts — %s, study %d\n\n", len(all), first.Progress.Total, first.Job.Task, first.Job.StudyID)
	switch scoring.Task(first.Job.Task) {
	case scoring.TrueFalse:
		fmt.Fprint(tw, "measure\ttype")
		if cmp.Human != nil {
			fmt.Fprint(tw, "\thumans")
		}
		for _, m := range cmp.Models {
			fmt.Fprintf(tw, "\t%s (job %d)", m.Name, m.JobID)
		}
		fmt.Fprintln(tw)
		for _, m := range runner.Measures {
			for _, t := range cmp.Types {
				fmt.Fprintf(tw, "%s\t%s", runner.MeasureLabels[m], t)
				if cmp.Human != nil {
					fmt.Fprintf(tw, "\t%s", shareText(cmp.Human[m][t], ciText(cmp.HumanCI[m][t]), cmp.HumanN[m][t]))
				}
				for _, col := range cmp.Models {
					fmt.Fprintf(tw, "\t%s", shareText(col.Values[m][t], ciText(col.CI[m][t]), col.N[m][t]))
				}
				fmt.Fprintln(tw)
			}
		}
		fmt.Fprintln(tw, "\nIn brackets: 95% Wilson intervals over the items; \"n of N\" when a share stands on fewer items than the job has.")
		if cmp.Human != nil {
			fmt.Fprintln(tw, "Each model is compared with the humans on the items both have; the humans' column is over the first job's items.")
		}
	case scoring.MultipleChoice:
		fmt.Fprintln(tw, "model\tjob\titems\taccuracy\thard negatives\teasy negatives\trefusals")
		for _, r := range all {
			m := r.MCMetrics[scoring.AllTypes]
			fmt.Fprintf(tw, "%s\t%d\t%d%s\t%s\t%s\t%s\t%d\n", r.Scorer, r.Job.ID, m.Items, nOfN(m.Items, r.JobItems[scoring.AllTypes]),
				pct(sharePtr(m.Accuracy)), pct(sharePtr(m.HardNegatives)), pct(sharePtr(m.EasyNegatives)), m.Refusals)
		}
	case scoring.Generation:
		for _, r := range all {
			fmt.Fprintf(tw, "%s (job %d): %d outputs%s\n", r.Scorer, r.Job.ID, len(r.Gen), nOfN(len(r.Gen), r.JobItems[scoring.AllTypes]))
		}
	}
}

// shareText is "0.70 [0.40, 0.89]" with " (7 of 8)" when the share stands
// on fewer items than the job has.
func shareText(v *float64, ci string, n [2]int) string {
	s := pct(v)
	if ci != "" {
		s += " " + ci
	}
	return s + nOfN(n[0], n[1])
}
