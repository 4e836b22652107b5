package studies

import (
	"context"
	"fmt"
	"time"

	"pragmalab/domain"
	"pragmalab/store"
)

// The crowd participant's way through a study (docs/studies.md#crowd-entry):
// entry from Prolific, consent, the practice items, the batch, the
// questionnaire and the completion code. The rules live here, once; the
// handlers parse the request, call one method and render what it returns.

// ErrCrowdUnavailable refuses a participant whom the study's state does
// not let go on (paused, closed, or not open yet); the page says which
// state it is.
var ErrCrowdUnavailable = domain.Errorf(domain.EFORBIDDEN, "The study is not taking answers now.")

// ErrNoPreview: the study's settings do not allow a preview.
var ErrNoPreview = domain.Errorf(domain.ENOTFOUND, "This study has no preview.")

// CrowdSession is one browser's visit to a crowd study: the study and its
// settings (the store's short-lived cache, since every participant request
// needs them) and the token of the session cookie ("" when the browser has
// none).
type CrowdSession struct {
	db       *store.DB
	Study    *domain.Study
	Settings domain.CrowdSettings
	token    string
	client   string // a hash of the client's address ("" unknown): From
}

// CrowdSession opens the visit of the browser holding token to the crowd
// study studyID.
func (s *Service) CrowdSession(ctx context.Context, studyID int64, token string) (CrowdSession, error) {
	st, set, err := s.db.CrowdStudy(ctx, studyID)
	if err != nil {
		return CrowdSession{}, err
	}
	return CrowdSession{db: s.db, Study: st, Settings: set, token: token}, nil
}

// mayGoOn tells whether a participant (nil: none yet) may go on in the
// study's state: anyone while it is open; while it is paused, those who
// have consented when the settings let them finish; a pilot session in
// any state.
func mayGoOn(state string, set *domain.CrowdSettings, p *store.CrowdParticipant) bool {
	if p != nil && p.Pilot {
		return true
	}
	switch state {
	case domain.StateOpen:
		return true
	case domain.StatePaused:
		return set.FinishWhenPaused && p != nil && p.Consented && p.Status == store.CrowdActive
	}
	return false
}

// gate lets a participant's write through in the study's state, or
// refuses it with ErrCrowdUnavailable; the session is read only when the
// study is not open, so the answers of an open study cost no read here.
func (c *CrowdSession) gate(ctx context.Context) error {
	if c.Study.State == domain.StateOpen {
		return nil
	}
	p, err := c.db.CrowdParticipantByToken(ctx, c.Study.ID, c.token)
	if err == nil && mayGoOn(c.Study.State, &c.Settings, p) {
		return nil
	}
	return ErrCrowdUnavailable
}

// CrowdArrival is what a participant brings to the entry address.
type CrowdArrival struct {
	PID string // PROLIFIC_PID, as read from the address
	// Problem names what is wrong with PROLIFIC_PID: "missing", "empty",
	// "placeholder" (Prolific did not replace it), or "".
	Problem   string
	StudyID   string // Prolific's STUDY_ID
	SessionID string // SESSION_ID
}

// EntryOutcome is where an arrival goes.
type EntryOutcome int

const (
	EntryScreen      EntryOutcome = iota + 1 // on to the screen: a session or an entry
	EntryUnavailable                         // the study's state admits nobody new
	EntryIncomplete                          // the address lacks a usable PROLIFIC_PID
	EntryBusy                                // too many new arrivals from this address
)

// CrowdEntry is the outcome of an arrival.
type CrowdEntry struct {
	Outcome EntryOutcome
	Token   string        // EntryScreen: the session cookie to set, "" to keep the browser's
	Wait    time.Duration // EntryBusy: when to come back
}

