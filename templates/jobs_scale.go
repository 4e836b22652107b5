package templates

// EstimateRow is the size and cost of one job before it runs (or of what
// it has left to ask), formatted.
type EstimateRow struct {
	Model, Engine, Prompts, Requests, InputTokens, OutputTokens, Live, Batch string
}

// BatchRow is one batch of a job sent to a batch engine.
type BatchRow struct {
	ID       string // the engine's batch id ("" until it is created)
	State    string
	Prompts  int
	Answered int
	Failed   int
	Message  string
	Updated  string
}

// JobScale is what a job's page shows of its engine, its size and cost
// left, and its batches.
type JobScale struct {
	Engine    string
	Estimate  *EstimateRow
	TokenRule string
	Batches   []BatchRow
}
