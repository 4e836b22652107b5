package prolific

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The study's life on Prolific, messages and webhooks (docs/prolific.md).

// Study statuses as Prolific spells them.
const (
	StudyUnpublished = "UNPUBLISHED"
	StudyActive      = "ACTIVE"
	StudyPaused      = "PAUSED"
	StudyCompleted   = "COMPLETED"
)

// Study transitions: the actions of POST /api/v1/studies/{id}/transition/.
const (
	ActionPublish = "PUBLISH"
	ActionPause   = "PAUSE"
	ActionStart   = "START" // resumes a paused study
)

// TransitionTarget is the status a study transition leads to.
func TransitionTarget(action string) string {
	switch action {
	case ActionPublish, ActionStart:
		return StudyActive
	case ActionPause:
		return StudyPaused
	}
	return ""
}

// TransitionStudy publishes, pauses or resumes a study and returns it as
// Prolific answers.
func (c *Client) TransitionStudy(ctx context.Context, studyID, action string) (*Study, error) {
	if !validID(studyID) {
		return nil, fmt.Errorf("%q is not a Prolific study id (24 hexadecimal characters)", studyID)
	}
	if TransitionTarget(action) == "" {
		return nil, fmt.Errorf("unknown study transition %q", action)
	}
	var s Study
	if err := c.do(ctx, http.MethodPost, "/api/v1/studies/"+studyID+"/transition/", map[string]string{"action": action}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// SetPlaces sets a study's total places (Prolific allows only increases
// once it is published). The number is absolute, so sending it twice
// changes nothing the second time.
func (c *Client) SetPlaces(ctx context.Context, studyID string, places int) (*Study, error) {
	if !validID(studyID) {
		return nil, fmt.Errorf("%q is not a Prolific study id (24 hexadecimal characters)", studyID)
	}
	var s Study
	if err := c.do(ctx, http.MethodPatch, "/api/v1/studies/"+studyID+"/", map[string]int{"total_available_places": places}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// StudyCost asks Prolific what a study of reward (cents or pence) × places
// costs with its fees and VAT, in cents.
func (c *Client) StudyCost(ctx context.Context, reward, places int) (int, error) {
	var out struct {
		TotalCost float64 `json:"total_cost"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/v1/study-cost-calculator/",
		map[string]int{"reward": reward, "total_available_places": places}, &out); err != nil {
		return 0, err
	}
	return int(out.TotalCost + 0.5), nil
}

// ScreenOut moves a submission to SCREENED OUT: Prolific's transition
// "COMPLETE" with the study's screen-out code, which pays the fixed
// screen-out payment. Prolific makes the transition idempotent.
func (c *Client) ScreenOut(ctx context.Context, submissionID, code string) error {
	return c.do(ctx, http.MethodPost, "/api/v1/submissions/"+url.PathEscape(submissionID)+"/transition/",
		map[string]string{"action": "COMPLETE", "completion_code": code}, nil)
}

// MaxMessage bounds a message's length (pragmalab's own guard).
const MaxMessage = 5000

// SendMessage writes to one participant about a study.
func (c *Client) SendMessage(ctx context.Context, studyID, participantID, body string) error {
	return c.do(ctx, http.MethodPost, "/api/v1/messages/",
		map[string]string{"recipient_id": participantID, "study_id": studyID, "body": body}, nil)
}

// BulkMessage writes the same message to several participants of a study.
func (c *Client) BulkMessage(ctx context.Context, studyID string, participantIDs []string, body string) error {
	return c.do(ctx, http.MethodPost, "/api/v1/messages/bulk/",
		map[string]any{"ids": participantIDs, "study_id": studyID, "body": body}, nil)
}

// Webhook event types pragmalab subscribes to.
const (
	EventSubmissionStatus = "submission.status.change"
	EventStudyStatus      = "study.status.change"
)

// HookEvents are the event types `pragmalab prolific hooks` subscribes to.
var HookEvents = []string{EventSubmissionStatus, EventStudyStatus}

// Subscription is a hook subscription on Prolific.
type Subscription struct {
	ID          string `json:"id"`
	EventType   string `json:"event_type"`
	TargetURL   string `json:"target_url"`
	IsEnabled   bool   `json:"is_enabled"`
	WorkspaceID string `json:"workspace_id"`
}

// Workspace returns the workspace a study belongs to, through its project.
func (c *Client) Workspace(ctx context.Context, studyID string) (string, error) {
	var s struct {
		Project string `json:"project"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/studies/"+studyID+"/", nil, &s); err != nil {
		return "", err
	}
	if s.Project == "" {
		return "", errors.New("the Prolific study names no project, so its workspace is unknown")
	}
	var p struct {
		Workspace string `json:"workspace"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/projects/"+url.PathEscape(s.Project)+"/", nil, &p); err != nil {
		return "", err
	}
	if p.Workspace == "" {
		return "", errors.New("the Prolific project names no workspace")
	}
	return p.Workspace, nil
}

// Subscriptions lists a workspace's hook subscriptions.
func (c *Client) Subscriptions(ctx context.Context, workspaceID string) ([]Subscription, error) {
	var out struct {
		Results []Subscription `json:"results"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/hooks/subscriptions/?workspace_id="+url.QueryEscape(workspaceID), nil, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}

// Subscribe subscribes a target URL to an event type and confirms the
// subscription with the X-Hook-Secret Prolific answers with.
func (c *Client) Subscribe(ctx context.Context, workspaceID, eventType, target string) (*Subscription, error) {
	var s Subscription
	hdr, err := c.doHeader(ctx, http.MethodPost, "/api/v1/hooks/subscriptions/",
		map[string]string{"workspace_id": workspaceID, "event_type": eventType, "target_url": target}, &s)
	if err != nil {
		return nil, err
	}
	if s.ID == "" {
		return nil, errors.New("the Prolific API created the subscription but gave no id")
	}
	if secret := hdr.Get("X-Hook-Secret"); secret != "" {
		if err := c.do(ctx, http.MethodPost, "/api/v1/hooks/subscriptions/"+url.PathEscape(s.ID)+"/",
			map[string]string{"secret": secret}, nil); err != nil {
			return &s, fmt.Errorf("confirming subscription %s: %w", s.ID, err)
		}
	}
	return &s, nil
}

// Unsubscribe removes a subscription; removing one already gone is not an
// error.
func (c *Client) Unsubscribe(ctx context.Context, id string) error {
	err := c.do(ctx, http.MethodDelete, "/api/v1/hooks/subscriptions/"+url.PathEscape(id)+"/", nil, nil)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil
	}
	return err
}

// Webhook verification (docs/prolific.md#webhooks).
const (
	// WebhookSecretEnv holds the workspace's hook secret.
	WebhookSecretEnv = "PRAGMALAB_PROLIFIC_WEBHOOK_SECRET"
	// MaxWebhookBody is the largest delivery accepted.
	MaxWebhookBody = 64 << 10
	// WebhookWindow is how far a delivery's timestamp may be from now.
	WebhookWindow = 5 * time.Minute
)

// Errors of VerifyWebhook.
var (
	ErrNoWebhookSecret = errors.New("webhooks are not set up: " + WebhookSecretEnv + " is not set")
	ErrBadSignature    = errors.New("the delivery's signature does not match")
	ErrStaleDelivery   = errors.New("the delivery's timestamp is more than 5 minutes from now")
)

// SignWebhook is the signature Prolific sends: base64 of HMAC-SHA256, keyed
// with the secret, over the timestamp followed by the raw body.
func SignWebhook(secret, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// VerifyWebhook checks a delivery: the signature first, in constant time,
// then the timestamp (UNIX seconds) within WebhookWindow of now.
func VerifyWebhook(secret, timestamp, signature string, body []byte, now time.Time) error {
	if secret == "" {
		return ErrNoWebhookSecret
	}
	want := SignWebhook(secret, timestamp, body)
	if !hmac.Equal([]byte(want), []byte(strings.TrimSpace(signature))) {
		return ErrBadSignature
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(timestamp), 10, 64)
	if err != nil {
		return ErrStaleDelivery
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WebhookWindow || d < -WebhookWindow {
		return ErrStaleDelivery
	}
	return nil
}
