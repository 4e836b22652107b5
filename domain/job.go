package domain

import (
	"encoding/json"
	"time"
	"unicode/utf8"
)

// Job statuses. A queued or running job is picked up by the runner (again
// after a restart); done, partial, failed and cancelled jobs are left
// alone. A job ends done only when every prompt has an answer: partial
// when some prompts failed or were not asked, failed when none has one
// (FinalStatus).
const (
	JobQueued    = "queued"
	JobRunning   = "running"
	JobDone      = "done"
	JobPartial   = "partial"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
)

// Job is a model-scoring job (docs/scoring.md#jobs). Config is the scorer's
// configuration as JSON, holding the name of the API-key variable but never
// a key.
type Job struct {
	ID             int64
	StudyID        int64
	Task           string
	Scorer         string
	Config         json.RawMessage
	Strategy       string
	Seed           int64
	CompareStudyID int64 // 0: no human comparison
	Status         string
	Error          string
	CreatedAt      time.Time
	StartedAt      time.Time
	FinishedAt     time.Time
}

// Active reports whether the job is queued or running: the runner has it.
func (j *Job) Active() bool { return j.Status == JobQueued || j.Status == JobRunning }

// MaxJobConfig bounds a job's scorer configuration (JSON bytes).
const MaxJobConfig = 16 << 10

// Validate checks a job before it is stored.
func (j *Job) Validate() error {
	switch j.Task {
	case "truefalse", "multiplechoice", "generation", "likert", "expert", "context", "explanation-rating":
	default:
		return Errorf(EINVALID, "task must be truefalse, multiplechoice, generation, likert, expert, context or explanation-rating")
	}
	if j.Scorer == "" || utf8.RuneCountInString(j.Scorer) > 64 {
		return Errorf(EINVALID, "scorer must be 1–64 characters")
	}
	if len(j.Config) == 0 {
		j.Config = json.RawMessage(`{}`)
	}
	if len(j.Config) > MaxJobConfig || !json.Valid(j.Config) {
		return Errorf(EINVALID, "the scorer configuration must be JSON of at most %d bytes", MaxJobConfig)
	}
	if err := CheckText("strategy", j.Strategy, 32, OneLine); err != nil {
		return err
	}
	return nil
}

// JobPrompt is one prompt of a job, fixed when the job is created.
type JobPrompt struct {
	Seq       int
	Key       string
	ItemKey   string
	Condition string
	Order     string
	Text      string
}

// JobResult is what came back for one prompt: an answer (JSON) or an error.
type JobResult struct {
	Seq    int
	Answer json.RawMessage // nil when Error is set
	Error  string
	// Transient marks an error on the endpoints' account (not stored; the
	// runner counts them to stop a job whose endpoints are all down).
	Transient bool
}

// JobPromptRow is a stored prompt with its answer or error.
type JobPromptRow struct {
	JobPrompt
	Answer     json.RawMessage // nil until answered
	Error      string
	Attempts   int
	AnsweredAt time.Time
}

// JobProgress counts a job's prompts.
type JobProgress struct {
	Total    int `json:"total"`
	Answered int `json:"answered"`
	Failed   int `json:"failed"` // unanswered prompts whose last attempt failed
}

// Unasked counts the prompts with neither an answer nor an error.
func (p JobProgress) Unasked() int { return p.Total - p.Answered - p.Failed }

// FailureReason is one distinct error of a job's failed prompts, with how
// many prompts it failed and the first of them.
type FailureReason struct {
	Error   string
	Prompts int
	First   string // key of the first prompt it failed
}

// Prompt filters of a job's prompts page.
const (
	PromptsAll      = ""
	PromptsAnswered = "answered"
	PromptsFailed   = "failed"
	PromptsPending  = "pending"
)
