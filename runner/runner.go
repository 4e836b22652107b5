package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"pragmalab/domain"
	"runtime"
	"strings"
	"sync"
	"time"

	"pragmalab/scoring"
	"pragmalab/store"
)

// Runner runs scoring jobs: Run picks up queued jobs (and, after a restart,
// running ones) and asks their unanswered prompts; RunJob runs one job in
// the caller's goroutine (the CLI). Answers are saved in small batches as
// they come back, so stopping loses at most the answers of the last fraction
// of a second, and those prompts are simply asked again.
type Runner struct {
	db     *store.DB
	log    *slog.Logger
	getenv func(string) string
	hc     *http.Client
	owner  string

	// MaxJobs bounds the jobs running at once (default 2).
	MaxJobs int
	// FlushEvery and FlushInterval bound how many answers wait in memory
	// before they are written, and for how long.
	FlushEvery    int
	FlushInterval time.Duration
	// Lease is how long a claim on a job lasts without renewal; the runner
	// renews it every Lease/3 while it works, so a crashed runner's job can
	// be resumed Lease after the crash.
	Lease time.Duration
	// GiveUpAfter stops a job after this many prompts in a row failed on
	// the endpoints' account (429, 5xx, time-outs, network errors after
	// their retries: every endpoint down or overloaded): the rest are left
	// unasked, the job ends partial or failed and says why, instead of
	// spending every prompt's retries. A prompt's own error (a 400) does
	// not count: the next prompt may well be answered.
	GiveUpAfter int
	// ProbeTimeout bounds the connection test of each endpoint at start.
	ProbeTimeout time.Duration
	// PublicEndpointsOnly refuses loopback and private endpoint addresses
	// (serve --public-endpoints-only).
	PublicEndpointsOnly bool
	// ClientOptions are passed to every model client (tests shorten the
	// back-off with them).
	ClientOptions []scoring.ClientOption
	// BatchPoll is the first wait between two status reads of a job's
	// batches, doubling up to BatchPollMax; BatchMaxLines and
	// BatchMaxBytes bound one batch file (the OpenAI limits by default).
	BatchPoll, BatchPollMax      time.Duration
	BatchMaxLines, BatchMaxBytes int

	wake   chan struct{}
	mu     sync.Mutex
	active map[int64]*activeJob
	wg     sync.WaitGroup
}

type activeJob struct {
	cancel    context.CancelFunc
	cancelled bool // by the researcher, not by a shutdown
	batch     bool // runs on the batch engine
}

// liveJobs counts the active jobs that are not batch jobs (r.mu held).
func (r *Runner) liveJobs() int {
	n := 0
	for _, a := range r.active {
		if !a.batch {
			n++
		}
	}
	return n
}

// isBatchJob reports whether a job runs on the batch engine.
func isBatchJob(j *domain.Job) bool {
	if j.Scorer != ModelScorer {
		return false
	}
	cfg, err := JobConfig(j)
	return err == nil && cfg.Engine == scoring.EngineBatch
}

// DefaultLease is the lease of a running job: short, so a job whose runner
// crashed can be resumed within seconds.
const DefaultLease = 10 * time.Second

// New returns a runner over db. getenv reads API keys (os.Getenv in
// production); hc may be nil.
func New(db *store.DB, log *slog.Logger, getenv func(string) string, hc *http.Client) *Runner {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{
		db: db, log: log, getenv: getenv, hc: hc, owner: store.RandomToken()[:16],
		MaxJobs: 2, FlushEvery: 64, FlushInterval: 100 * time.Millisecond, Lease: DefaultLease,
		GiveUpAfter: 25, ProbeTimeout: 3 * time.Second,
		BatchPoll: 5 * time.Second, BatchPollMax: 2 * time.Minute,
		BatchMaxLines: scoring.BatchMaxRequests, BatchMaxBytes: scoring.BatchMaxBytes,
		wake: make(chan struct{}, 1), active: map[int64]*activeJob{},
	}
}

