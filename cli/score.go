package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/comparisons"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/studies"
)

const scoreUsage = `Usage: pragmalab score --study ID [options]
       pragmalab score --study ID --model A --model B …   one job per model over
                                           the same prompts, compared side by side
       pragmalab score --job ID [--base-url URL] [--concurrency N] [--timeout D]
                                [--live | --batch]
                                           resume an unfinished job, optionally
                                           against other endpoints or engines
       pragmalab score … --batch           send the prompts through the OpenAI
                                           Batch API of the base URL
       pragmalab score (--study ID … | --job ID) --export-batch FILE
       pragmalab score --job ID --import-batch FILE
                                           OpenAI batch JSONL for vllm run-batch
                                           or any offline runner, and its output
       pragmalab score (--study ID … | --job ID) --dry-run
                                           prompts, tokens and cost; runs nothing

Runs a model-scoring job (docs/scoring.md) on a study's items (truefalse) or
passages (multiplechoice, generation) and prints the metrics. Four tasks put
the participants' own questions to the model, built from their screens in
the study's language, each option order asked:
  likert              a crowd study's rating scale: the model's distribution
                      over the points (from the point tokens' probabilities,
                      or from --samples sampled answers)
  expert              an expert study's form: is the implicature plausible,
                      then is the cancellation correct
  context             a context study's survey: "the context is sufficient" or
                      "more context is needed", at each step
  explanation-rating  an explanation-rating study's five-option judgement of
                      each output The job and
every answer are stored in the database, so an interrupted run resumes with
--job without asking any prompt twice, and the admin pages show it.

The scorer is an OpenAI-compatible endpoint (--scorer model, the default:
vLLM, llama.cpp server, Ollama, OpenAI) or a built-in baseline that needs
no network:
%s
The API key is read from the environment variable named by --api-key-env;
it is never stored or printed. Only variables whose names start with
PRAGMALAB_KEY_ (or OPENAI_API_KEY and a few more, see docs/scoring.md) may
hold a key. Base URLs may not point to link-local or cloud-metadata
addresses.

Prices for the cost estimate come from --price MODEL=IN/OUT[/BATCH_IN/BATCH_OUT]
(USD per million tokens, repeatable) or PRAGMALAB_PRICES (the same,
comma-separated); without batch prices the batch engine costs half.

The exit status is 0 when every prompt was answered, 1 when the job ended
partial (some prompts failed or were not asked) or failed (none answered),
2 for bad usage. A metric computed on fewer items than the job has shows
"n of N" beside its value.

Options:
`

// listFlag collects a repeatable flag; each value may also be a
// comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func builtinHelp() string {
	var b strings.Builder
	for _, bi := range scoring.Builtins {
		fmt.Fprintf(&b, "  %-13s %s\n", bi.Name, bi.Description)
	}
	return b.String()
}

// runScore is `pragmalab score`.
func runScore(ctx context.Context, args []string, env *Env) error {
	o, err := parseScoreFlags(args, env)
	if err != nil {
		return err
	}
	svc, err := openApp(ctx, o.db, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	jobs := jobRunner{svc: svc, getenv: env.getenv, batchPoll: o.scale.batchPoll}
	if done, err := o.scale.run(ctx, o, svc, jobs, env); done {
		return err
	}
	id, err := o.createOrRepoint(ctx, svc, jobs, env)
	if err != nil {
		return err
	}
	bar := newProgressBar(env.stderr, o.quiet)
	start := time.Now()
	err = jobs.run(ctx, id, bar.update)
	bar.finish()
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("score: interrupted; the answers so far are saved — resume with: pragmalab score --job %d (at once: this process gave up its lease)", id)
	}
	if err != nil {
		return fmt.Errorf("score: %s", domain.ErrorMessage(err))
	}
	return o.finish(ctx, svc, jobs, env, id, start)
}

