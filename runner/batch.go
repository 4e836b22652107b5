package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/store"
)

// The batch engine (docs/scoring.md#openai-batch-api): a job's prompts go
// as OpenAI batch JSONL files through the Files and Batches APIs instead of
// live requests. Every step is recorded as it completes — the batch and its
// prompts before the upload, the file id, the batch id — so a run killed at
// any point leaves what the next start needs: it uploads a file again only
// when no file id was recorded, looks for a batch over a recorded file
// before creating one, and polls and collects a recorded batch.

// batchPageSize is how many prompts are read at a time to fill batch files.
const batchPageSize = 1000

// runBatches finishes sending the job's open batches, sends its other
// unanswered prompts as new batches when submit is set, then polls every
// open batch until the engine ends it and stores its results. It returns
// what a finished job's message should add.
func (r *Runner) runBatches(ctx context.Context, j *domain.Job, c *scoring.Client, submit bool, progress func(domain.JobProgress)) (string, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go r.keepLease(ctx, stop, j.ID)
	api := c.BatchAPI()
	all, err := r.db.JobBatches(ctx, j.ID)
	if err != nil {
		return "", err
	}
	var open []*domain.JobBatch
	for i := range all {
		if all[i].Open() {
			open = append(open, &all[i])
		}
	}
	var notes []string
	for _, b := range open {
		if note, err := r.sendBatch(ctx, j, c, api, b, nil, false); err != nil {
			return "", r.stopped(ctx, j, api, open, err)
		} else if note != "" {
			notes = append(notes, note)
		}
	}
	if submit {
		fresh, sendNotes, err := r.submitPending(ctx, j, c, api)
		open = append(open, fresh...)
		notes = append(notes, sendNotes...)
		if err != nil {
			return "", r.stopped(ctx, j, api, open, err)
		}
	}
	more, err := r.pollBatches(ctx, j, c, api, open, progress)
	notes = append(notes, more...)
	if err != nil {
		return "", r.stopped(ctx, j, api, open, err)
	}
	return strings.Join(notes, " "), nil
}

// stopped is the error of a batch run that could not go on. When the
// researcher cancelled the job, the engine is asked to cancel its open
// batches, so they cost nothing more.
func (r *Runner) stopped(ctx context.Context, j *domain.Job, api *scoring.BatchAPI, open []*domain.JobBatch, err error) error {
	if ctx.Err() == nil {
		return err
	}
	wctx := context.WithoutCancel(ctx)
	if cur, jerr := r.db.Job(wctx, j.ID); jerr == nil && cur.Status == domain.JobCancelled {
		for _, b := range open {
			if b.State == domain.BatchSubmitted {
				if cerr := api.CancelBatch(wctx, b.BatchID); cerr != nil {
					r.log.Warn("scoring: cancelling a batch", "job", j.ID, "batch", b.BatchID, "err", cerr)
				}
			}
		}
	}
	return err
}

// keepLease renews the job's lease while a batch run waits; losing it (the
// job was cancelled, or another process took it) stops the run.
func (r *Runner) keepLease(ctx context.Context, stop context.CancelFunc, jobID int64) {
	t := time.NewTicker(max(time.Millisecond, r.Lease/3))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if ok, err := r.db.ClaimJob(ctx, jobID, r.owner, r.db.Now().Add(r.Lease)); err == nil && !ok {
				stop()
				return
			}
		}
	}
}

// batchFile encodes prompts as batch lines; a prompt whose line cannot be
// built is returned as a failed result instead.
func batchFile(j *domain.Job, c *scoring.Client, prompts []domain.JobPrompt) ([]byte, []domain.JobResult) {
	var buf bytes.Buffer
	var failed []domain.JobResult
	for _, p := range prompts {
		ln, err := batchLine(j, c, p)
		if err != nil {
			failed = append(failed, domain.JobResult{Seq: p.Seq, Error: c.CleanError(err)})
			continue
		}
		buf.Write(ln)
	}
	return buf.Bytes(), failed
}

func batchLine(j *domain.Job, c *scoring.Client, p domain.JobPrompt) ([]byte, error) {
	l, err := c.BatchRequest(scoringPrompt(j, p))
	if err != nil {
		return nil, err
	}
	return scoring.EncodeBatchLine(l)
}