// Enter receives a participant at the entry address. A browser whose
// session may go on resumes it; a new arrival is limited by reserve (which
// returns how long to wait, 0 to let it in) and gets an entry, or its own
// session back (store.DB.EnterCrowd). A refusal is an error:
// domain.ErrStudyFull, ErrNotYourSession, ErrNoBatches, or EINVALID naming
// the malformed Prolific value.
func (c *CrowdSession) Enter(ctx context.Context, a CrowdArrival, reserve func() time.Duration) (CrowdEntry, error) {
	if c.Study.State != domain.StateOpen {
		p, err := c.db.CrowdParticipantByToken(ctx, c.Study.ID, c.token)
		if err == nil && (mayGoOn(c.Study.State, &c.Settings, p) || p.Status == store.CrowdCompleted) {
			return CrowdEntry{Outcome: EntryScreen}, nil
		}
		return CrowdEntry{Outcome: EntryUnavailable}, nil
	}
	if a.Problem != "" {
		// A browser holding a session that opens the bare address (from
		// its history) resumes; anything else is told the link is
		// incomplete — never the preview, which stores nothing.
		if a.Problem == "missing" {
			if _, err := c.db.CrowdParticipantByToken(ctx, c.Study.ID, c.token); err == nil {
				return CrowdEntry{Outcome: EntryScreen}, nil
			}
		}
		return CrowdEntry{Outcome: EntryIncomplete}, nil
	}
	// Only new arrivals are limited: a browser coming back with its
	// cookie is not counted.
	if c.token == "" || !c.known(ctx) {
		if wait := reserve(); wait > 0 {
			return CrowdEntry{Outcome: EntryBusy, Wait: wait}, nil
		}
	}
	p, err := c.db.EnterCrowd(ctx, c.Study.ID,
		store.CrowdArrival{PID: a.PID, StudyID: a.StudyID, SessionID: a.SessionID, Token: c.token}, c.Settings)
	if err != nil {
		return CrowdEntry{}, err
	}
	out := CrowdEntry{Outcome: EntryScreen}
	if p.Token != c.token {
		out.Token = p.Token
	}
	return out, nil
}

// known tells whether the cookie token is a session or an entry of the
// study already.
func (c *CrowdSession) known(ctx context.Context) bool {
	if _, err := c.db.CrowdParticipantByToken(ctx, c.Study.ID, c.token); err == nil {
		return true
	}
	_, err := c.db.CrowdEntry(ctx, c.Study.ID, c.token)
	return err == nil
}

// Consent records the participant's consent, which takes their place on a
// batch, and returns the session cookie to set ("" to keep the browser's).
// Refusals are those of Enter, ErrCrowdUnavailable and
// domain.ErrAddressLimit.
func (c *CrowdSession) Consent(ctx context.Context) (string, error) {
	if err := c.gate(ctx); err != nil {
		return "", err
	}
	p, err := c.db.ConsentCrowdFrom(ctx, c.Study.ID, c.token, c.client, c.Settings)
	if err != nil {
		return "", err
	}
	if p.Token != c.token {
		return p.Token, nil
	}
	return "", nil
}

// crowdAnswer is a participant's answer to a practice item or a screen of
// the batch.
type crowdAnswer struct {
	training bool
	position int
	attempt  int // training: the wrong answers the page was showing
	rating   int
	rt       int // the browser's response time in ms, 0: not measured
	trace    domain.AnswerTrace
}

// Answer stores the rating of screen position of the batch (durable when
// it returns). A resubmit, an answer out of order or from a finished
// session changes nothing; the next screen shows where the participant
// stands. A rating off the scale is refused with domain.ErrRatingRange.
func (c *CrowdSession) Answer(ctx context.Context, position, rating, rt int) error {
	return c.answer(ctx, crowdAnswer{position: position, rating: rating, rt: rt})
}

// AnswerTraced is Answer with the answer's behavioural trace, stored in the
// same write as the rating (docs/studies.md#behavioural-traces).
func (c *CrowdSession) AnswerTraced(ctx context.Context, position, rating, rt int, tr domain.AnswerTrace) error {
	return c.answer(ctx, crowdAnswer{position: position, rating: rating, rt: rt, trace: tr})
}

// AnswerTraining stores the answer to practice item position; attempt is
// the number of wrong answers the page was showing, so a double submit
// counts once. The next screen brings a wrongly answered item back, or
// the screen-out page at the second wrong answer.
func (c *CrowdSession) AnswerTraining(ctx context.Context, position, attempt, rating, rt int) error {
	return c.answer(ctx, crowdAnswer{training: true, position: position, attempt: attempt, rating: rating, rt: rt})
}