// finish reports how job id ended, delivers and prints its results, and
// returns the exit error of a job that is not done.
func (o *scoreOpts) finish(ctx context.Context, svc *app, jobs jobRunner, env *Env, id int64, start time.Time) error {
	res, err := jobs.results(ctx, id)
	if err != nil {
		return err
	}
	reportJob(ctx, svc, env, res, time.Since(start))
	if err := o.deliver(ctx, svc, env, res); err != nil {
		return err
	}
	if err := o.print(ctx, svc, env, res); err != nil {
		return err
	}
	if res.Job.Status != domain.JobDone {
		p := res.Progress
		return fmt.Errorf("score: job %d ended %s: %d of %d prompts answered, %d failed, %d not asked — resume with: pragmalab score --job %d",
			id, res.Job.Status, p.Answered, p.Total, p.Failed, p.Unasked(), id)
	}
	return nil
}

// scoreOpts are the flags of `pragmalab score`; set names those given.
type scoreOpts struct {
	db             string
	studyID, jobID int64
	spec           runner.Spec
	urls           listFlag
	conc           int
	timeout        time.Duration
	outputsTo      int64
	asJSON, quiet  bool
	csvOut         string
	set            map[string]bool
	scale          scaleOpts
	humans         humansOut
	args           []string
}

