// Package prolific is a small client of Prolific's public API: the calls
// pragmalab makes to read a study's submissions and to approve, reject and
// pay its participants (docs/prolific.md). It knows nothing of the store:
// recording each call before it is sent, so that no retry pays twice, is
// the caller's part (recruit.Service).
package prolific

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"pragmalab/domain"
)

// The environment variables the client reads. The token is never stored,
// logged or shown; the base URL may point at a proxy or a test server.
const (
	TokenEnv = "PRAGMALAB_PROLIFIC_TOKEN"
	APIEnv   = "PRAGMALAB_PROLIFIC_API"
)

// DefaultBaseURL is Prolific's API.
const DefaultBaseURL = "https://api.prolific.com"

// Errors a researcher can act on; the client wraps them with what it was
// doing.
var (
	ErrNoToken      = errors.New("no Prolific API token: set " + TokenEnv + " in the server's environment")
	ErrBadToken     = errors.New("the Prolific API refused the token (check " + TokenEnv + ")")
	ErrUnknownStudy = errors.New("the Prolific API knows no study with this id")
)

// Submission statuses as Prolific spells them.
const (
	StatusActive         = "ACTIVE"
	StatusAwaitingReview = "AWAITING REVIEW"
	StatusApproved       = "APPROVED"
	StatusRejected       = "REJECTED"
	StatusReturned       = "RETURNED"
	StatusTimedOut       = "TIMED-OUT"
	StatusScreenedOut    = "SCREENED OUT"
)

// NormalizeStatus maps the spellings Prolific uses in different places
// (AWAITING_REVIEW, awaiting review, TIMED_OUT) onto the constants.
func NormalizeStatus(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	switch strings.NewReplacer("_", " ", "-", " ").Replace(s) {
	case "AWAITING REVIEW":
		return StatusAwaitingReview
	case "TIMED OUT":
		return StatusTimedOut
	case "SCREENED OUT":
		return StatusScreenedOut
	}
	return s
}

// FreesSlot reports whether a submission of this status has left the
// study for good, so its batch slot can go to someone else.
func FreesSlot(status string) bool {
	s := NormalizeStatus(status)
	return s == StatusReturned || s == StatusTimedOut
}

// RejectionCategories are the categories Prolific accepts with a
// rejection.
var RejectionCategories = []string{
	"TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL",
	"FAILED_CHECK", "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE",
	"NO_DATA", "UNSUPP_DEVICE", "OTHER",
}

// MinRejectMessage is the shortest rejection message Prolific accepts.
const MinRejectMessage = 100

// Client calls the API with a token.
type Client struct {
	base  string
	token string
	hc    *http.Client
}

// New returns a client configured from the environment: the token from
// PRAGMALAB_PROLIFIC_TOKEN (ErrNoToken without one) and the base URL from
// PRAGMALAB_PROLIFIC_API, or Prolific's own.
func New(getenv func(string) string, hc *http.Client) (*Client, error) {
	token := strings.TrimSpace(getenv(TokenEnv))
	if token == "" {
		return nil, ErrNoToken
	}
	base := strings.TrimRight(strings.TrimSpace(getenv(APIEnv)), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s %q is not an http(s) URL", APIEnv, base)
	}
	if hc == nil {
		hc = NewHTTPClient(getenv)
	}
	return &Client{base: base, token: token, hc: hc}, nil
}

// NewHTTPClient is the HTTP client of calls to Prolific: a 30-second
// time-out and the environment's proxy (HTTPS_PROXY, NO_PROXY) read
// through getenv, like every outgoing request of pragmalab. A caller that
// makes many clients shares one, so its connections are reused.
func NewHTTPClient(getenv func(string) string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = domain.ProxyForRequest(getenv)
	return &http.Client{Timeout: 30 * time.Second, Transport: tr}
}

// BaseURL is the API the client talks to (shown on the page; never the
// token).
func (c *Client) BaseURL() string { return c.base }

// APIError is an answer other than 2xx; Body is cut and never holds the
// token.
type APIError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("Prolific answered %s %s with %d: %s", e.Method, e.Path, e.Status, e.Body)
}

// maxErrorBody bounds what an error keeps of a response body.
const maxErrorBody = 300

// do sends one request with a JSON body (nil for none) and decodes a JSON
// answer into out (nil to ignore it).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	_, err := c.doHeader(ctx, method, path, body, out)
	return err
}