// scoringPrompt is a stored prompt as the scorer reads it.
func scoringPrompt(j *domain.Job, p domain.JobPrompt) scoring.Prompt {
	return scoring.Prompt{Key: p.Key, Task: scoring.Task(j.Task), ItemKey: p.ItemKey, Condition: scoring.Condition(p.Condition),
		Order: scoring.Order(p.Order), Strategy: scoring.Strategy(j.Strategy), Text: p.Text, Points: jobPoints(j)}
}

// submitPending sends the job's prompts that are neither answered nor in
// an open batch as new batches, each file within the engine's limits.
func (r *Runner) submitPending(ctx context.Context, j *domain.Job, c *scoring.Client, api *scoring.BatchAPI) ([]*domain.JobBatch, []string, error) {
	var out []*domain.JobBatch
	var notes []string
	var buf bytes.Buffer
	var seqs []int
	flush := func() error {
		if len(seqs) == 0 {
			return nil
		}
		id, err := r.db.OpenBatch(ctx, j.ID, api.Base(), seqs)
		if err != nil {
			return err
		}
		b := &domain.JobBatch{ID: id, JobID: j.ID, BaseURL: api.Base(), State: domain.BatchPreparing, Prompts: len(seqs)}
		out = append(out, b)
		note, err := r.sendBatch(ctx, j, c, api, b, buf.Bytes(), true)
		if note != "" {
			notes = append(notes, note)
		}
		buf.Reset()
		seqs = seqs[:0]
		return err
	}
	after := 0
	for {
		// Prompts already put in a batch are not listed again, so the
		// next page starts after the last prompt read.
		page, err := r.db.UnbatchedPrompts(ctx, j.ID, after, batchPageSize)
		if err != nil {
			return out, notes, err
		}
		if len(page) == 0 {
			return out, notes, flush()
		}
		var failed []domain.JobResult
		for _, p := range page {
			ln, err := batchLine(j, c, p)
			if err == nil && len(ln) > r.BatchMaxBytes {
				err = fmt.Errorf("the request is %d bytes, more than the %d a batch file may hold", len(ln), r.BatchMaxBytes)
			}
			if err != nil {
				failed = append(failed, domain.JobResult{Seq: p.Seq, Error: c.CleanError(err)})
				continue
			}
			if len(seqs)+1 > r.BatchMaxLines || buf.Len()+len(ln) > r.BatchMaxBytes {
				if err := flush(); err != nil {
					return out, notes, err
				}
			}
			buf.Write(ln)
			seqs = append(seqs, p.Seq)
		}
		if err := r.db.SaveJobResults(ctx, j.ID, failed); err != nil {
			return out, notes, err
		}
		after = page[len(page)-1].Seq
	}
}

// sendBatch takes a batch as far as the engine accepting it: uploads its
// file unless a file id is recorded (data, when the caller has the file
// already), then finds the batch over that file (a run killed after
// creating it) or creates it, recording each id as it comes back. A batch
// the engine refuses is collected at once, its prompts failed (they can be
// asked again), and the refusal returned as a note; errors are those that
// stop the run (a cancellation, an engine that does not answer).
func (r *Runner) sendBatch(ctx context.Context, j *domain.Job, c *scoring.Client, api *scoring.BatchAPI, b *domain.JobBatch, data []byte, fresh bool) (string, error) {
	if b.State == domain.BatchPreparing {
		if data == nil {
			prompts, err := r.db.BatchPrompts(ctx, b.ID)
			if err != nil {
				return "", err
			}
			var failed []domain.JobResult
			data, failed = batchFile(j, c, prompts)
			if len(failed) > 0 {
				return r.refuse(ctx, b, "building the batch file", errors.New(failed[0].Error))
			}
		}
		fileID, err := api.UploadFile(ctx, fmt.Sprintf("pragmalab-job%d-batch%d.jsonl", j.ID, b.ID), data)
		if err != nil {
			return r.refuse(ctx, b, "uploading the batch file", err)
		}
		if err := r.db.BatchUploaded(context.WithoutCancel(ctx), b.ID, fileID); err != nil {
			return "", err
		}
		b.State, b.InputFileID = domain.BatchUploaded, fileID
		fresh = true
	}
	if b.State != domain.BatchUploaded {
		return "", nil
	}
	var st scoring.BatchStatus
	found := false
	if !fresh {
		var err error
		if st, found, err = api.FindBatch(ctx, b.InputFileID, 10); err != nil {
			return r.refuse(ctx, b, "looking for the batch of file "+b.InputFileID, err)
		}
	}
	if !found {
		var err error
		meta := map[string]string{"pragmalab_job": strconv.FormatInt(j.ID, 10), "pragmalab_batch": strconv.FormatInt(b.ID, 10)}
		if st, err = api.CreateBatch(ctx, b.InputFileID, c.BatchEndpoint(), meta); err != nil {
			return r.refuse(ctx, b, "creating the batch", err)
		}
		if ctx.Err() != nil {
			// The run ended while the engine was creating the batch (a
			// shutdown): its answer may still have come back, but the run
			// records nothing more, as a killed one could not; the next
			// start finds the batch by its file.
			return "", ctx.Err()
		}
	}
	if err := r.db.BatchSubmitted(context.WithoutCancel(ctx), b.ID, st.ID, st.Status); err != nil {
		return "", err
	}
	b.State, b.BatchID, b.RemoteStatus = domain.BatchSubmitted, st.ID, st.Status
	r.log.Info("scoring: batch submitted", "job", j.ID, "batch", st.ID, "prompts", b.Prompts)
	return "", nil
}