// parseScoreFlags reads and checks the flags: a new job or a job to resume,
// which only --base-url, --concurrency and --timeout may re-point.
func parseScoreFlags(args []string, env *Env) (*scoreOpts, error) {
	fs := newFlagSet("score", fmt.Sprintf(scoreUsage, builtinHelp()), env)
	o := &scoreOpts{args: args}
	dbPath := dbFlag(fs, env)
	fs.Int64Var(&o.studyID, "study", 0, "study whose items or passages are scored")
	fs.Int64Var(&o.jobID, "job", 0, "resume this job instead of creating one")
	task := fs.String("task", "truefalse", "truefalse, multiplechoice, generation, likert, expert, context or explanation-rating")
	scorer := fs.String("scorer", runner.ModelScorer, "\"model\" for an endpoint, or a built-in scorer")
	fs.Var(&o.urls, "base-url", "endpoint base URL, e.g. http://localhost:8000/v1 (repeat or comma-separate for several endpoints of one model)")
	fs.Var(&o.scale.models, "model", "model name as the server knows it (repeat for one job per model over the same prompts)")
	keyEnv := fs.String("api-key-env", "", "NAME of the environment variable holding the API key (not the key)")
	api := fs.String("api", "chat", "chat (/v1/chat/completions) or completions (/v1/completions)")
	mode := fs.String("mode", "logprobs", "logprobs (top log-probabilities) or sampling (parse sampled replies)")
	fs.IntVar(&o.conc, "concurrency", 4, "requests in flight per endpoint")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "time-out of each request")
	retries := fs.Int("retries", 5, "retries of a request after 429, 5xx, time-out or network error")
	samples := fs.Int("samples", 5, "samples per prompt and option order in sampling mode (likert: the k answers whose shares give the distribution)")
	topK := fs.Int("top-logprobs", 0, "candidate tokens to ask for (default 20 on chat, 5 on completions)")
	maxTok := fs.Int("max-tokens", 16, "token limit of a sampled True/False or multiple-choice reply (raise it for reasoning models)")
	genTok := fs.Int("gen-max-tokens", 1024, "token limit of a generated explanation")
	strategy := fs.String("strategy", "zero-shot", "generation strategy: zero-shot, few-shot or chain-of-thought")
	seed := fs.Uint64("seed", 1, "seed of the random baseline")
	compare := fs.Int64("compare", 0, "crowd study whose human toplines are printed beside the model's")
	fs.Int64Var(&o.outputsTo, "outputs-to", 0, "explanation-rating study to add a generation job's outputs to")
	fs.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
	fs.StringVar(&o.csvOut, "csv", "", "write the per-item results to this CSV file")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	o.scale.flags(fs)
	o.humans.flags(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := o.humans.check(o.asJSON); err != nil {
		return nil, err
	}
	o.db = *dbPath
	if (o.studyID == 0) == (o.jobID == 0) {
		return nil, usagef("score: give --study ID to start a job or --job ID to resume one")
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if o.jobID != 0 {
		for name := range o.set {
			if !resumeFlags[name] {
				return nil, usagef("score: --%s cannot change a job that exists; resuming with --job accepts --base-url, --concurrency, --timeout, --live and --batch", name)
			}
		}
	}
	o.spec = runner.Spec{StudyID: o.studyID, Task: scoring.Task(*task), Scorer: *scorer, Strategy: scoring.Strategy(*strategy),
		Seed: *seed, CompareStudyID: *compare,
		Config: scoring.Config{BaseURLs: o.urls, Model: o.scale.model(), Engine: o.scale.engine(), APIKeyEnv: *keyEnv, API: scoring.API(*api), Mode: scoring.Mode(*mode),
			Concurrency: o.conc, Timeout: o.timeout, MaxRetries: *retries, Samples: *samples, TopLogprobs: *topK, MaxTokens: *maxTok, GenMaxTokens: *genTok}}
	if err := o.scale.check(o, env); err != nil {
		return nil, err
	}
	return o, nil
}

// createOrRepoint creates the job, or re-points and requeues the one to
// resume, and returns its id.
func (o *scoreOpts) createOrRepoint(ctx context.Context, svc *app, jobs jobRunner, env *Env) (int64, error) {
	if o.jobID == 0 {
		j, err := jobs.create(ctx, o.spec)
		if err != nil {
			if domain.ErrorCode(err) == domain.EINVALID || domain.ErrorCode(err) == domain.ENOTFOUND {
				return 0, usagef("score: %s", domain.ErrorMessage(err))
			}
			return 0, err
		}
		if err := svc.store.Audit(ctx, cliActor, o.studyID, "start scoring job", fmt.Sprintf("job #%d: %s, %s", j.ID, j.Task, j.Scorer)); err != nil {
			return 0, err
		}
		fmt.Fprintf(env.stderr, "job %d created for study %d\n", j.ID, o.studyID)
		return j.ID, nil
	}
	if o.set["base-url"] || o.set["concurrency"] || o.set["timeout"] || o.set["batch"] || o.set["live"] {
		if err := repoint(ctx, svc, env, o.jobID, o.urls, o.set, o.conc, o.timeout, o.scale.engine()); err != nil {
			return 0, err
		}
	}
	if err := svc.store.RequeueJob(ctx, o.jobID); err != nil && domain.ErrorCode(err) != domain.ECONFLICT {
		return 0, err
	}
	return o.jobID, nil
}

// reportJob says on stderr how the job ended and why prompts failed.
func reportJob(ctx context.Context, svc *app, env *Env, res *runner.Results, took time.Duration) {
	fmt.Fprintf(env.stderr, "job %d %s in %s: %d of %d prompts answered, %d failed\n", res.Job.ID, res.Job.Status,
		took.Round(time.Millisecond), res.Progress.Answered, res.Progress.Total, res.Progress.Failed)
	if res.Job.Error != "" {
		fmt.Fprintf(env.stderr, "%s\n", domain.TerminalSafe(res.Job.Error))
	}
	if reasons, _ := svc.store.JobFailureReasons(ctx, res.Job.ID, 5); len(reasons) > 0 {
		fmt.Fprintf(env.stderr, "why prompts failed:\n")
		for _, f := range reasons {
			fmt.Fprintf(env.stderr, "  %d× %s (first: prompt %s)\n", f.Prompts, domain.TerminalSafe(f.Error), domain.TerminalSafe(f.First))
		}
	}
	if res.Unparsed > 0 && scoring.IsHumanTask(scoring.Task(res.Job.Task)) {
		fmt.Fprintf(env.stderr, "%d of %d sampled replies named none of the options; the distributions are over the others\n", res.Unparsed, res.Samples)
	} else if res.Unparsed > 0 {
		fmt.Fprintf(env.stderr, "%d of %d sampled replies answered neither True nor False; P(True) is over the others\n", res.Unparsed, res.Samples)
	}
}

// deliver writes the per-item CSV and hands a generation job's outputs to
// an explanation-rating study, as asked.
func (o *scoreOpts) deliver(ctx context.Context, svc *app, env *Env, res *runner.Results) error {
	if o.csvOut != "" {
		if err := writeFileAtomic(o.csvOut, res.WriteCSV); err != nil {
			return err
		}
	}
	if o.outputsTo == 0 {
		return nil
	}
	if res.Job.Task != string(scoring.Generation) {
		return usagef("score: --outputs-to needs a generation job")
	}
	if err := svc.store.ImportOutputs(ctx, o.outputsTo, res.Outputs()); err != nil {
		return fmt.Errorf("score: adding outputs to study %d: %w", o.outputsTo, err)
	}
	if err := svc.store.Audit(ctx, cliActor, o.outputsTo, studies.ActionImportJobOutputs, studies.AuditJobOutputsSent(len(res.Gen), res.Job.ID, res.Job.StudyID)); err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "%d outputs added to study %d\n", len(res.Gen), o.outputsTo)
	return nil
}

