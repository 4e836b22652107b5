package recruit

import (
	"context"
	"errors"
	"pragmalab/domain"
	"sort"
	"strings"

	"pragmalab/prolific"
	"pragmalab/store"
)

// Messages to participants through Prolific (docs/prolific.md#messages).

// MessageTemplate is a ready text for a common case.
type MessageTemplate struct{ Name, Label, Body string }

// MessageTemplates are the templates the page and the command line offer.
var MessageTemplates = []MessageTemplate{
	{"thanks", "Thank you", "Thank you for taking part in our study. Your answers help us understand how people read what is implied beyond what is said. We will review your submission shortly."},
	{"bonus", "Bonus notice", "Thank you for your careful answers in our study. We are paying you a bonus on top of the reward; it will reach your Prolific account once it has been processed."},
	{"question", "Question about your answers", "Thank you for taking part in our study. We have a short question about some of your answers: could you reply to this message and tell us how you read the sentences? This does not affect your reward."},
}

// MessageTemplateBody returns a template's text; ok false if unknown.
func MessageTemplateBody(name string) (string, bool) {
	for _, t := range MessageTemplates {
		if t.Name == name {
			return t.Body, true
		}
	}
	return "", false
}

// The selections a message can go to.
const (
	ToOne        = "one"        // one participant
	ToCompleted  = "completed"  // all who completed here
	ToExcluded   = "excluded"   // all completed ones the rules or the researcher exclude
	ToUnfinished = "unfinished" // all who reached pragmalab and never finished
)

// MessagePlan is a message shown for confirmation before it is sent.
type MessagePlan struct {
	ID         string // names the plan: confirming it twice sends once
	Selection  string
	Recipients []string // Prolific ids, lower-cased
	Body       string
}

// PlanMessage syncs, then chooses the recipients and checks the message;
// nothing is sent. Every recipient must have a submission in the linked
// study, as Prolific requires.
func (p *Service) PlanMessage(ctx context.Context, studyID int64, selection, pid, body string) (*MessagePlan, error) {
	body = strings.TrimSpace(body)
	if err := checkMessageBody(body); err != nil {
		return nil, err
	}
	if _, err := p.Sync(ctx, studyID); err != nil {
		return nil, err
	}
	rev, err := p.Review(ctx, studyID)
	if err != nil {
		return nil, err
	}
	to, err := rev.recipients(selection, pid)
	if err != nil {
		return nil, err
	}
	for i := range to {
		to[i] = strings.ToLower(to[i])
	}
	sort.Strings(to)
	return &MessagePlan{ID: newPlanID(), Selection: selection, Recipients: to, Body: body}, nil
}

// checkMessageBody refuses an empty message and one longer than Prolific
// takes.
func checkMessageBody(body string) error {
	switch n := len([]rune(body)); {
	case n == 0:
		return domain.Errorf(domain.EINVALID, "the message is empty: write one or choose a template")
	case n > prolific.MaxMessage:
		return domain.Errorf(domain.EINVALID, "the message has %d characters; at most %d", n, prolific.MaxMessage)
	}
	return nil
}

// recipients are the Prolific ids of the selection: the participant pid,
// or everyone with a submission who completed, was excluded, or never
// finished.
func (rev *Review) recipients(selection, pid string) ([]string, error) {
	switch selection {
	case ToOne:
		return rev.oneRecipient(pid)
	case ToCompleted, ToExcluded, ToUnfinished:
		var to []string
		for _, r := range rev.Rows {
			if r.SubmissionID == "" {
				continue
			}
			done := r.Here == store.CrowdCompleted
			if (selection == ToCompleted && done) || (selection == ToExcluded && done && r.Excluded) || (selection == ToUnfinished && !done) {
				to = append(to, r.PID)
			}
		}
		if len(to) == 0 {
			return nil, domain.Errorf(domain.EINVALID, "no one with a Prolific submission is in the selection %q", selection)
		}
		return to, nil
	}
	return nil, domain.Errorf(domain.EINVALID, "unknown selection %q: one, completed, excluded or unfinished", selection)
}

// oneRecipient is the participant pid, among those who reached pragmalab
// or never did, if they have a submission.
func (rev *Review) oneRecipient(pid string) ([]string, error) {
	r := rev.anyRow(strings.TrimSpace(pid))
	if r == nil || r.SubmissionID == "" {
		return nil, domain.Errorf(domain.EINVALID, "participant %q has no submission in the linked Prolific study (sync first, or check the id)", pid)
	}
	return []string{r.PID}, nil
}

// SendMessage sends a confirmed plan: one message, or one bulk message.
// It is recorded under "message:<plan>" before it is sent, so confirming
// the same plan twice sends it once; a message whose answer never came is
// not sent again (Prolific does not make messages idempotent).
func (p *Service) SendMessage(ctx context.Context, studyID int64, actor string, plan *MessagePlan) error {
	api, link, err := p.linked(ctx, studyID)
	if err != nil {
		return err
	}
	c, err := p.record(ctx, studyID, domain.CallMessage, "message:"+plan.ID, strings.Join(plan.Recipients, " "), actor,
		map[string]any{"study_id": link.ProlificStudyID, "ids": plan.Recipients, "body": plan.Body, "selection": plan.Selection})
	var rec *store.ErrCallRecorded
	if errors.As(err, &rec) {
		if rec.Call.State == domain.CallDone {
			return domain.Errorf(domain.ECONFLICT, "this message was already sent on %s by %s: nothing was sent again", rec.Call.UpdatedAt.Format("2 Jan 2006 15:04"), rec.Call.Actor)
		}
		return domain.Errorf(domain.ECONFLICT, "this message was sent to Prolific on %s and the answer never came: it may have been delivered. Nothing was sent again; check the study's messages on Prolific", rec.Call.CreatedAt.Format("2 Jan 2006 15:04"))
	}
	if err != nil {
		return err
	}
	return p.send(ctx, c, func() (string, error) {
		if len(plan.Recipients) == 1 {
			return "sent", api.SendMessage(ctx, link.ProlificStudyID, plan.Recipients[0], plan.Body)
		}
		return "sent", api.BulkMessage(ctx, link.ProlificStudyID, plan.Recipients, plan.Body)
	})
}