// Wake tells Run to look for new jobs now.
func (r *Runner) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run processes jobs until ctx ends, then stops the workers, writes the
// answers already back and returns; unfinished jobs stay queued or running
// for the next start.
func (r *Runner) Run(ctx context.Context) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		r.startJobs(ctx)
		select {
		case <-ctx.Done():
			r.wg.Wait()
			return
		case <-r.wake:
		case <-tick.C:
		}
	}
}

func (r *Runner) startJobs(ctx context.Context) {
	jobs, err := r.db.ActiveJobs(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("scoring: listing jobs", "err", err)
		}
		return
	}
	for _, j := range jobs {
		// A batch job mostly waits for its engine (up to a day): it does
		// not take one of the MaxJobs places of the jobs that ask live.
		waits := isBatchJob(j)
		r.mu.Lock()
		_, busy := r.active[j.ID]
		full := r.liveJobs() >= max(1, r.MaxJobs)
		r.mu.Unlock()
		if busy {
			continue
		}
		if full && !waits {
			continue
		}
		ok, err := r.db.ClaimJob(ctx, j.ID, r.owner, r.db.Now().Add(r.Lease))
		if err != nil || !ok {
			continue
		}
		jctx, cancel := context.WithCancel(ctx)
		r.mu.Lock()
		r.active[j.ID] = &activeJob{cancel: cancel, batch: waits}
		r.mu.Unlock()
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer cancel()
			if err := r.execute(jctx, j, nil); err != nil && jctx.Err() == nil {
				r.log.Error("scoring: job", "job", j.ID, "err", err)
			}
			r.mu.Lock()
			delete(r.active, j.ID)
			r.mu.Unlock()
			r.Wake()
		}()
	}
}

// Cancel cancels a queued or running job; a running one stops asking at
// once and keeps the answers it has.
func (r *Runner) Cancel(ctx context.Context, id int64) error {
	if err := r.db.CancelJob(ctx, id); err != nil {
		return err
	}
	r.mu.Lock()
	if a, ok := r.active[id]; ok {
		a.cancelled = true
		a.cancel()
	}
	r.mu.Unlock()
	return nil
}

// RunJob runs one job to its end in the caller's goroutine, calling
// progress after every batch of answers is saved. It returns ctx's error if
// ctx ends first (the job then stays resumable).
func (r *Runner) RunJob(ctx context.Context, id int64, progress func(domain.JobProgress)) error {
	j, err := r.db.Job(ctx, id)
	if err != nil {
		return err
	}
	ok, err := r.db.ClaimJob(ctx, id, r.owner, r.db.Now().Add(r.Lease))
	if err != nil {
		return err
	}
	if !ok {
		return r.busy(ctx, j)
	}
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.mu.Lock()
	r.active[id] = &activeJob{cancel: cancel}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.active, id)
		r.mu.Unlock()
	}()
	if err := r.execute(jctx, j, progress); err != nil {
		return err
	}
	return ctx.Err()
}

// busy explains why a job cannot be claimed: it is finished, or another
// runner holds its lease — until when, so a user whose runner crashed
// knows when to resume.
func (r *Runner) busy(ctx context.Context, j *domain.Job) error {
	if j.Status != domain.JobQueued && j.Status != domain.JobRunning {
		return domain.Errorf(domain.ECONFLICT, "job %d is %s", j.ID, j.Status)
	}
	_, until, err := r.db.JobLease(ctx, j.ID)
	if err != nil {
		return err
	}
	left := until.Sub(r.db.Now()).Round(time.Second)
	return domain.Errorf(domain.ECONFLICT, "job %d is being run by another pragmalab process (its lease is renewed every few seconds while it works). If that process has stopped, the lease frees the job at %s UTC, in %s: run this again then",
		j.ID, until.UTC().Format("15:04:05"), max(left, time.Second))
}

