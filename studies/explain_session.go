package studies

import (
	"context"

	"pragmalab/domain"
	"pragmalab/store"
)

// ExplainSettingsOf reads an explanation study's settings over the
// defaults.
func ExplainSettingsOf(s *domain.Study) (domain.ExplainSettings, error) {
	return settingsOver(s, domain.DefaultExplainSettings())
}

// ErrNoJudgment is Answer's error when no judgment was chosen: the
// screen comes back asking for one.
var ErrNoJudgment = domain.Errorf(domain.EINVALID, "choose one of the judgments")

// ExplainSession is one expert's way through their explanation-rating
// screens (docs/studies.md#explanation-flow): which screen comes next, and
// saving a judgment.
type ExplainSession struct {
	svc       *Service
	annotator int64
	Screens   []domain.ExplainScreen
}

// ExplainSession opens the expert's screens; an invitation to a study of
// another kind is ENOTFOUND.
func (in *Invitation) ExplainSession(ctx context.Context) (*ExplainSession, error) {
	if err := in.OfKind(domain.KindExplain); err != nil {
		return nil, err
	}
	screens, err := in.svc.db.ExplainScreens(ctx, in.Annotator.ID)
	if err != nil {
		return nil, err
	}
	return &ExplainSession{svc: in.svc, annotator: in.Annotator.ID, Screens: screens}, nil
}

// Len is the number of the expert's screens.
func (x *ExplainSession) Len() int { return len(x.Screens) }

// Valid reports whether pos is one of the screens (1…Len).
func (x *ExplainSession) Valid(pos int) bool { return pos >= 1 && pos <= len(x.Screens) }

// Screen is the screen at pos (Valid).
func (x *ExplainSession) Screen(pos int) domain.ExplainScreen { return x.Screens[pos-1] }

// Rated counts the screens with a judgment.
func (x *ExplainSession) Rated() int {
	n := 0
	for _, s := range x.Screens {
		if s.Judgment != "" {
			n++
		}
	}
	return n
}

// Next is the first screen without a judgment, or 0.
func (x *ExplainSession) Next() int {
	for _, s := range x.Screens {
		if s.Judgment == "" {
			return s.Position
		}
	}
	return 0
}

// Show records that the screen at pos was shown.
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it binds the rater's own screens, so no handler names another's.
func (x *ExplainSession) Show(ctx context.Context, pos int) error {
	return x.svc.db.ScreenShown(ctx, store.FlowExplain, x.annotator, pos)
}

// Answer saves the judgment on the screen at pos, committed before it
// returns; judgment is its number on the screen, 1…len(domain.Judgments)
// (anything else is ErrNoJudgment and changes nothing). Sending it again
// replaces it, with in, the page's integrity record
// (docs/studies.md#integrity-signals). It returns the screen to go on to: the next one; after the
// last, the first still unrated; 0 when every screen is rated.
func (x *ExplainSession) Answer(ctx context.Context, pos, judgment, rt int, in domain.Integrity) (next int, err error) {
	if judgment < 1 || judgment > len(domain.Judgments) {
		return 0, ErrNoJudgment
	}
	j := domain.Judgments[judgment-1]
	if err := x.svc.db.SaveExplainRating(ctx, x.annotator, pos, j, rt, in); err != nil {
		return 0, err
	}
	x.Screens[pos-1].Judgment = j
	if pos < len(x.Screens) {
		return pos + 1, nil
	}
	return x.Next(), nil
}