// doHeader is do that also returns the answer's headers.
func (c *Client) doHeader(ctx context.Context, method, path string, body, out any) (http.Header, error) {
	h, data, err := c.doRaw(ctx, method, path, body)
	if err != nil || out == nil || len(bytes.TrimSpace(data)) == 0 {
		return h, err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("prolific API %s %s: unreadable answer: %w", method, path, err)
	}
	return h, nil
}

// doRaw sends one request with a JSON body (nil for none) and returns the
// answer's headers and its body, the token's runs blanked.
func (c *Client) doRaw(ctx context.Context, method, path string, body any) (http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		u = c.base + path
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Token "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		// The transport error may quote the URL, never the header.
		return nil, nil, fmt.Errorf("prolific API %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("prolific API %s %s: reading the answer: %w", method, path, err)
	}
	// Whatever Prolific sends back is shown and stored: any 8-character
	// run of the token in it is blanked first — the whole of an error
	// body, and every text of an answer but the ids pragmalab matches on
	// (redactAnswer), which a weak token may share a run with.
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, c.apiError(method, path, resp.StatusCode, []byte(domain.Redact(string(data), c.token)))
	}
	return resp.Header, redactAnswer(data, c.token), nil
}

// redactAnswer blanks the token's runs (domain.Redact) in every string of
// a JSON answer except the values of ids — "id", "…_id", "…_ids" — which
// are Prolific's own random ids, never an echo of the token, and which
// pragmalab matches submissions and studies on. An answer that is not
// JSON is redacted whole.
func redactAnswer(data []byte, token string) []byte {
	if domain.Redact(string(data), token) == string(data) {
		return data
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return []byte(domain.Redact(string(data), token))
	}
	out, err := json.Marshal(redactValue(v, false, token))
	if err != nil {
		return []byte(domain.Redact(string(data), token))
	}
	return out
}

func redactValue(v any, id bool, token string) any {
	switch x := v.(type) {
	case string:
		if id {
			return x
		}
		return domain.Redact(x, token)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], id, token)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = redactValue(e, idKey(k), token)
		}
	}
	return v
}

// idKey reports a JSON key whose value is an id (or a list of ids).
func idKey(k string) bool {
	k = strings.ToLower(k)
	return k == "id" || k == "ids" || strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "_ids")
}

func (c *Client) apiError(method, path string, status int, body []byte) error {
	text := strings.TrimSpace(string(body))
	if r := []rune(text); len(r) > maxErrorBody {
		text = string(r[:maxErrorBody]) + "…"
	}
	e := &APIError{Method: method, Path: path, Status: status, Body: text}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("%w: %w", ErrBadToken, e)
	}
	return e
}

// Study is what pragmalab reads of a Prolific study.
type Study struct {
	ID                   string `json:"id"`
	Name                 string `json:"name"`
	InternalName         string `json:"internal_name,omitempty"`
	Status               string `json:"status"`
	ExternalStudyURL     string `json:"external_study_url"`
	TotalAvailablePlaces int    `json:"total_available_places"`
	Reward               int    `json:"reward"`
	// CompletionCodes are the study's codes and what Prolific does with
	// each (a FIXED_SCREENOUT code pays the screen-out payment).
	CompletionCodes []CompletionCode `json:"completion_codes,omitempty"`
}

// PaysScreenOut reports whether the study has code as a FIXED_SCREENOUT
// completion code: the study uses Prolific's screen-out with payment.
func (s *Study) PaysScreenOut(code string) bool {
	for _, c := range s.CompletionCodes {
		if code != "" && c.Code == code && c.CodeType == "FIXED_SCREENOUT" {
			return true
		}
	}
	return false
}

// Study reads a study; ErrUnknownStudy when Prolific has none by that id.
func (c *Client) Study(ctx context.Context, id string) (*Study, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%q is not a Prolific study id (24 hexadecimal characters)", id)
	}
	var s Study
	err := c.do(ctx, http.MethodGet, "/api/v1/studies/"+id+"/", nil, &s)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil, fmt.Errorf("%w (%s)", ErrUnknownStudy, id)
	}
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// Submission is one participant's place in a Prolific study.
type Submission struct {
	ID            string    `json:"id"`
	ParticipantID string    `json:"participant_id"`
	Participant   string    `json:"participant"` // the name the single-submission answers use
	Status        string    `json:"status"`
	StartedAt     string    `json:"started_at"`
	CompletedAt   string    `json:"completed_at"`
	EnteredCode   string    `json:"entered_code"`
	StudyID       string    `json:"study_id"`
	BonusPayments []float64 `json:"bonus_payments"`
}