// print writes the results, with the humans beside the model when the job
// compares with a crowd study, as a table or as JSON.
func (o *scoreOpts) print(ctx context.Context, svc *app, env *Env, res *runner.Results) error {
	var human *runner.Comparison
	var corr *runner.HumanCorrelation
	if res.Job.Task == string(scoring.TrueFalse) && res.Job.CompareStudyID != 0 {
		ht, err := svc.JobHumanToplines(ctx, res)
		if err != nil {
			return err
		}
		c := runner.Compare(ht, res)
		human = &c
		hc := res.CorrelateWithHumans(ht)
		corr = &hc
	}
	// A human-task job beside its study's humans, compared once for the
	// R companion, the tables and the JSON.
	var c *comparisons.JobHumanComparison
	if o.humans.rDir != "" || o.humans.wanted() || o.asJSON {
		var err error
		if c, err = o.humans.compare(ctx, svc, res); err != nil {
			return err
		}
	}
	if o.humans.rDir != "" {
		if err := writeScoreR(ctx, svc, env, res, c, o.humans.rDir, o.args); err != nil {
			return err
		}
	}
	if o.humans.wanted() {
		return o.humans.write(env.stdout, res, c)
	}
	if !o.asJSON {
		printResults(env.stdout, res, human, corr)
		return nil
	}
	out := res.JSON().(map[string]any)
	if human != nil {
		out["humans"] = human.Human
		out["comparison"] = human.Models[0].JSON()
		out["human_correlation"] = corr
	}
	// As the job page's JSON.
	if c != nil {
		out["humans"] = c
	}
	enc := json.NewEncoder(env.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// resumeFlags are the flags `score --job` accepts: where and how fast to
// ask, and what to do with the results; what is asked stays the job's.
var resumeFlags = map[string]bool{"db": true, "job": true, "base-url": true, "concurrency": true, "timeout": true,
	"json": true, "csv": true, "quiet": true, "outputs-to": true, "latex": true, "methods": true, "lang": true, "epsilon": true, "r": true,
	"batch": true, "live": true, "batch-poll": true, "export-batch": true, "import-batch": true, "dry-run": true, "price": true}

// repoint changes the endpoints, concurrency or time-out of a model job
// before it is resumed (the old endpoint moved, or was too slow).
func repoint(ctx context.Context, svc *app, env *Env, id int64, urls []string, set map[string]bool, conc int, timeout time.Duration, engine scoring.Engine) error {
	j, err := svc.store.Job(ctx, id)
	if err != nil {
		return err
	}
	if j.Scorer != runner.ModelScorer {
		return usagef("score: job %d uses the built-in scorer %s; --base-url, --concurrency and --timeout apply to model jobs", id, j.Scorer)
	}
	cfg, err := runner.JobConfig(j)
	if err != nil {
		return err
	}
	if set["base-url"] {
		cfg.BaseURLs = urls
	}
	if set["concurrency"] {
		cfg.Concurrency = conc
	}
	if set["timeout"] {
		cfg.Timeout = timeout
	}
	if set["batch"] || set["live"] {
		cfg.Engine = engine
	}
	spec := runner.Spec{StudyID: j.StudyID, Task: scoring.Task(j.Task), Scorer: j.Scorer, Strategy: scoring.Strategy(j.Strategy), Config: cfg}
	if err := spec.Validate(env.getenv); err != nil {
		return usagef("score: %s", domain.ErrorMessage(err))
	}
	b, err := json.Marshal(spec.Config)
	if err != nil {
		return err
	}
	if err := svc.store.UpdateJobConfig(ctx, id, b); err != nil {
		return fmt.Errorf("score: %s", domain.ErrorMessage(err))
	}
	fmt.Fprintf(env.stderr, "job %d now asks %s (%s engine, concurrency %d per endpoint, time-out %s)\n", id, strings.Join(spec.Config.BaseURLs, ", "), spec.Config.Engine, spec.Config.Concurrency, spec.Config.Timeout)
	return nil
}

// writeFileAtomic writes a file through a temporary one, so a failed write
// never leaves half a file.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(dirOf(path), ".score-*.csv")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i+1]
	}
	return "."
}

