package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/store"
)

// Offline engines (docs/scoring.md#offline-runners-vllm-run-batch): a job's prompts
// written as OpenAI batch JSONL for `vllm run-batch` or any runner of the
// format, and the runner's output read back into the job.

// offlineClient is the client that writes and reads a model job's batch
// lines; it sends nothing, so it needs no base URL. It holds the job's key
// when getenv has one (the variable of --api-key-env), only to blank it
// from the errors it reads (docs/scoring.md#offline-runners-vllm-run-batch).
func offlineClient(j *domain.Job, getenv func(string) string) (*scoring.Client, scoring.Config, error) {
	if j.Scorer != ModelScorer {
		return nil, scoring.Config{}, domain.Errorf(domain.EINVALID, "job %d uses the built-in scorer %s; only a model job has batch lines", j.ID, j.Scorer)
	}
	cfg, err := JobConfig(j)
	if err != nil {
		return nil, cfg, err
	}
	keyEnv := cfg.APIKeyEnv
	cfg.Engine, cfg.BaseURLs, cfg.APIKeyEnv = scoring.EngineOffline, nil, ""
	if keyEnv != "" && getenv(keyEnv) != "" {
		cfg.APIKeyEnv = keyEnv
	}
	c, err := scoring.NewClient(cfg, getenv)
	return c, cfg, err
}

// ExportBatch writes the job's unanswered prompts (those not waiting in an
// open batch) as OpenAI batch JSONL to w, custom_id the prompt's key, and
// returns how many lines it wrote.
func ExportBatch(ctx context.Context, db *store.DB, jobID int64, w io.Writer) (int, error) {
	j, err := db.Job(ctx, jobID)
	if err != nil {
		return 0, err
	}
	c, _, err := offlineClient(j, func(string) string { return "" })
	if err != nil {
		return 0, err
	}
	n, after := 0, 0
	for {
		page, err := db.UnbatchedPrompts(ctx, jobID, after, batchPageSize)
		if err != nil || len(page) == 0 {
			return n, err
		}
		for _, p := range page {
			ln, err := batchLine(j, c, p)
			if err != nil {
				return n, fmt.Errorf("prompt %s: %w", p.Key, err)
			}
			if _, err := w.Write(ln); err != nil {
				return n, err
			}
			n++
		}
		after = page[len(page)-1].Seq
	}
}

// ImportReport says what an imported output file did.
type ImportReport struct {
	Lines    int // results read
	Answered int // prompts answered by this file
	Failed   int // lines carrying an error (the prompt stays re-runnable)
	Kept     int // lines for prompts answered before, left as they were
	Progress domain.JobProgress
}

// maxImportProblems bounds the problems an import refusal lists.
const maxImportProblems = 10

// ImportBatch reads an offline runner's output (OpenAI batch output JSONL)
// into a job, all or nothing: every line must be JSON, name a prompt of
// the job by its custom_id, once, and (when it names one) the job's model;
// otherwise nothing is stored and the error names each bad line. Each
// result is read and stored as a live reply would be; an answered prompt
// keeps its answer. The job then ends done, partial or failed as its
// prompts stand. getenv reads the job's API key, blanked from the errors
// stored (scoring.Client.CleanError), as a live run blanks it.
func ImportBatch(ctx context.Context, db *store.DB, jobID int64, data []byte, getenv func(string) string) (*ImportReport, error) {
	j, err := db.Job(ctx, jobID)
	if err != nil {
		return nil, err
	}
	c, cfg, err := offlineClient(j, getenv)
	if err != nil {
		return nil, err
	}
	if _, until, err := db.JobLease(ctx, jobID); err != nil {
		return nil, err
	} else if until.After(db.Now()) {
		return nil, domain.Errorf(domain.ECONFLICT, "job %d is being run by a pragmalab process; import its output when that run has stopped", jobID)
	}
	prompts, err := db.JobPromptsByKey(ctx, jobID)
	if err != nil {
		return nil, err
	}
	// A UTF-8 byte-order mark (Notepad, some runners) is read past; any
	// other encoding is named (domain.CheckEncoding).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := domain.CheckEncoding("file", data[:min(len(data), 4096)], len(data) <= 4096, false); err != nil {
		return nil, domain.Errorf(domain.EINVALID, "nothing was imported into job %d: %s", jobID, domain.ErrorMessage(err))
	}
	rep := &ImportReport{}
	var problems []string
	problem := func(n int, format string, a ...any) {
		if len(problems) < maxImportProblems {
			problems = append(problems, fmt.Sprintf("line %d: %s", n, fmt.Sprintf(format, a...)))
		} else if len(problems) == maxImportProblems {
			problems = append(problems, "…")
		}
	}
	firstLine := map[string]int{}
	var results []domain.JobResult
	err = eachLine(data, func(n int, ln []byte) error {
		var o scoring.BatchOutput
		if err := json.Unmarshal(ln, &o); err != nil {
			problem(n, "not a JSON object of the batch output format (%v)", err)
			return nil
		}
		p, ok := prompts[o.CustomID]
		switch {
		case o.CustomID == "":
			problem(n, "no custom_id")
			return nil
		case !ok:
			problem(n, "custom_id %q is not a prompt of job %d", clip(o.CustomID, 80), jobID)
			return nil
		case firstLine[o.CustomID] != 0:
			problem(n, "custom_id %q appears twice (first on line %d)", clip(o.CustomID, 80), firstLine[o.CustomID])
			return nil
		}
		firstLine[o.CustomID] = n
		if m := o.Model(); m != "" && !scoring.SameModel(m, cfg.Model) {
			problem(n, "the reply is from model %q; job %d asks %q", clip(m, 80), jobID, cfg.Model)
			return nil
		}
		if err := o.CheckLogprobs(); err != nil {
			problem(n, "%s", clip(c.CleanError(err), 200))
			return nil
		}
		rep.Lines++
		if p.Answer != nil {
			rep.Kept++
			return nil
		}
		res := resultOf(j, c, p.JobPrompt, o)
		if res.Answer != nil {
			rep.Answered++
		} else {
			rep.Failed++
		}
		results = append(results, res)
		return nil
	})
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "reading the file: %s", err)
	}
	if len(problems) > 0 {
		return nil, domain.Errorf(domain.EINVALID, "nothing was imported into job %d: %s", jobID, strings.Join(problems, "; "))
	}
	if rep.Lines == 0 {
		return nil, domain.Errorf(domain.EINVALID, "nothing was imported into job %d: the file has no result lines", jobID)
	}
	if err := db.SaveJobResults(ctx, jobID, results); err != nil {
		return nil, err
	}
	if rep.Progress, err = db.JobProgress(ctx, jobID); err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("Imported %d results from an offline runner: %d answered, %d failed, %d for prompts answered before (kept).", rep.Lines, rep.Answered, rep.Failed, rep.Kept)
	if p := rep.Progress; p.Answered < p.Total {
		msg += fmt.Sprintf(" %d prompts have no answer: export them again with pragmalab score --job %d --export-batch FILE.", p.Total-p.Answered, jobID)
	}
	return rep, db.SetJobStatus(ctx, jobID, store.FinalStatus(rep.Progress), msg)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
