package studies

import (
	"context"

	"pragmalab/domain"
	"pragmalab/store"
)

// Invitation is an expert who opened their invitation link, in their
// study. The token is the expert's credential: an unknown one is
// ENOTFOUND, like a missing page. Expert validation, context surveys and
// explanation ratings share the invitation links (docs/studies.md).
type Invitation struct {
	svc       *Service
	Annotator domain.Annotator
	Study     *domain.Study
}

// Invitation opens the invitation of token.
func (s *Service) Invitation(ctx context.Context, token string) (*Invitation, error) {
	a, err := s.db.AnnotatorByToken(ctx, token)
	if err != nil {
		return nil, err
	}
	st, err := s.db.Study(ctx, a.StudyID)
	if err != nil {
		return nil, err
	}
	return &Invitation{svc: s, Annotator: *a, Study: st}, nil
}

// Closed reports whether the study was archived: its pages are gone for
// good.
func (in *Invitation) Closed() bool { return in.Study.Archived() }

// Unavailable reports whether the study does not take answers now: it is
// not open, and the expert is not one of its pilot testers (who try it
// before it opens).
func (in *Invitation) Unavailable() bool {
	return in.Study.State != domain.StateOpen && !in.Annotator.Pilot
}

// Token is the invitation's token, the root of the expert's URLs.
func (in *Invitation) Token() string { return in.Annotator.Token }

// OfKind refuses an invitation to a study of another kind the way an
// unknown token is refused.
func (in *Invitation) OfKind(kind string) error {
	if in.Study.Kind != kind {
		return domain.Errorf(domain.ENOTFOUND, "this invitation link is not valid")
	}
	return nil
}

// ExpertAssignments lists the expert's batches with their progress.
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it binds the invitation's own expert.
func (in *Invitation) ExpertAssignments(ctx context.Context) ([]domain.Assignment, error) {
	return in.svc.db.AnnotatorAssignments(ctx, in.Annotator.ID)
}

// ExpertSession is one expert's way through one of their batches
// (docs/studies.md#expert-flow): which screen comes next, and saving a
// judgement. It is a plain value over the screens loaded when it was
// opened; Answer keeps it up to date.
type ExpertSession struct {
	svc        *Service
	annotator  int64
	Assignment domain.Assignment
	Screens    []domain.Screen
}

// ExpertSession opens the expert's assignment aid; somebody else's is
// ENOTFOUND, so editing the URL opens nothing.
func (in *Invitation) ExpertSession(ctx context.Context, aid int64) (*ExpertSession, error) {
	a, err := in.svc.db.AnnotatorAssignment(ctx, in.Annotator.ID, aid)
	if err != nil {
		return nil, err
	}
	screens, err := in.svc.db.Screens(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	return &ExpertSession{svc: in.svc, annotator: in.Annotator.ID, Assignment: *a, Screens: screens}, nil
}

// Len is the number of screens of the batch.
func (e *ExpertSession) Len() int { return len(e.Screens) }

// Valid reports whether pos is one of the batch's screens (1…Len).
func (e *ExpertSession) Valid(pos int) bool { return pos >= 1 && pos <= len(e.Screens) }

// Screen is the screen at pos (Valid).
func (e *ExpertSession) Screen(pos int) domain.Screen { return e.Screens[pos-1] }

// Answered counts the screens with an answer.
func (e *ExpertSession) Answered() int {
	n := 0
	for _, s := range e.Screens {
		if s.Answer != nil {
			n++
		}
	}
	return n
}

// Next is the first screen without an answer, or 0 when all have one.
func (e *ExpertSession) Next() int {
	for _, s := range e.Screens {
		if s.Answer == nil {
			return s.Position
		}
	}
	return 0
}

// NeedsIntro reports whether the type's instructions come before the
// screen at pos: it is the first of its type in a row and has no answer yet.
func (e *ExpertSession) NeedsIntro(pos int) bool {
	s := e.Screens[pos-1]
	first := pos == 1 || e.Screens[pos-2].Item.Type != s.Item.Type
	return first && s.Answer == nil
}

// Show records that the screen at pos was shown (its first showing starts
// the expert's time on it).
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it binds the expert's own assignment, so no handler names another's.
func (e *ExpertSession) Show(ctx context.Context, pos int) error {
	return e.svc.db.ScreenShown(ctx, store.FlowExpert, e.Assignment.ID, pos)
}

// Answer saves the judgement on the screen at pos, committed before it
// returns; sending it twice changes nothing, and an earlier screen's answer
// can be changed the same way. It returns the screen to go on to: the
// next one; after the last, the first still unanswered (one skipped by
// going back and forth); 0 when the batch is done. An invalid judgement is
// EINVALID and changes nothing.
func (e *ExpertSession) Answer(ctx context.Context, pos int, j domain.Judgement) (next int, err error) {
	if err := e.svc.db.SaveJudgement(ctx, e.annotator, e.Assignment.ID, pos, j); err != nil {
		return 0, err
	}
	e.Screens[pos-1].Answer = &j
	if pos < len(e.Screens) {
		return pos + 1, nil
	}
	return e.Next(), nil
}