// answer is the one path of both answers: the study's state, the scale,
// then the store's transaction.
func (c *CrowdSession) answer(ctx context.Context, a crowdAnswer) error {
	if err := c.gate(ctx); err != nil {
		return err
	}
	if !c.Settings.ValidRating(a.rating) {
		return domain.ErrRatingRange
	}
	var err error
	if a.training {
		_, err = c.db.AnswerCrowdTraining(ctx, c.Study.ID, c.token, a.position, a.attempt, a.rating, a.rt, c.Settings)
	} else {
		_, err = c.db.SaveCrowdRatingTraced(ctx, c.Study.ID, c.token, a.position, a.rating, a.rt, a.trace, c.Settings)
	}
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return nil // no session: the next screen says to start from Prolific
	}
	return err
}

// SaveQuestionnaire stores the post-study questionnaire of a participant
// who completed, once; EINVALID names a field the study does not ask or a
// value not offered.
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it binds the participant's own session and the study's questionnaire settings.
func (c *CrowdSession) SaveQuestionnaire(ctx context.Context, q domain.Questionnaire) error {
	return c.db.SaveQuestionnaire(ctx, c.Study.ID, c.token, c.Settings.Questionnaire, q)
}

// CrowdPage names the page a crowd participant sees next.
type CrowdPage int

const (
	PageStart         CrowdPage = iota + 1 // no session: start from Prolific
	PageUnavailable                        // the study's state does not let them go on
	PageLanding                            // the introduction and the consent
	PageTraining                           // a practice item
	PagePracticeEnd                        // the practice is over; the batch begins
	PageItem                               // a screen of the batch
	PageQuestionnaire                      // the post-study questionnaire
	PageDone                               // the completion code
	PageMovedOn                            // idle past the time-out, and the place was given away
	PageScreenedOut                        // a practice item answered wrongly twice
	PageCannotStart                        // a newcomer who could not take a place now (CrowdNext.Refusal)
	PageDeclined                           // the participant did not agree to the consent
)

// CrowdNext is what the participant sees next, with what its page shows.
type CrowdNext struct {
	Page CrowdPage
	// Screen is the item of PageTraining and PageItem.
	Screen domain.CrowdScreen
	// Total counts the practice items (PageTraining) or the screens of the
	// batch (every other page of a session).
	Total   int
	Done    int // PageItem: screens answered
	Attempt int // PageTraining: wrong answers so far on this item
	// Refusal is why a newcomer cannot start (PageCannotStart):
	// domain.ErrStudyFull, ErrAddressLimit or ErrNoBatches.
	Refusal error
	// Pilot marks a session opened with the study's pilot link.
	Pilot bool
	// Instruct is the point the hidden instruction of PageItem's screen
	// asks for, 0 for none (docs/studies.md#machine-instruction).
	Instruct int
	// Justify: PageItem's screen asks for a typed justification
	// (docs/studies.md#typed-justifications).
	Justify bool
}