// refuse handles a failed step of sending a batch: a cancellation or an
// engine that does not answer stops the run (the batch stays open, for the
// next start); a refusal (a 4xx) fails the batch's prompts at once.
func (r *Runner) refuse(ctx context.Context, b *domain.JobBatch, step string, err error) (string, error) {
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if scoring.IsTransient(err) {
		return "", fmt.Errorf("%s: %w", step, err)
	}
	msg := fmt.Sprintf("The batch engine refused a batch of %d prompts (%s: %s); they failed and can be asked again.", b.Prompts, step, err)
	if cerr := r.db.CollectBatch(context.WithoutCancel(ctx), b.ID, "not sent", msg, nil, step+": "+err.Error()); cerr != nil {
		return "", cerr
	}
	b.State = domain.BatchCollected
	return msg, nil
}

// pollBatches asks the engine about each submitted batch, with back-off
// between rounds, until none is left, collecting each as it ends.
func (r *Runner) pollBatches(ctx context.Context, j *domain.Job, c *scoring.Client, api *scoring.BatchAPI, open []*domain.JobBatch, progress func(domain.JobProgress)) ([]string, error) {
	bp := &batchPoll{r: r, j: j, c: c, api: api, progress: progress}
	wait := max(time.Millisecond, r.BatchPoll)
	for {
		bp.waiting, bp.status = 0, nil
		for _, b := range open {
			if b.State != domain.BatchSubmitted {
				continue
			}
			if err := bp.poll(ctx, b); err != nil {
				return bp.notes, err
			}
		}
		if bp.waiting == 0 {
			return bp.notes, nil
		}
		if len(bp.status) > 0 {
			msg := fmt.Sprintf("Waiting for %d batch(es) at %s — %s. Stopping pragmalab loses nothing: the next start collects them.", bp.waiting, api.Base(), strings.Join(bp.status, "; "))
			if err := r.db.SetJobStatus(ctx, j.ID, domain.JobRunning, msg); err != nil && ctx.Err() == nil {
				return bp.notes, err
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return bp.notes, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, max(r.BatchPoll, r.BatchPollMax))
	}
}

// batchPoll is pollBatches' state: the notes for the job's message, the
// engine's failures in a row, and, per round, the batches still waiting
// and their status lines.
type batchPoll struct {
	r        *Runner
	j        *domain.Job
	c        *scoring.Client
	api      *scoring.BatchAPI
	progress func(domain.JobProgress)
	notes    []string
	failures int
	waiting  int
	status   []string
}

// poll asks about one submitted batch: an unreadable status refuses it,
// a transient failure waits (up to 10 in a row), a running batch records
// its counts, an ended one is collected.
func (bp *batchPoll) poll(ctx context.Context, b *domain.JobBatch) error {
	st, err := bp.api.Batch(ctx, b.BatchID)
	if err != nil {
		return bp.failed(ctx, b, err)
	}
	bp.failures = 0
	if !scoring.BatchFinal(st.Status) {
		bp.waiting++
		msg := fmt.Sprintf("%s, %d of %d requests done", st.Status, st.RequestCounts.Completed+st.RequestCounts.Failed, st.RequestCounts.Total)
		bp.status = append(bp.status, st.ID+": "+msg)
		if err := bp.r.db.BatchPolled(ctx, b.ID, st.Status, msg); err != nil && ctx.Err() == nil {
			return err
		}
		return nil
	}
	note, err := bp.r.collectBatch(ctx, bp.j, bp.c, bp.api, b, st)
	if err != nil {
		return err
	}
	if note != "" {
		bp.notes = append(bp.notes, note)
	}
	if bp.progress != nil {
		if p, err := bp.r.db.JobProgress(ctx, bp.j.ID); err == nil {
			bp.progress(p)
		}
	}
	return nil
}

// failed handles a batch whose status could not be read: a lasting error
// refuses the batch, a transient one waits for the next round.
func (bp *batchPoll) failed(ctx context.Context, b *domain.JobBatch, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !scoring.IsTransient(err) {
		note, err := bp.r.refuse(ctx, b, "reading the status of batch "+b.BatchID, err)
		bp.notes = append(bp.notes, note)
		return err
	}
	if bp.failures++; bp.failures >= 10 {
		return fmt.Errorf("the batch engine did not answer 10 times in a row: %w", err)
	}
	bp.waiting++
	return nil
}

// collectBatch downloads an ended batch's output and error files and
// stores every result as a live reply would be stored, in one
// transaction; the batch's prompts without a line fail (an expired
// batch), to be asked again.
func (r *Runner) collectBatch(ctx context.Context, j *domain.Job, c *scoring.Client, api *scoring.BatchAPI, b *domain.JobBatch, st scoring.BatchStatus) (string, error) {
	prompts, err := r.db.BatchPrompts(ctx, b.ID)
	if err != nil {
		return "", err
	}
	out := batchOutputs{j: j, c: c, byKey: make(map[string]domain.JobPrompt, len(prompts)), seen: map[string]bool{}}
	for _, p := range prompts {
		out.byKey[p.Key] = p
	}
	for _, fid := range []string{st.OutputFileID, st.ErrorFileID} {
		if fid == "" {
			continue
		}
		data, err := api.FileContent(ctx, fid)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("downloading file %s of batch %s: %w", fid, st.ID, err)
		}
		if err := eachLine(data, out.read); err != nil {
			return "", err
		}
	}
	missing := fmt.Sprintf("batch %s ended %s without a result for this prompt", st.ID, st.Status)
	if p := st.Problem(); p != "" {
		missing += " (" + p + ")"
	}
	answered := 0
	for _, res := range out.results {
		if res.Answer != nil {
			answered++
		}
	}
	msg := fmt.Sprintf("%s: %d of %d prompts answered", st.Status, answered, b.Prompts)
	if out.foreign+out.unreadable > 0 {
		msg += fmt.Sprintf("; %d lines named no prompt of this batch and %d were not JSON (left out)", out.foreign, out.unreadable)
	}
	if err := r.db.CollectBatch(context.WithoutCancel(ctx), b.ID, st.Status, msg, out.results, missing); err != nil {
		return "", err
	}
	b.State = domain.BatchCollected
	r.log.Info("scoring: batch collected", "job", j.ID, "batch", st.ID, "status", st.Status, "answered", answered, "prompts", b.Prompts)
	if st.Status == scoring.BatchCompleted && answered == b.Prompts {
		return "", nil
	}
	return fmt.Sprintf("Batch %s %s: %d of its %d prompts answered.", st.ID, st.Status, answered, b.Prompts), nil
}