// scorer builds the scorer of a job and the number of workers worth running.
func (r *Runner) scorer(j *domain.Job) (scoring.Scorer, int, error) {
	task := scoring.Task(j.Task)
	if j.Scorer != ModelScorer {
		s, err := scoring.NewBuiltin(j.Scorer, task, uint64(j.Seed))
		return s, runtime.GOMAXPROCS(0), err
	}
	cfg, err := JobConfig(j)
	if err != nil {
		return nil, 0, err
	}
	opts := append([]scoring.ClientOption{scoring.WithLogger(r.log), scoring.WithPublicOnly(r.PublicEndpointsOnly)}, r.ClientOptions...)
	if r.hc != nil {
		opts = append(opts, scoring.WithHTTPClient(r.hc))
	}
	c, err := scoring.NewClient(cfg, r.getenv, opts...)
	if err != nil {
		return nil, 0, err
	}
	return c, c.Concurrency(), nil
}

// execute asks a job's unanswered prompts with a bounded pool of workers.
func (r *Runner) execute(ctx context.Context, j *domain.Job, progress func(domain.JobProgress)) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	owner := r.owner
	defer r.db.ReleaseJob(context.WithoutCancel(ctx), j.ID, owner)
	before, err := r.db.JobProgress(ctx, j.ID)
	if err != nil {
		return err
	}
	pending := before.Total - before.Answered
	scorer, workers, err := r.scorer(j)
	if err != nil {
		return r.db.SetJobStatus(context.WithoutCancel(ctx), j.ID, domain.JobFailed, err.Error())
	}
	pending, done, err := r.runEngine(ctx, j, scorer, pending, progress)
	if done || err != nil {
		return err
	}
	items, err := r.jobMCItems(ctx, j, pending)
	if err != nil {
		return err
	}
	note, ended, err := r.probeEndpoints(ctx, j, scorer, pending)
	if ended || err != nil {
		return err
	}
	if err := r.db.SetJobStatus(ctx, j.ID, domain.JobRunning, note); err != nil {
		return err
	}
	r.log.Info("scoring: job started", "job", j.ID, "scorer", ScorerName(j), "pending", pending, "workers", workers)

	in := make(chan domain.JobPrompt)
	out := make(chan domain.JobResult, workers)
	feedErr := make(chan error, 1)
	go func() {
		defer close(in)
		feedErr <- r.feed(ctx, j.ID, in)
	}()
	var wg sync.WaitGroup
	for range max(1, min(workers, pending)) {
		wg.Go(func() { askPrompts(ctx, j, scorer, items, in, out) })
	}
	go func() { wg.Wait(); close(out) }()
	gaveUp, err := r.collect(ctx, stop, j.ID, out, progress)
	if err != nil {
		return err
	}
	if err := <-feedErr; err != nil && ctx.Err() == nil {
		return err
	}
	if ctx.Err() != nil && gaveUp == "" {
		return nil // cancelled (status already set) or shutting down (resumes later)
	}
	return r.finish(ctx, j, gaveUp, note)
}

// finish sets a job's final status from its progress, with the message
// saying what was left unanswered and why.
func (r *Runner) finish(ctx context.Context, j *domain.Job, gaveUp, note string) error {
	wctx := context.WithoutCancel(ctx)
	p, err := r.db.JobProgress(wctx, j.ID)
	if err != nil {
		return err
	}
	status := store.FinalStatus(p)
	r.log.Info("scoring: job finished", "job", j.ID, "status", status, "answered", p.Answered, "failed", p.Failed, "unasked", p.Unasked())
	return r.db.SetJobStatus(wctx, j.ID, status, finishMessage(p, gaveUp, note))
}

// runEngine runs a model job's batches first (executeEngine); done says
// the engine finished the job, otherwise pending is what is left to ask live.
func (r *Runner) runEngine(ctx context.Context, j *domain.Job, scorer scoring.Scorer, pending int, progress func(domain.JobProgress)) (_ int, done bool, _ error) {
	c, ok := scorer.(*scoring.Client)
	if !ok {
		return pending, false, nil
	}
	done, err := r.executeEngine(ctx, j, c, progress)
	if done || err != nil {
		return pending, true, err
	}
	before, err := r.db.JobProgress(ctx, j.ID)
	if err != nil {
		return pending, true, err
	}
	return before.Total - before.Answered, false, nil
}