// Next tells what the participant sees next. Reloading resumes: the state
// lives in the database. A participant back after the time-out carries on
// if their place is still free. Showing a screen is recorded (the answer
// time starts there); begin is the participant's click from the page
// that ends the practice.
func (c *CrowdSession) Next(ctx context.Context, begin bool) (CrowdNext, error) {
	// The time-out is measured by the store's clock, which stamps
	// last_seen_at.
	f := crowdFacts{state: c.Study.State, set: &c.Settings, now: c.db.Now(), begin: begin}
	var err error
	f.p, f.screen, err = c.db.CrowdSessionScreen(ctx, c.Study.ID, c.token)
	for {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			f.p = nil
		} else if err != nil {
			return CrowdNext{}, err
		}
		next, read, record, bad := nextPage(f)
		if bad != nil {
			return CrowdNext{}, fmt.Errorf("crowd study %d: %w", c.Study.ID, bad)
		}
		switch read {
		case readNothing:
			if f.p != nil {
				next.Pilot = f.p.Pilot
			}
			if next.Page == PageItem {
				if next.Instruct, err = c.db.CrowdMachineInstruction(ctx, f.p.BatchID, next.Screen.Position, c.token, c.Settings); err != nil {
					return CrowdNext{}, err
				}
				if next.Justify, err = c.db.CrowdJustifies(ctx, f.p.BatchID, next.Screen.Position, c.token, c.Settings); err != nil {
					return CrowdNext{}, err
				}
			}
			if next, err = c.beforeConsent(ctx, next, f.p); err != nil {
				return CrowdNext{}, err
			}
			return next, c.recordShown(ctx, record, f.p, next.Screen, f.screen)
		case readRenew:
			f.renewed = true
			if _, err = c.db.TouchCrowd(ctx, c.Study.ID, c.token, c.Settings); err == nil {
				f.p, f.screen, err = c.db.CrowdSessionScreen(ctx, c.Study.ID, c.token)
			}
		case readEntry:
			_, err = c.db.CrowdEntry(ctx, c.Study.ID, c.token)
			f.entry, err = knownAs(err == nil), nil
		case readQuestionnaire:
			var sent bool
			sent, err = c.db.QuestionnaireSent(ctx, f.p.ID)
			f.sent = knownAs(sent)
		case readFirstShown:
			var shown bool
			shown, err = c.db.ScreenWasShown(ctx, store.FlowCrowd, f.p.ID, 1)
			f.firstShown = knownAs(shown)
		}
	}
}

// recordShown writes the record of screen shown, unless read (the screen
// read with the session) says it is recorded already; read answers for
// shown when they are the same screen.
func (c *CrowdSession) recordShown(ctx context.Context, rec crowdRecord, p *store.CrowdParticipant, shown, read domain.CrowdScreen) error {
	flow, wait := store.FlowCrowd, rec == recordItemNow
	switch rec {
	case recordNone:
		return nil
	case recordTraining:
		flow = store.FlowTraining
	}
	// The session's screen is a training one while the training is not done.
	if shown.Position != read.Position || (flow == store.FlowTraining) != (p.TrainingDone < p.Training) {
		if wait {
			return c.db.ScreenShownNow(ctx, flow, p.ID, shown.Position)
		}
		return c.db.ScreenShown(ctx, flow, p.ID, shown.Position)
	}
	if read.Shown {
		return nil
	}
	return c.db.ScreenFirstShown(ctx, flow, p.ID, shown.Position, wait)
}

// known is a fact read on demand: not read yet, false or true.
type known int8

const (
	unknown known = iota
	no
	yes
)

func knownAs(b bool) known {
	if b {
		return yes
	}
	return no
}

// crowdFacts is everything the next page depends on: the session's row and
// screen, the study's state and settings, the clock, and the facts read
// only when the decision needs them.
type crowdFacts struct {
	state  string
	set    *domain.CrowdSettings
	p      *store.CrowdParticipant // nil: the token has no session
	screen domain.CrowdScreen      // the screen the session is at
	now    time.Time
	begin  bool

	renewed    bool  // the time-out rule was applied and the session read again
	entry      known // the token is an entry waiting for consent
	sent       known // the questionnaire was sent
	firstShown known // the first screen of the batch was shown
}

// crowdRead names a fact nextPage needs before it can decide.
type crowdRead int

const (
	readNothing       crowdRead = iota
	readRenew                   // apply the time-out rule, then read the session again
	readEntry                   // crowdFacts.entry
	readQuestionnaire           // crowdFacts.sent
	readFirstShown              // crowdFacts.firstShown
)

// crowdRecord names the record of a screen shown that the page writes.
type crowdRecord int

const (
	recordNone     crowdRecord = iota
	recordTraining             // a practice item
	recordItem                 // a screen of the batch
	// recordItemNow: the first screen of the batch, written before the
	// page, since the next request asks whether the practice is over.
	recordItemNow
)