// batchOutputs reads a batch's output lines into results, the first line
// per prompt; it counts the lines that name no prompt of the batch
// (foreign) and those that are not JSON (unreadable).
type batchOutputs struct {
	j                   *domain.Job
	c                   *scoring.Client
	byKey               map[string]domain.JobPrompt
	seen                map[string]bool
	results             []domain.JobResult
	foreign, unreadable int
}

// read reads one output line; a reply from another model than the job's
// fails its prompt.
func (o *batchOutputs) read(_ int, ln []byte) error {
	var out scoring.BatchOutput
	if json.Unmarshal(ln, &out) != nil {
		o.unreadable++
		return nil
	}
	p, ok := o.byKey[out.CustomID]
	if !ok {
		o.foreign++
		return nil
	}
	if o.seen[out.CustomID] {
		return nil
	}
	o.seen[out.CustomID] = true
	res := resultOf(o.j, o.c, p, out)
	if m := out.Model(); m != "" && !scoring.SameModel(m, o.c.Name()) {
		res = domain.JobResult{Seq: p.Seq, Error: fmt.Sprintf("the reply is from model %q, not the job's %q", m, o.c.Name())}
	}
	o.results = append(o.results, res)
	return nil
}

// resultOf reads one output line for prompt p as the live client reads a
// reply.
func resultOf(j *domain.Job, c *scoring.Client, p domain.JobPrompt, o scoring.BatchOutput) domain.JobResult {
	a, err := c.BatchAnswer(scoringPrompt(j, p), o)
	res := domain.JobResult{Seq: p.Seq}
	if err != nil {
		res.Error = c.CleanError(err)
	} else if res.Answer, err = json.Marshal(a); err != nil {
		res.Answer, res.Error = nil, c.CleanError(err)
	}
	return res
}