// PID is the participant's Prolific id, whichever key the answer used.
func (s Submission) PID() string {
	if s.ParticipantID != "" {
		return s.ParticipantID
	}
	return s.Participant
}

// page is one page of a Prolific list: its results and the link to the
// next page ("" on the last).
type page[T any] struct {
	Results []T `json:"results"`
	Links   struct {
		Next struct {
			Href string `json:"href"`
		} `json:"next"`
	} `json:"_links"`
}

// maxPages bounds the pages read of one list (at 100 a page, 100,000
// submissions), so a server that always answers "next" cannot loop.
const maxPages = 1000

// listAll reads every page of the list at first and returns their
// results in order; what names the items in the error past maxPages. A
// next page off the configured API is refused: the token is sent only
// there.
func listAll[T any](ctx context.Context, c *Client, first, what string) ([]T, error) {
	next := first
	var out []T
	for range maxPages {
		var p page[T]
		if err := c.do(ctx, http.MethodGet, next, nil, &p); err != nil {
			return nil, err
		}
		out = append(out, p.Results...)
		if p.Links.Next.Href == "" {
			return out, nil
		}
		if !c.sameAPI(p.Links.Next.Href) {
			return nil, fmt.Errorf("the Prolific API's next page %q is not on %s", p.Links.Next.Href, c.base)
		}
		next = p.Links.Next.Href
	}
	return nil, fmt.Errorf("the Prolific API listed more than %d pages of %s", maxPages, what)
}

// Submissions reads every submission of a study, following the pages.
func (c *Client) Submissions(ctx context.Context, studyID string) ([]Submission, error) {
	if !validID(studyID) {
		return nil, fmt.Errorf("%q is not a Prolific study id (24 hexadecimal characters)", studyID)
	}
	out, err := listAll[Submission](ctx, c, "/api/v1/studies/"+studyID+"/submissions/?page_size=100", "submissions")
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return nil, fmt.Errorf("%w (%s)", ErrUnknownStudy, studyID)
		}
		return nil, err
	}
	for i := range out {
		out[i].Status = NormalizeStatus(out[i].Status)
	}
	return out, nil
}

// sameAPI reports whether a link Prolific gave stays on the API the client
// was configured for: the token is sent only there.
func (c *Client) sameAPI(link string) bool {
	u, err := url.Parse(link)
	if err != nil {
		return false
	}
	b, _ := url.Parse(c.base)
	return u.Scheme == b.Scheme && u.Host == b.Host
}

// Submission reads one submission.
func (c *Client) Submission(ctx context.Context, id string) (*Submission, error) {
	var s Submission
	if err := c.do(ctx, http.MethodGet, "/api/v1/submissions/"+url.PathEscape(id)+"/", nil, &s); err != nil {
		return nil, err
	}
	s.Status = NormalizeStatus(s.Status)
	return &s, nil
}

// Approve approves one submission.
func (c *Client) Approve(ctx context.Context, submissionID string) error {
	return c.do(ctx, http.MethodPost, "/api/v1/submissions/"+url.PathEscape(submissionID)+"/transition/",
		map[string]string{"action": "APPROVE"}, nil)
}

// Reject rejects one submission with a category and a message of at least
// MinRejectMessage characters, both checked before anything is sent.
func (c *Client) Reject(ctx context.Context, submissionID, category, message string) error {
	if err := CheckRejection(category, message); err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, "/api/v1/submissions/"+url.PathEscape(submissionID)+"/transition/",
		map[string]string{"action": "REJECT", "rejection_category": category, "message": message}, nil)
}

// CheckRejection checks a rejection's category and message as Prolific
// will.
func CheckRejection(category, message string) error {
	known := false
	for _, c := range RejectionCategories {
		known = known || c == category
	}
	if !known {
		return fmt.Errorf("rejection category %q is not one of %s", category, strings.Join(RejectionCategories, ", "))
	}
	if n := len([]rune(strings.TrimSpace(message))); n < MinRejectMessage {
		return fmt.Errorf("the rejection message has %d characters; Prolific needs at least %d", n, MinRejectMessage)
	}
	return nil
}