// jobMCItems are the multiple-choice items by key that a job of another
// task than True/False or a human task needs to score its pending prompts.
func (r *Runner) jobMCItems(ctx context.Context, j *domain.Job, pending int) (map[string]*scoring.MCItem, error) {
	task := scoring.Task(j.Task)
	if task == scoring.TrueFalse || scoring.IsHumanTask(task) || pending == 0 {
		return nil, nil
	}
	ds, err := loadDataset(ctx, r.db, j.StudyID, task)
	if err != nil {
		return nil, err
	}
	return ds.mcByKey(), nil
}

// probeEndpoints checks a model client's endpoints before asking: with
// none answering the job ends here (ended), with some down the note names
// the benched ones.
func (r *Runner) probeEndpoints(ctx context.Context, j *domain.Job, scorer scoring.Scorer, pending int) (note string, ended bool, _ error) {
	c, ok := scorer.(*scoring.Client)
	if !ok || pending <= 0 {
		return "", false, nil
	}
	var dead []string
	states := c.Probe(ctx, r.ProbeTimeout)
	for _, st := range states {
		if st.Error != "" {
			dead = append(dead, fmt.Sprintf("%s (%s)", st.Base, st.Error))
			r.log.Warn("scoring: endpoint does not answer", "job", j.ID, "endpoint", st.Base, "err", st.Error)
		}
	}
	if len(dead) == len(states) {
		msg := "No endpoint accepts connections: " + strings.Join(dead, "; ") + ". Nothing was asked; start the model server (or fix the base URL) and ask the prompts again."
		p, err := r.db.JobProgress(ctx, j.ID)
		if err != nil {
			return "", true, err
		}
		return "", true, r.db.SetJobStatus(context.WithoutCancel(ctx), j.ID, store.FinalStatus(p), msg)
	}
	if len(dead) > 0 {
		note = "Not answering at start, benched (its prompts go to the other endpoints; it is probed again later): " + strings.Join(dead, "; ") + "."
	}
	return note, false, nil
}

// cleanError is err's text as stored: cleaned with the job's key by a
// model client (scoring.Client.CleanError), as it is for an offline
// runner's lines; a built-in scorer holds no key.
func cleanError(scorer scoring.Scorer, err error) string {
	if c, ok := scorer.(interface{ CleanError(error) string }); ok {
		return c.CleanError(err)
	}
	return domain.CleanOutside(err.Error())
}

// askPrompts is one worker: it scores the prompts it receives until the
// feed closes or the job stops.
func askPrompts(ctx context.Context, j *domain.Job, scorer scoring.Scorer, items map[string]*scoring.MCItem, in <-chan domain.JobPrompt, out chan<- domain.JobResult) {
	for sp := range in {
		p := scoring.Prompt{Key: sp.Key, Task: scoring.Task(j.Task), ItemKey: sp.ItemKey,
			Condition: scoring.Condition(sp.Condition), Order: scoring.Order(sp.Order),
			Strategy: scoring.Strategy(j.Strategy), Text: sp.Text, MC: items[sp.ItemKey], Points: jobPoints(j)}
		a, err := scorer.Score(ctx, p)
		if ctx.Err() != nil {
			return // stopped: the prompt stays unanswered, not failed
		}
		res := domain.JobResult{Seq: sp.Seq, Transient: scoring.IsTransient(err)}
		if err != nil {
			res.Error = cleanError(scorer, err)
		} else if res.Answer, err = json.Marshal(a); err != nil {
			res.Answer, res.Error = nil, cleanError(scorer, err)
		}
		out <- res
	}
}

// finishMessage says what a finished job did not answer, and why.
func finishMessage(p domain.JobProgress, gaveUp, note string) string {
	var parts []string
	if p.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d prompts failed; the reasons are listed below.", p.Failed, p.Total))
	}
	if gaveUp != "" {
		parts = append(parts, fmt.Sprintf("Stopped early: %s; %d prompts were not asked.", gaveUp, p.Unasked()))
	} else if p.Unasked() > 0 {
		parts = append(parts, fmt.Sprintf("%d prompts were not asked.", p.Unasked()))
	}
	if len(parts) > 0 {
		parts = append(parts, "Asking the unanswered prompts again keeps every answer already in.")
	}
	if note != "" {
		parts = append(parts, note)
	}
	return strings.Join(parts, " ")
}

