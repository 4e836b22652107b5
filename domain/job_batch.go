package domain

import "time"

// Batch states of a scoring job's batch (docs/scoring.md#openai-batch-api):
// recorded before its file is uploaded (preparing), with its file id
// (uploaded), with the engine's batch id (submitted), and once its results
// are stored (collected).
const (
	BatchPreparing = "preparing"
	BatchUploaded  = "uploaded"
	BatchSubmitted = "submitted"
	BatchCollected = "collected"
)

// JobBatch is one batch of a job's prompts sent to a batch engine.
type JobBatch struct {
	ID           int64
	JobID        int64
	BaseURL      string
	State        string
	InputFileID  string
	BatchID      string
	RemoteStatus string
	Prompts      int
	Answered     int
	Failed       int
	Message      string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Open reports whether the batch's results are still to be collected.
func (b *JobBatch) Open() bool { return b.State != BatchCollected }
