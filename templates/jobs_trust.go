package templates

import (
	"strings"

	"pragmalab/domain"
)

// ConfigRow is one field of a job's endpoint configuration as shown.
type ConfigRow struct {
	Label, Value string
}

// PromptRow is one prompt in the paged list of a job's page.
type PromptRow struct {
	Seq      int
	Key      string
	Text     string
	State    string // answered, failed, pending
	Answer   string // P(True), letter or reply, shortened
	Error    string
	Attempts int
}

// PromptPage is one page of a job's prompt list with its filter.
type PromptPage struct {
	Filter  string
	Filters []PromptFilter
	Rows    []PromptRow
	Page    int // 1-based
	Pages   int
	Total   int // prompts the filter keeps
	First   int // 1-based position of the first row shown
	PrevURL string
	NextURL string
}

// PromptFilter is a link to one filter of the prompt list.
type PromptFilter struct {
	Label, URL string
	Count      int
	Current    bool
}

// ItemLevel is the item-level agreement with humans and the option-order
// bias of a True/False job, formatted.
type ItemLevel struct {
	OrderBias string // "" when no item was asked in both orders
	Trigger   string // "" without a crowd study
	AllConds  string
}

// OutputsForm offers to send a generation job's outputs to an
// explanation-rating study.
type OutputsForm struct {
	Studies []Choice
	To      string
}

// JobTrust is what a job's page says beyond its metrics: why prompts
// failed, what was not asked, where the numbers stand (docs/scoring.md#jobs).
type JobTrust struct {
	Reasons   []domain.FailureReason
	Unasked   int
	Unparsed  string
	Config    []ConfigRow
	Prompts   *PromptPage
	ItemLevel *ItemLevel
	Outputs   *OutputsForm
}

func statusClass(s string) string {
	switch s {
	case domain.JobFailed, domain.JobPartial:
		return "error"
	}
	return ""
}

// keyLabel shows a prompt key ("x003|trigger|TF") with spaces, so a narrow
// column wraps between its parts rather than inside a word.
func keyLabel(key string) string { return strings.ReplaceAll(key, "|", " | ") }