func pct(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

func sharePtr(s scoring.Share) *float64 {
	if v, ok := s.Value(); ok {
		return &v
	}
	return nil
}

// nOfN is the "n of N" note beside a metric computed on fewer items than
// the job has, or "" (also on none: the metric then shows "—").
func nOfN(n, total int) string {
	if n >= total || n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of %d)", n, total)
}

// printResults prints a job's metrics as aligned tables.
func printResults(w io.Writer, res *runner.Results, cmp *runner.Comparison, corr *runner.HumanCorrelation) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	fmt.Fprintf(tw, "%s — %s, study %d, job %d\n\n", res.Scorer, res.Job.Task, res.Job.StudyID, res.Job.ID)
	switch scoring.Task(res.Job.Task) {
	case scoring.TrueFalse:
		printTrueFalse(tw, res, cmp, corr)
	case scoring.MultipleChoice:
		printMultipleChoice(tw, res)
	case scoring.Generation:
		fmt.Fprintf(tw, "%d outputs%s (%s); export them with --csv or add them to an explanation-rating study with --outputs-to\n", len(res.Gen), nOfN(len(res.Gen), res.JobItems[scoring.AllTypes]), res.Job.Strategy)
	case scoring.Likert, scoring.Expert, scoring.ContextTask, scoring.ExplanationRating:
		printHumanTask(tw, res)
	}
}