// BulkApprove approves several submissions in one call.
func (c *Client) BulkApprove(ctx context.Context, submissionIDs []string) error {
	return c.do(ctx, http.MethodPost, "/api/v1/submissions/bulk-approve/",
		map[string][]string{"submission_ids": submissionIDs}, nil)
}

// BonusSetup is Prolific's answer to setting up bonuses: nothing is paid
// until Pay is called with its ID.
type BonusSetup struct {
	ID          string  `json:"id"`
	Study       string  `json:"study"`
	Amount      float64 `json:"amount"`
	Fees        float64 `json:"fees"`
	VAT         float64 `json:"vat"`
	TotalAmount float64 `json:"total_amount"`
}

// SetUpBonuses sets up bonus payments: csv holds one "participant_id,amount"
// line per bonus, amounts in the study's currency.
func (c *Client) SetUpBonuses(ctx context.Context, studyID, csv string) (*BonusSetup, error) {
	var b BonusSetup
	if err := c.do(ctx, http.MethodPost, "/api/v1/submissions/bonus-payments/",
		map[string]string{"study_id": studyID, "csv_bonuses": csv}, &b); err != nil {
		return nil, err
	}
	if b.ID == "" {
		return nil, errors.New("the Prolific API set up the bonuses but gave no id to pay them with")
	}
	return &b, nil
}

// PayBonuses pays bonuses set up before. Prolific does not make this call
// idempotent: the caller must never send it twice for one setup.
func (c *Client) PayBonuses(ctx context.Context, setupID string) error {
	return c.do(ctx, http.MethodPost, "/api/v1/bulk-bonus-payments/"+url.PathEscape(setupID)+"/pay/", struct{}{}, nil)
}

// DraftStudy is what pragmalab sends to create a study on Prolific as a
// draft: the researcher publishes it there.
type DraftStudy struct {
	Name                    string           `json:"name"`
	InternalName            string           `json:"internal_name,omitempty"`
	Description             string           `json:"description"`
	ExternalStudyURL        string           `json:"external_study_url"`
	ProlificIDOption        string           `json:"prolific_id_option"`
	CompletionCodes         []CompletionCode `json:"completion_codes"`
	TotalAvailablePlaces    int              `json:"total_available_places"`
	EstimatedCompletionTime int              `json:"estimated_completion_time"`
	Reward                  int              `json:"reward"`
	DeviceCompatibility     []string         `json:"device_compatibility"`
	// Filters is the study's screening (filters.go); none: everybody.
	Filters []Filter `json:"filters,omitempty"`
}

// CompletionCode is a code participants return with, and what Prolific
// does then.
type CompletionCode struct {
	Code     string       `json:"code"`
	CodeType string       `json:"code_type"`
	Actions  []CodeAction `json:"actions"`
}

// CodeAction is one action of a completion code.
type CodeAction struct {
	Action string `json:"action"`
}

// CreateDraftStudy creates a draft study and returns it.
func (c *Client) CreateDraftStudy(ctx context.Context, d DraftStudy) (*Study, error) {
	var s Study
	if err := c.do(ctx, http.MethodPost, "/api/v1/studies/", d, &s); err != nil {
		return nil, err
	}
	if s.ID == "" {
		return nil, errors.New("the Prolific API created the study but gave no id")
	}
	return &s, nil
}

// ParticipantGroup is a named group of participants that studies can
// include or exclude.
type ParticipantGroup struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// CreateParticipantGroup creates a group in a workspace.
func (c *Client) CreateParticipantGroup(ctx context.Context, workspaceID, name string) (*ParticipantGroup, error) {
	var g ParticipantGroup
	if err := c.do(ctx, http.MethodPost, "/api/v1/participant-groups/",
		map[string]string{"workspace_id": workspaceID, "name": name}, &g); err != nil {
		return nil, err
	}
	if g.ID == "" {
		return nil, errors.New("the Prolific API created the participant group but gave no id")
	}
	return &g, nil
}

// AddToParticipantGroup adds participants to a group; adding one already
// there changes nothing.
func (c *Client) AddToParticipantGroup(ctx context.Context, groupID string, pids []string) error {
	return c.do(ctx, http.MethodPost, "/api/v1/participant-groups/"+url.PathEscape(groupID)+"/participants/",
		map[string][]string{"participant_ids": pids}, nil)
}

// validID reports whether s has the shape of a Prolific id: 24 hexadecimal
// characters.
func validID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// ValidID reports whether s has the shape of a Prolific id.
func ValidID(s string) bool { return validID(s) }