// nextPage decides what the participant sees next from the facts, or
// names the fact it must read first. It reads nothing itself.
func nextPage(f crowdFacts) (CrowdNext, crowdRead, crowdRecord, error) {
	p := f.p
	if p == nil {
		// Not a session: an entry waiting for consent gets the landing
		// page; anything else the "start from Prolific" page.
		switch {
		case f.state != domain.StateOpen:
			return CrowdNext{Page: PageUnavailable}, readNothing, recordNone, nil
		case f.entry == unknown:
			return CrowdNext{}, readEntry, recordNone, nil
		case f.entry == yes:
			return CrowdNext{Page: PageLanding}, readNothing, recordNone, nil
		}
		return CrowdNext{Page: PageStart}, readNothing, recordNone, nil
	}
	if p.Status == store.CrowdActive && !f.renewed && p.LastSeenAt.Before(f.now.Add(-f.set.Timeout())) {
		return CrowdNext{}, readRenew, recordNone, nil // back after the time-out
	}
	next := CrowdNext{Total: p.Screens}
	switch {
	case p.Status == store.CrowdCompleted:
		if f.set.Questionnaire.On() {
			switch f.sent {
			case unknown:
				return CrowdNext{}, readQuestionnaire, recordNone, nil
			case no:
				next.Page = PageQuestionnaire
				return next, readNothing, recordNone, nil
			}
		}
		next.Page = PageDone
	case p.Status == store.CrowdMovedOn:
		next.Page = PageMovedOn
	case p.Status == store.CrowdScreenedOut:
		next.Page = PageScreenedOut
	case !mayGoOn(f.state, f.set, p):
		next.Page = PageUnavailable
	case !p.Consented:
		next.Page = PageLanding
	case f.screen.Item.ID == 0:
		return CrowdNext{}, readNothing, recordNone, fmt.Errorf("participant %d has no screen %d", p.ID, f.screen.Position)
	case p.TrainingDone < p.Training:
		next = CrowdNext{Page: PageTraining, Screen: f.screen, Total: p.Training, Attempt: p.TrainingWrong}
		return next, readNothing, recordTraining, nil
	default:
		// Between the practice and the batch, a page says the practice is
		// over, until the first screen of the batch has been shown.
		if p.Training > 0 && p.Answered == 0 && !f.begin {
			switch f.firstShown {
			case unknown:
				return CrowdNext{}, readFirstShown, recordNone, nil
			case no:
				next.Page = PagePracticeEnd
				return next, readNothing, recordNone, nil
			}
		}
		next.Page, next.Screen, next.Done = PageItem, f.screen, p.Answered
		if f.screen.Position == 1 {
			return next, readNothing, recordItemNow, nil
		}
		return next, readNothing, recordItem, nil
	}
	return next, readNothing, recordNone, nil
}

// CrowdPreview is a step of the preview: the landing page (step 0), a
// practice item, a screen of the first batch, or the end.
type CrowdPreview struct {
	Landing  bool
	End      bool
	Training bool
	Screen   domain.CrowdScreen
	Total    int // practice items, or screens of the batch
	Done     int // screens before this one
}

// Preview returns step of the preview the settings may allow (else
// ErrNoPreview): the landing page, the practice items and the first batch,
// walked in order; nothing is stored.
func (c *CrowdSession) Preview(ctx context.Context, step int) (CrowdPreview, error) {
	if !c.Settings.AllowPreview {
		return CrowdPreview{}, ErrNoPreview
	}
	if step <= 0 {
		return CrowdPreview{Landing: true}, nil
	}
	training, err := c.db.CrowdTraining(ctx, c.Study.ID)
	if err != nil {
		return CrowdPreview{}, err
	}
	if step <= len(training) {
		sc := training[step-1]
		sc.Position = step
		return CrowdPreview{Training: true, Screen: sc, Total: len(training)}, nil
	}
	prog, err := c.db.CrowdProgress(ctx, c.Study.ID, c.Settings)
	if err != nil {
		return CrowdPreview{}, err
	}
	pos := step - len(training)
	if len(prog) == 0 || pos > prog[0].Screens {
		return CrowdPreview{End: true}, nil
	}
	sc, err := c.db.CrowdScreen(ctx, prog[0].BatchID, pos)
	if err != nil {
		return CrowdPreview{}, err
	}
	return CrowdPreview{Screen: sc, Total: prog[0].Screens, Done: pos - 1}, nil
}