// feedPage is how many pending prompts the runner reads at a time.
const feedPage = 500

// feed sends a job's unanswered prompts to the workers, a page at a time.
func (r *Runner) feed(ctx context.Context, jobID int64, in chan<- domain.JobPrompt) error {
	after := 0
	for {
		page, err := r.db.PendingPrompts(ctx, jobID, after, feedPage)
		if err != nil || len(page) == 0 {
			return err
		}
		for _, p := range page {
			select {
			case in <- p:
			case <-ctx.Done():
				return nil
			}
		}
		after = page[len(page)-1].Seq
	}
}

// collect writes results in batches and renews the job's lease; writes use
// a context that outlives a cancellation, so answers already back are kept.
// After GiveUpAfter failures in a row it stops the job and returns why.
func (r *Runner) collect(ctx context.Context, stop context.CancelFunc, jobID int64, out <-chan domain.JobResult, progress func(domain.JobProgress)) (gaveUp string, _ error) {
	every := max(1, r.FlushEvery)
	c := &collector{r: r, ctx: ctx, wctx: context.WithoutCancel(ctx), stop: stop, jobID: jobID,
		progress: progress, batch: make([]domain.JobResult, 0, every), lastRenew: time.Now()}
	tick := time.NewTicker(max(time.Millisecond, r.FlushInterval))
	defer tick.Stop()
	for {
		select {
		case res, ok := <-out:
			if !ok {
				c.flush()
				return c.gaveUp, c.saveErr
			}
			c.add(res)
			if len(c.batch) >= every {
				c.flush()
			}
		case <-tick.C:
			c.flush()
			c.renew()
		}
		if c.saveErr != nil {
			// Keep draining so the workers can finish, but stop asking.
			go func() {
				for range out {
				}
			}()
			stop()
			return c.gaveUp, errors.Join(errors.New("saving answers"), c.saveErr)
		}
	}
}

// collector is collect's state: the batch not yet written, the streak of
// transient failures, the lease's last renewal and the first save error.
type collector struct {
	r         *Runner
	ctx, wctx context.Context
	stop      context.CancelFunc
	jobID     int64
	progress  func(domain.JobProgress)
	batch     []domain.JobResult
	streak    int
	gaveUp    string
	lastRenew time.Time
	saveErr   error
}

// add queues a result and gives up after GiveUpAfter transient failures
// in a row.
func (c *collector) add(res domain.JobResult) {
	c.batch = append(c.batch, res)
	if !res.Transient {
		c.streak = 0
	} else if c.streak++; c.r.GiveUpAfter > 0 && c.streak >= c.r.GiveUpAfter && c.gaveUp == "" {
		c.gaveUp = fmt.Sprintf("the last %d prompts all failed (latest: %s)", c.streak, res.Error)
		c.r.log.Warn("scoring: giving up", "job", c.jobID, "failed_in_a_row", c.streak)
		c.stop()
	}
}

// renew keeps the lease and notices a cancellation made by another
// process (the admin page cancelling a CLI run).
func (c *collector) renew() {
	if time.Since(c.lastRenew) < c.r.Lease/3 || c.ctx.Err() != nil {
		return
	}
	c.lastRenew = time.Now()
	if ok, err := c.r.db.ClaimJob(c.wctx, c.jobID, c.r.owner, c.r.db.Now().Add(c.r.Lease)); err == nil && !ok {
		c.stop()
	}
}

// flush writes the batch and reports the progress.
func (c *collector) flush() {
	if len(c.batch) == 0 || c.saveErr != nil {
		return
	}
	if err := c.r.db.SaveJobResults(c.wctx, c.jobID, c.batch); err != nil {
		c.saveErr = err
		return
	}
	c.batch = c.batch[:0]
	if c.progress != nil {
		if p, err := c.r.db.JobProgress(c.wctx, c.jobID); err == nil {
			c.progress(p)
		}
	}
}
