package studies

import (
	"context"

	"pragmalab/domain"
	"pragmalab/store"
)

// ContextSettingsOf reads a context study's settings over the defaults.
func ContextSettingsOf(s *domain.Study) (domain.ContextSettings, error) {
	return settingsOver(s, domain.DefaultContextSettings())
}

// ContextAssignments lists the expert's context surveys with their
// progress; an invitation to a study of another kind is ENOTFOUND.
func (in *Invitation) ContextAssignments(ctx context.Context) ([]domain.ContextAssignment, error) {
	if err := in.OfKind(domain.KindContext); err != nil {
		return nil, err
	}
	return in.svc.db.AnnotatorContextAssignments(ctx, in.Annotator.ID)
}

// ContextSession is one expert's way through one of their context surveys
// (docs/studies.md#context-flow): the questions with their state, which one
// comes next, and the expert's actions on them.
type ContextSession struct {
	svc        *Service
	annotator  int64
	Assignment domain.ContextAssignment
	Questions  []domain.ContextQuestion
	Settings   domain.ContextSettings
}

// ContextSession opens the expert's survey assignment aid; somebody
// else's, or an invitation to a study of another kind, is ENOTFOUND.
func (in *Invitation) ContextSession(ctx context.Context, aid int64) (*ContextSession, error) {
	if err := in.OfKind(domain.KindContext); err != nil {
		return nil, err
	}
	a, err := in.svc.db.AnnotatorContextAssignment(ctx, in.Annotator.ID, aid)
	if err != nil {
		return nil, err
	}
	qs, err := in.svc.db.ContextQuestions(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	set, err := ContextSettingsOf(in.Study)
	if err != nil {
		return nil, err
	}
	return &ContextSession{svc: in.svc, annotator: in.Annotator.ID, Assignment: *a, Questions: qs, Settings: set}, nil
}

// Len is the number of questions of the survey.
func (c *ContextSession) Len() int { return len(c.Questions) }

// Valid reports whether pos is one of the survey's questions (1…Len).
func (c *ContextSession) Valid(pos int) bool { return pos >= 1 && pos <= len(c.Questions) }

// Question is the question at pos (Valid).
func (c *ContextSession) Question(pos int) domain.ContextQuestion { return c.Questions[pos-1] }

// MaxShown is how many preceding sentences the question at pos may reveal.
func (c *ContextSession) MaxShown(pos int) int {
	return c.Questions[pos-1].MaxShown(c.Settings.MaxSentences)
}

// Answered counts the questions with a final answer.
func (c *ContextSession) Answered() int {
	n := 0
	for _, q := range c.Questions {
		if q.Final() {
			n++
		}
	}
	return n
}

// Next is the first question without a final answer, or 0.
func (c *ContextSession) Next() int {
	for _, q := range c.Questions {
		if !q.Final() {
			return q.Position
		}
	}
	return 0
}

// Show records that the question at pos was shown.
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it binds the participant's own assignment, so no handler names another's.
func (c *ContextSession) Show(ctx context.Context, pos int) error {
	return c.svc.db.ScreenShown(ctx, store.FlowContext, c.Assignment.ID, pos)
}

// Act applies the expert's action (domain.ContextSufficient, ContextMore or
// ContextRestart) to the question at pos, committed before it returns.
// seen is the number of revealed sentences the page showed: an action sent
// from an outdated page changes nothing. rt is the browser's response time
// in ms (0: not measured); in is the page's integrity record
// (docs/studies.md#integrity-signals), added to the question's. It returns the question to show next: the same
// one while it is open (with one more sentence), else the next question;
// after the last, the first still open; 0 when the survey is done.
func (c *ContextSession) Act(ctx context.Context, pos, seen int, action string, rt int, in domain.Integrity) (next int, err error) {
	if seen < 0 || seen > domain.MaxContextSentences {
		return 0, domain.Errorf(domain.EINVALID, "the form is incomplete: please answer again")
	}
	q, err := c.svc.db.ContextAct(ctx, c.annotator, c.Assignment.ID, pos, seen, action, c.Settings.MaxSentences, rt, in)
	if err != nil {
		return 0, err
	}
	c.Questions[pos-1].Shown, c.Questions[pos-1].Sufficient = q.Shown, q.Sufficient
	if !q.Final() {
		return pos, nil
	}
	if pos < len(c.Questions) {
		return pos + 1, nil
	}
	return c.Next(), nil
}
