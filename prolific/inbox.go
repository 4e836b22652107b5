package prolific

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Participants' messages to the researcher and test participants
// (docs/prolific.md#inbound-messages). Shapes from Prolific's OpenAPI
// (Messages: Message, MessageData; Users:
// CreateTestParticipantForResearcher).

// InMessage is one message received from a participant.
type InMessage struct {
	ID       string    `json:"id"`
	SenderID string    `json:"sender_id"`
	Body     string    `json:"body"`
	SentAt   time.Time `json:"sent_at"`
	Data     struct {
		StudyID  string `json:"study_id"`
		Category string `json:"category"`
	} `json:"data"`
}

type messagesPage struct {
	Results []InMessage `json:"results"`
}

// MessagesSince lists the messages received since a time (GET
// /api/v1/messages/?created_after=…; Prolific keeps the last 30 days).
func (c *Client) MessagesSince(ctx context.Context, since time.Time) ([]InMessage, error) {
	var p messagesPage
	err := c.do(ctx, http.MethodGet, "/api/v1/messages/?created_after="+url.QueryEscape(since.UTC().Format(time.RFC3339)), nil, &p)
	return p.Results, err
}

// UnreadMessages lists the messages not read yet (GET
// /api/v1/messages/unread/); reading them does not mark them read.
func (c *Client) UnreadMessages(ctx context.Context) ([]InMessage, error) {
	var p messagesPage
	err := c.do(ctx, http.MethodGet, "/api/v1/messages/unread/", nil, &p)
	return p.Results, err
}

// CreateTestParticipant creates a test participant with the researcher's
// details and the given email (POST /api/v1/researchers/participants/);
// Prolific enables it for some workspaces only.
func (c *Client) CreateTestParticipant(ctx context.Context, email string) (string, error) {
	var out struct {
		ParticipantID string `json:"participant_id"`
	}
	err := c.do(ctx, http.MethodPost, "/api/v1/researchers/participants/", map[string]string{"email": email}, &out)
	return out.ParticipantID, err
}