// printTrueFalse prints a True/False job's measures per type, then beside
// the humans (with a comparison), the option-order bias and the
// item-level correlation with the humans (with one).
func printTrueFalse(tw io.Writer, res *runner.Results, cmp *runner.Comparison, corr *runner.HumanCorrelation) {
	c := runner.Compare(nil, res)
	if cmp != nil {
		c = *cmp
	}
	fmt.Fprint(tw, "measure")
	for _, t := range c.Types {
		fmt.Fprintf(tw, "\t%s (n=%d)", t, res.TFMetrics[t].Items)
	}
	fmt.Fprintln(tw)
	for _, m := range runner.Measures {
		fmt.Fprint(tw, runner.MeasureLabels[m])
		for _, t := range c.Types {
			cell := "—"
			if tm, ok := res.TFMetrics[t]; ok {
				cell = pct(sharePtr(tfShare(tm, m))) + nOfN(runner.MeasureN(tm, m), tm.Items)
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	if cmp != nil && cmp.Human != nil {
		printHumanComparison(tw, c)
	}
	if b := res.OrderBias(); b.N > 0 {
		fmt.Fprintf(tw, "\noption-order bias: mean |P(True | True first) − P(True | False first)| = %.3f (max %.3f) over %d item × condition pairs\n", *b.Mean, *b.Max, b.N)
	}
	if corr != nil {
		fmt.Fprintf(tw, "item-level correlation of P(b) with the human mean z: %s (trigger); %s (all rated conditions)\n", corrText(corr.Trigger), corrText(corr.Conditions))
	}
}

// printMultipleChoice prints a multiple-choice job's accuracy per kind and
// its confusion matrix.
func printMultipleChoice(tw io.Writer, res *runner.Results) {
	fmt.Fprintln(tw, "kind\titems\taccuracy\thard negatives\teasy negatives\trefusals")
	for _, k := range scoring.SortedTypes(res.MCMetrics) {
		m := res.MCMetrics[k]
		fmt.Fprintf(tw, "%s\t%d%s\t%s\t%s\t%s\t%d\n", k, m.Items, nOfN(m.Items, res.JobItems[k]), pct(sharePtr(m.Accuracy)), pct(sharePtr(m.HardNegatives)), pct(sharePtr(m.EasyNegatives)), m.Refusals)
	}
	all := res.MCMetrics[scoring.AllTypes]
	fmt.Fprintln(tw, "\nconfusion (gold × predicted)\tA\tB\tC\tD\tX")
	for i, row := range all.Confusion {
		fmt.Fprintf(tw, "%c", 'A'+i)
		for _, n := range row {
			fmt.Fprintf(tw, "\t%d", n)
		}
		fmt.Fprintln(tw)
	}
}

// tfShare is one measure's share of a job's True/False metrics.
func tfShare(m scoring.TFMetrics, measure string) scoring.Share {
	return map[string]scoring.Share{
		"implicature_recognition": m.ImplicatureRecognition, "cancellation_recognition": m.CancellationRecognition,
		"belief_update": m.BeliefUpdate, "prior_control": m.PriorControl, "negation_cancellation": m.NegationCancellation,
		"strengthening": m.Strengthening, "unchanged": m.Unchanged,
	}[measure]
}

// printHumanComparison prints the model beside the humans, each measure
// and type on the items both have (n of the job's N), with 95 % intervals
// (docs/scoring.md#human-comparison).
func printHumanComparison(tw io.Writer, c runner.Comparison) {
	col := c.Models[0]
	fmt.Fprintln(tw, "\nmodel vs humans on the same items (95% intervals)")
	fmt.Fprintln(tw, "measure\ttype\titems\thumans\tmodel\tmodel − humans")
	for _, m := range runner.Measures {
		if m == "prior_control" {
			continue
		}
		for _, t := range c.Types {
			n, ok := col.N[m][t]
			if !ok || n[0] == 0 {
				continue // no item has what the measure compares
			}
			fmt.Fprintf(tw, "%s\t%s\t%d of %d\t%s %s\t%s %s\t%s %s\n", runner.MeasureLabels[m], t, n[0], n[1],
				pct(col.Human[m][t]), ciText(col.HumanCI[m][t]), pct(col.Values[m][t]), ciText(col.CI[m][t]),
				signed(col.Diff[m][t]), ciText(col.DiffCI[m][t]))
		}
	}
}

// ciText prints an interval as "[0.41, 0.77]", or nothing when there is none.
func ciText(ci *analysis.CI) string {
	if ci == nil {
		return ""
	}
	return fmt.Sprintf("[%.2f, %.2f]", ci[0], ci[1])
}

// signed prints a difference with its sign, "+0.10" or "−0.05".
func signed(v *float64) string {
	if v == nil {
		return "—"
	}
	if *v < 0 {
		return fmt.Sprintf("−%.2f", -*v)
	}
	return fmt.Sprintf("+%.2f", *v)
}

// corrText prints a correlation as "r = 0.62 [0.41, 0.77], n = 40".
func corrText(c toplines.Correlation) string {
	if c.R == nil {
		return fmt.Sprintf("undefined (n = %d)", c.N)
	}
	s := fmt.Sprintf("r = %.2f", *c.R)
	if c.Lo != nil {
		s += fmt.Sprintf(" [95%% CI %.2f, %.2f]", *c.Lo, *c.Hi)
	}
	return s + fmt.Sprintf(", n = %d", c.N)
}

// progressBar draws "[#####.....] 1234/3252" on a terminal line.
type progressBar struct {
	w     io.Writer
	quiet bool
	mu    sync.Mutex
	last  time.Time
	start time.Time
	drawn bool
}

func newProgressBar(w io.Writer, quiet bool) *progressBar {
	return &progressBar{w: w, quiet: quiet, start: time.Now()}
}

func (b *progressBar) update(answered, total, failed int) {
	if b.quiet || total == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Since(b.last) < 100*time.Millisecond && answered+failed < total {
		return
	}
	b.last = time.Now()
	const width = 30
	done := answered + failed
	n := width * done / total
	rate := float64(done) / max(time.Since(b.start).Seconds(), 0.001)
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d answered, %d failed, %.0f/s ", strings.Repeat("#", n), strings.Repeat(".", width-n), answered, total, failed, rate)
	b.drawn = true
}

func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