// eachLine calls fn with every non-blank line of data and its number
// (from 1).
func eachLine(data []byte, fn func(n int, ln []byte) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), scoring.BatchMaxBytes)
	n := 0
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := fn(n, sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// executeEngine runs a model job's batches: all of its prompts on the
// batch engine, or on the live engine the batches a batch run left open
// (collected before the live requests ask what is left). done reports that
// the job needs nothing more here.
func (r *Runner) executeEngine(ctx context.Context, j *domain.Job, c *scoring.Client, progress func(domain.JobProgress)) (done bool, _ error) {
	cfg := c.Config()
	if cfg.Engine == scoring.EngineOffline {
		return true, domain.Errorf(domain.ECONFLICT, "job %d waits for an offline runner's output: write its prompts with pragmalab score --job %d --export-batch FILE and read the output back with --import-batch OUT --job %d, or run it here with --live or --batch and --base-url", j.ID, j.ID, j.ID)
	}
	if cfg.Engine != scoring.EngineBatch {
		bs, err := r.db.JobBatches(ctx, j.ID)
		if err != nil {
			return true, err
		}
		open := false
		for i := range bs {
			open = open || bs[i].Open()
		}
		if !open {
			return false, nil
		}
	}
	wctx := context.WithoutCancel(ctx)
	if err := r.db.SetJobStatus(ctx, j.ID, domain.JobRunning, "Sending the prompts as batches to "+c.BatchAPI().Base()+"."); err != nil {
		return true, err
	}
	note, err := r.runBatches(ctx, j, c, cfg.Engine == scoring.EngineBatch, progress)
	if ctx.Err() != nil {
		return true, nil // cancelled (status set) or stopping: the next start collects the open batches
	}
	p, perr := r.db.JobProgress(wctx, j.ID)
	if perr != nil {
		return true, perr
	}
	if err != nil {
		msg := fmt.Sprintf("The batch engine at %s could not be reached: %s. Run the job again (pragmalab score --job %d, or Retry): its open batches are found by their recorded ids, nothing is sent twice.", c.BatchAPI().Base(), err, j.ID)
		r.log.Warn("scoring: batch run stopped", "job", j.ID, "err", err)
		return true, r.db.SetJobStatus(wctx, j.ID, store.FinalStatus(p), msg)
	}
	if cfg.Engine != scoring.EngineBatch {
		return false, nil
	}
	msg := finishMessage(p, "", note)
	if p.Answered < p.Total {
		msg += fmt.Sprintf(" Ask the unanswered prompts again live (pragmalab score --job %d --live) or in a new batch (pragmalab score --job %d --batch).", j.ID, j.ID)
	}
	status := store.FinalStatus(p)
	r.log.Info("scoring: job finished", "job", j.ID, "status", status, "answered", p.Answered, "failed", p.Failed)
	return true, r.db.SetJobStatus(wctx, j.ID, status, strings.TrimSpace(msg))
}
