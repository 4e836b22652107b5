package recruit

import (
	"context"
	"encoding/json"
	"errors"
	"net/mail"
	"sort"
	"strings"
	"time"

	"pragmalab/domain"
	"pragmalab/store"
)

// Participants' messages to the researcher, and test participants
// (docs/prolific.md#inbound-messages). Replies go through the existing
// sending path (PlanMessage, SendMessage).

// InboundMessage is one participant's message about the study.
type InboundMessage struct {
	ID, PID, Body, Category string
	SentAt                  time.Time
	Unread                  bool
}

// inboxDays is how far back Prolific lets messages be read.
const inboxDays = 30

// Inbox lists the messages participants sent about the linked study in
// the last 30 days — those Prolific files under the study, or from
// someone with a submission in it — unread first, newest first. Reading
// does not mark them read on Prolific.
func (p *Service) Inbox(ctx context.Context, studyID int64) ([]InboundMessage, error) {
	api, err := p.api()
	if err != nil {
		return nil, err
	}
	link, err := p.db.ProlificLink(ctx, studyID)
	if err != nil {
		return nil, err
	}
	subs, err := p.db.ProlificSubmissions(ctx, studyID)
	if err != nil {
		return nil, err
	}
	inStudy := map[string]bool{}
	for _, s := range subs {
		inStudy[strings.ToLower(s.PID)] = true
	}
	unread, err := api.UnreadMessages(ctx)
	if err != nil {
		return nil, apiErr(err)
	}
	all, err := api.MessagesSince(ctx, p.now().AddDate(0, 0, -inboxDays))
	if err != nil {
		return nil, apiErr(err)
	}
	isUnread := map[string]bool{}
	for _, m := range unread {
		isUnread[m.ID] = true
	}
	seen := map[string]bool{}
	var out []InboundMessage
	for _, m := range append(unread, all...) {
		if seen[m.ID] || !(m.Data.StudyID == link.ProlificStudyID || inStudy[strings.ToLower(m.SenderID)]) {
			continue
		}
		seen[m.ID] = true
		out = append(out, InboundMessage{ID: m.ID, PID: m.SenderID, Body: m.Body, Category: m.Data.Category, SentAt: m.SentAt, Unread: isUnread[m.ID]})
	}
	sort.SliceStable(out, func(i, k int) bool {
		if out[i].Unread != out[k].Unread {
			return out[i].Unread
		}
		return out[i].SentAt.After(out[k].SentAt)
	})
	return out, nil
}

// CreateTestParticipant creates a Prolific test participant for the
// researcher's email, to try the study as a participant. It is recorded
// once per email: asked again, it returns the participant created before.
func (p *Service) CreateTestParticipant(ctx context.Context, studyID int64, actor, email string) (string, error) {
	api, err := p.api()
	if err != nil {
		return "", err
	}
	email = strings.TrimSpace(email)
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		return "", domain.Errorf(domain.EINVALID, "%q is not an email address (one not registered on Prolific yet)", email)
	}
	c, err := p.record(ctx, studyID, domain.CallTestParticipant, "test_participant:"+strings.ToLower(email), email, actor, map[string]string{"email": email})
	var rec *store.ErrCallRecorded
	if errors.As(err, &rec) {
		var id string
		if rec.Call.State == domain.CallDone && json.Unmarshal([]byte(rec.Call.Response), &id) == nil && id != "" {
			return id, nil
		}
		return "", domain.Errorf(domain.ECONFLICT, "a test participant for %s was asked for on %s and the answer never came: check on Prolific before asking again", email, rec.Call.CreatedAt.Format("2 Jan 2006 15:04"))
	}
	if err != nil {
		return "", err
	}
	var id string
	err = p.send(ctx, c, func() (string, error) {
		var err error
		id, err = api.CreateTestParticipant(ctx, email)
		return jsonText(id), err
	})
	return id, err
}
