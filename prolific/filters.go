package prolific

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Screening: Prolific's filters, the eligible count and a submission's
// return request (docs/prolific.md#screening). Shapes from Prolific's
// OpenAPI (Filters: FilterList, SelectFilter, RangeFilter,
// RequirementsCount; Submissions: request-submission-return).

// Filter types as GET /api/v1/filters/ names them.
const (
	FilterSelect = "select"
	FilterRange  = "range"
)

// FilterDef is one filter Prolific offers: a select filter's choices map
// Prolific's choice ids to their text; a range filter has its bounds.
type FilterDef struct {
	FilterID string         `json:"filter_id"`
	Title    string         `json:"title"`
	Type     string         `json:"type"`
	Choices  map[string]any `json:"choices"`
	DataType string         `json:"data_type"`
	Min      any            `json:"min"`
	Max      any            `json:"max"`
}

// ChoiceText is the text of a select filter's choice.
func (f FilterDef) ChoiceText(id string) string {
	switch v := f.Choices[id].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// Filter is one filter of a study's screening, as the study's `filters`
// and the eligibility count take it: a select filter with its choice ids,
// or a range filter with its bounds.
type Filter struct {
	FilterID       string   `json:"filter_id"`
	SelectedValues []string `json:"selected_values,omitempty"`
	SelectedRange  *Range   `json:"selected_range,omitempty"`
}

// Range is a range filter's selected bounds (numbers).
type Range struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// Filters lists the filters Prolific offers (GET /api/v1/filters/, every
// page).
func (c *Client) Filters(ctx context.Context) ([]FilterDef, error) {
	return listAll[FilterDef](ctx, c, "/api/v1/filters/", "filters")
}

// EligibleCount asks how many participants pass every filter (POST
// /api/v1/eligibility-count/). Prolific answers 0 for fewer than 25.
func (c *Client) EligibleCount(ctx context.Context, filters []Filter) (int, error) {
	if filters == nil {
		filters = []Filter{}
	}
	var out struct {
		Count float64 `json:"count"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/v1/eligibility-count/", map[string]any{"filters": filters}, &out); err != nil {
		return 0, err
	}
	return int(out.Count), nil
}

// ReturnRequested is Prolific's answer to a return request.
type ReturnRequested struct {
	ID              string     `json:"id"`
	Status          string     `json:"status"`
	Participant     string     `json:"participant"`
	ReturnRequested *time.Time `json:"return_requested"`
}

// RequestReturn asks the participant of a submission to return it (POST
// /api/v1/submissions/{id}/request-return/): Prolific messages them with
// the reasons.
func (c *Client) RequestReturn(ctx context.Context, submissionID string, reasons []string) (*ReturnRequested, error) {
	if submissionID == "" || strings.ContainsAny(submissionID, "/?#") {
		return nil, fmt.Errorf("%q is not a Prolific submission id", submissionID)
	}
	if len(reasons) == 0 || strings.TrimSpace(strings.Join(reasons, "")) == "" {
		return nil, fmt.Errorf("a return request needs a reason")
	}
	var out ReturnRequested
	if err := c.do(ctx, http.MethodPost, "/api/v1/submissions/"+submissionID+"/request-return/", map[string]any{"request_return_reasons": reasons}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
