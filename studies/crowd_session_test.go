package studies

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/store"
)

// TestNextPage walks every branch of the participant's state machine
// without HTTP and without a database: the session's row, the study's
// state and settings, the clock, and the facts read on demand.
func TestNextPage(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	set := domain.DefaultCrowdSettings() // time-out 60 minutes, finish when paused
	noFinish := set
	noFinish.FinishWhenPaused = false
	withQ := set
	withQ.Questionnaire = domain.QuestionnaireSettings{Age: true}

	item := func(pos int) domain.CrowdScreen {
		return domain.CrowdScreen{Position: pos, Condition: domain.ConditionCancel, Item: domain.Item{ID: 40 + int64(pos), Key: "it"}}
	}
	// in is a participant of 6 practice items and 12 screens, with mod
	// applied, seen a minute ago.
	in := func(mod func(p *store.CrowdParticipant)) *store.CrowdParticipant {
		p := &store.CrowdParticipant{ID: 7, Status: store.CrowdActive, Consented: true, Training: 6, TrainingDone: 6,
			Screens: 12, LastSeenAt: now.Add(-time.Minute)}
		if mod != nil {
			mod(p)
		}
		return p
	}
	trained := func(answered int) func(p *store.CrowdParticipant) {
		return func(p *store.CrowdParticipant) { p.Answered = answered }
	}

	cases := []struct {
		name   string
		f      crowdFacts
		page   CrowdPage
		read   crowdRead
		record crowdRecord
		want   CrowdNext // checked when Page is set
		err    bool
	}{
		// No session for the token.
		{name: "no session, open: is it an entry?", f: crowdFacts{state: domain.StateOpen}, read: readEntry},
		{name: "an entry waiting for consent", f: crowdFacts{state: domain.StateOpen, entry: yes}, page: PageLanding},
		{name: "neither: start from Prolific", f: crowdFacts{state: domain.StateOpen, entry: no}, page: PageStart},
		{name: "no session, paused: no read", f: crowdFacts{state: domain.StatePaused}, page: PageUnavailable},
		{name: "no session, closed", f: crowdFacts{state: domain.StateClosed, entry: yes}, page: PageUnavailable},

		// The time-out.
		{name: "back after the time-out: renew first",
			f:    crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.LastSeenAt = now.Add(-61 * time.Minute) }), screen: item(1)},
			read: readRenew},
		{name: "renewed: go on to the screen",
			f:    crowdFacts{state: domain.StateOpen, renewed: true, begin: true, p: in(func(p *store.CrowdParticipant) { p.LastSeenAt = now.Add(-61 * time.Minute) }), screen: item(1)},
			page: PageItem, record: recordItemNow},
		{name: "within the time-out: no renewal",
			f:    crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.Answered, p.LastSeenAt = 2, now.Add(-59*time.Minute) }), screen: item(3)},
			page: PageItem, record: recordItem},
		{name: "a finished session is never renewed",
			f:    crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.Status, p.LastSeenAt = store.CrowdCompleted, now.Add(-48*time.Hour) })},
			page: PageDone, want: CrowdNext{Page: PageDone, Total: 12}},

		// Completed.
		{name: "completed, no questionnaire", f: crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.Status = store.CrowdCompleted })},
			page: PageDone, want: CrowdNext{Page: PageDone, Total: 12}},
		{name: "completed in a closed study still sees the code", f: crowdFacts{state: domain.StateClosed, p: in(func(p *store.CrowdParticipant) { p.Status = store.CrowdCompleted })},
			page: PageDone},
		{name: "completed, questionnaire on: was it sent?", f: crowdFacts{state: domain.StateOpen, set: &withQ, p: in(func(p *store.CrowdParticipant) { p.Status = store.CrowdCompleted })},
			read: readQuestionnaire},
		{name: "completed, questionnaire not sent", f: crowdFacts{state: domain.StateOpen, set: &withQ, sent: no, p: in(func(p *store.CrowdParticipant) { p.Status = store.CrowdCompleted })},
			page: PageQuestionnaire},
		{name: "completed, questionnaire sent", f: crowdFacts{state: domain.StateOpen, set: &withQ, sent: yes, p: in(func(p *store.CrowdParticipant) { p.Status = store.CrowdCompleted })},
			page: PageDone},

		// Sessions that ended otherwise.
		{name: "moved on", f: crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.Status = store.CrowdMovedOn })}, page: PageMovedOn},
		{name: "moved on, study closed", f: crowdFacts{state: domain.StateClosed, p: in(func(p *store.CrowdParticipant) { p.Status = store.CrowdMovedOn })}, page: PageMovedOn},
		{name: "screened out", f: crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.Status = store.CrowdScreenedOut })}, page: PageScreenedOut},

		// The study's state.
		{name: "paused, may finish", f: crowdFacts{state: domain.StatePaused, p: in(trained(4)), screen: item(5)}, page: PageItem, record: recordItem},
		{name: "paused, may not finish", f: crowdFacts{state: domain.StatePaused, p: in(trained(4)), screen: item(5), set: &noFinish}, page: PageUnavailable},
		{name: "paused before consent", f: crowdFacts{state: domain.StatePaused, p: in(func(p *store.CrowdParticipant) { p.Consented = false })}, page: PageUnavailable},
		{name: "closed", f: crowdFacts{state: domain.StateClosed, p: in(trained(4)), screen: item(5)}, page: PageUnavailable},
		{name: "draft", f: crowdFacts{state: domain.StateDraft, p: in(trained(4)), screen: item(5)}, page: PageUnavailable},
		{name: "a pilot session in a closed study goes on",
			f:    crowdFacts{state: domain.StateClosed, p: in(func(p *store.CrowdParticipant) { p.Pilot, p.Answered = true, 4 }), screen: item(5)},
			page: PageItem, record: recordItem},

		// The way through.
		{name: "not consented yet", f: crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.Consented, p.TrainingDone = false, 0 }), screen: item(1)},
			page: PageLanding},
		{name: "no such screen", f: crowdFacts{state: domain.StateOpen, p: in(trained(4)), screen: domain.CrowdScreen{Position: 5}}, err: true},
		{name: "a practice item, after a wrong answer",
			f:    crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.TrainingDone, p.TrainingWrong = 2, 1 }), screen: item(3)},
			page: PageTraining, record: recordTraining,
			want: CrowdNext{Page: PageTraining, Screen: item(3), Total: 6, Attempt: 1}},
		{name: "practice done: was the batch begun?", f: crowdFacts{state: domain.StateOpen, p: in(nil), screen: item(1)}, read: readFirstShown},
		{name: "practice done, batch not begun", f: crowdFacts{state: domain.StateOpen, firstShown: no, p: in(nil), screen: item(1)},
			page: PagePracticeEnd, want: CrowdNext{Page: PagePracticeEnd, Total: 12}},
		{name: "practice done, first screen shown before", f: crowdFacts{state: domain.StateOpen, firstShown: yes, p: in(nil), screen: item(1)},
			page: PageItem, record: recordItemNow},
		{name: "begin: the first screen, no read", f: crowdFacts{state: domain.StateOpen, begin: true, p: in(nil), screen: item(1)},
			page: PageItem, record: recordItemNow, want: CrowdNext{Page: PageItem, Screen: item(1), Total: 12}},
		{name: "no practice items: straight to the first screen",
			f:    crowdFacts{state: domain.StateOpen, p: in(func(p *store.CrowdParticipant) { p.Training, p.TrainingDone = 0, 0 }), screen: item(1)},
			page: PageItem, record: recordItemNow},
		{name: "a screen of the batch", f: crowdFacts{state: domain.StateOpen, p: in(trained(3)), screen: item(4)},
			page: PageItem, record: recordItem, want: CrowdNext{Page: PageItem, Screen: item(4), Total: 12, Done: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.f
			f.now = now
			if f.set == nil {
				f.set = &set
			}
			next, read, record, err := nextPage(f)
			if c.err {
				if err == nil {
					t.Fatalf("no error; got %+v", next)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if read != c.read || record != c.record || next.Page != c.page {
				t.Fatalf("page %d, read %d, record %d; want page %d, read %d, record %d", next.Page, read, record, c.page, c.read, c.record)
			}
			if c.want.Page != 0 && !reflect.DeepEqual(next, c.want) {
				t.Fatalf("got %+v\nwant %+v", next, c.want)
			}
		})
	}
}

// crowdFixture is an open crowd study of 8 items and 2 checks in one
// batch, with 2 practice items.
func crowdFixture(t *testing.T, mod func(*domain.CrowdSettings)) (*Service, *store.DB, *domain.Study) {
	t.Helper()
	ctx := context.Background()
	db := mustOpenDB(t)
	st := &domain.Study{Kind: domain.KindCrowd, Name: "Crowd", Lang: "en", Seed: 3}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	types := []string{"scalar", "discourse", "synthetic", "natural"}
	var items []domain.Item
	for i := range 8 {
		items = append(items, domain.Item{Key: fmt.Sprintf("it%d", i), Type: types[i%4], Utterance: "u", Implicature: "b", Cancellation: "c"})
	}
	for i, c := range []string{"high", "low"} {
		items = append(items, domain.Item{Key: fmt.Sprintf("check%d", i), Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "c", Check: c})
	}
	items[0].Training, items[1].Training = "high", "low"
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultCrowdSettings()
	set.BatchSize, set.CompletionCode, set.ScreenOutCode = 6, "DONE", "OUT"
	if mod != nil {
		mod(&set)
	}
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	if _, err := BuildCrowdBatches(ctx, db, st.ID, set, 3); err != nil {
		t.Fatal(err)
	}
	if err := db.SetStudyState(ctx, st.ID, domain.StateOpen, "test"); err != nil {
		t.Fatal(err)
	}
	return New(db, db.Now), db, st
}

// arrive enters and consents a participant and returns their session.
func arrive(t *testing.T, svc *Service, studyID int64, pid string) CrowdSession {
	t.Helper()
	ctx := context.Background()
	c, err := svc.CrowdSession(ctx, studyID, "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Enter(ctx, CrowdArrival{PID: pid}, func() time.Duration { return 0 })
	if err != nil || e.Outcome != EntryScreen || e.Token == "" {
		t.Fatalf("enter: %+v, %v", e, err)
	}
	if c, err = svc.CrowdSession(ctx, studyID, e.Token); err != nil {
		t.Fatal(err)
	}
	if next, err := c.Next(ctx, false); err != nil || next.Page != PageLanding {
		t.Fatalf("before consent: %+v, %v; want the landing page", next, err)
	}
	if tok, err := c.Consent(ctx); err != nil || tok != "" {
		t.Fatalf("consent: %q, %v", tok, err)
	}
	return c
}

func mustNext(t *testing.T, c CrowdSession, begin bool, want CrowdPage) CrowdNext {
	t.Helper()
	next, err := c.Next(context.Background(), begin)
	if err != nil {
		t.Fatal(err)
	}
	if next.Page != want {
		t.Fatalf("next page %d, want %d (%+v)", next.Page, want, next)
	}
	return next
}

// rightRating passes a practice item shown in condition.
func rightRating(sc domain.CrowdScreen) int {
	if sc.Condition == domain.ConditionCancel {
		return 2
	}
	return 6
}

// TestCrowdSessionWalk takes a participant through the study with the
// service alone: practice (one wrong answer), the page that ends it, the
// batch, the completion.
func TestCrowdSessionWalk(t *testing.T) {
	ctx := context.Background()
	svc, db, st := crowdFixture(t, nil)
	c := arrive(t, svc, st.ID, strings.Repeat("a", 24))

	next := mustNext(t, c, false, PageTraining)
	if next.Total != 2 || next.Screen.Position != 1 || next.Attempt != 0 {
		t.Fatalf("first practice item: %+v", next)
	}
	if err := c.AnswerTraining(ctx, 1, 0, 8-rightRating(next.Screen), 0); err != nil {
		t.Fatal(err)
	}
	next = mustNext(t, c, false, PageTraining)
	if next.Screen.Position != 1 || next.Attempt != 1 {
		t.Fatalf("after a wrong answer, the same item with try again: %+v", next)
	}
	for pos := 1; pos <= 2; pos++ {
		if pos == 2 {
			next = mustNext(t, c, false, PageTraining)
		}
		if err := c.AnswerTraining(ctx, pos, next.Attempt, rightRating(next.Screen), 0); err != nil {
			t.Fatal(err)
		}
	}
	end := mustNext(t, c, false, PagePracticeEnd)
	mustNext(t, c, false, PagePracticeEnd) // reloading stays there
	next = mustNext(t, c, true, PageItem)
	if next.Screen.Position != 1 || next.Total != end.Total || next.Done != 0 {
		t.Fatalf("first screen: %+v (practice end said %d screens)", next, end.Total)
	}
	// Once the first screen was shown, the practice end is not shown again.
	mustNext(t, c, false, PageItem)
	for pos := 1; pos <= next.Total; pos++ {
		got := mustNext(t, c, false, PageItem)
		if got.Screen.Position != pos || got.Done != pos-1 {
			t.Fatalf("screen %d: %+v", pos, got)
		}
		if err := c.Answer(ctx, pos, 4, 0); err != nil {
			t.Fatal(err)
		}
	}
	done := mustNext(t, c, false, PageDone)
	if done.Total != next.Total {
		t.Fatalf("done: %+v", done)
	}
	p, err := db.CrowdParticipantByToken(ctx, st.ID, c.token)
	if err != nil {
		t.Fatal(err)
	}
	ratings, err := db.CrowdRatings(ctx, p.ID)
	if err != nil || len(ratings) != next.Total {
		t.Fatalf("%d ratings stored (%v), want %d", len(ratings), err, next.Total)
	}
}

// TestCrowdSessionRefusesOffScale: a rating off the scale is refused with
// ErrRatingRange and stores nothing, on both answer paths; a valid answer
// sent twice is stored once.
func TestCrowdSessionRefusesOffScale(t *testing.T) {
	ctx := context.Background()
	svc, db, st := crowdFixture(t, nil)
	c := arrive(t, svc, st.ID, strings.Repeat("b", 24))
	p, _ := db.CrowdParticipantByToken(ctx, st.ID, c.token)
	for _, r := range []int{0, -1, domain.RatingMax + 1, 70} {
		if err := c.AnswerTraining(ctx, 1, 0, r, 0); !errors.Is(err, domain.ErrRatingRange) {
			t.Fatalf("practice rating %d: %v, want ErrRatingRange", r, err)
		}
	}
	if got := mustNext(t, c, false, PageTraining); got.Screen.Position != 1 || got.Attempt != 0 {
		t.Fatalf("off-scale practice answers counted: %+v", got)
	}
	for pos := 1; pos <= 2; pos++ {
		next := mustNext(t, c, false, PageTraining)
		if err := c.AnswerTraining(ctx, pos, 0, rightRating(next.Screen), 0); err != nil {
			t.Fatal(err)
		}
	}
	mustNext(t, c, true, PageItem)
	for _, r := range []int{0, domain.RatingMax + 1} {
		if err := c.Answer(ctx, 1, r, 0); !errors.Is(err, domain.ErrRatingRange) {
			t.Fatalf("rating %d: %v, want ErrRatingRange", r, err)
		}
	}
	if got := mustNext(t, c, false, PageItem); got.Screen.Position != 1 {
		t.Fatalf("an off-scale rating moved the participant on: %+v", got)
	}
	for range 2 {
		if err := c.Answer(ctx, 1, domain.RatingMin, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Answer(ctx, 1, domain.RatingMax, 0); err != nil {
		t.Fatalf("a resubmit with another rating: %v, want nothing changed and no error", err)
	}
	ratings, _ := db.CrowdRatings(ctx, p.ID)
	if len(ratings) != 1 || ratings[0].Rating != domain.RatingMin {
		t.Fatalf("ratings %+v, want the first answer once", ratings)
	}
	if got := mustNext(t, c, false, PageItem); got.Screen.Position != 2 {
		t.Fatalf("after the answer: %+v", got)
	}
}

// TestCrowdSessionStates: a paused study lets consented participants
// finish and nobody new in; a closed one stops answers.
func TestCrowdSessionStates(t *testing.T) {
	ctx := context.Background()
	svc, db, st := crowdFixture(t, nil)
	c := arrive(t, svc, st.ID, strings.Repeat("c", 24))
	if err := db.SetStudyState(ctx, st.ID, domain.StatePaused, "test"); err != nil {
		t.Fatal(err)
	}
	c, _ = svc.CrowdSession(ctx, st.ID, c.token)
	next := mustNext(t, c, false, PageTraining)
	if err := c.AnswerTraining(ctx, 1, 0, rightRating(next.Screen), 0); err != nil {
		t.Fatalf("paused, consented: %v", err)
	}
	stranger, _ := svc.CrowdSession(ctx, st.ID, "")
	if e, err := stranger.Enter(ctx, CrowdArrival{PID: strings.Repeat("d", 24)}, func() time.Duration { return 0 }); err != nil || e.Outcome != EntryUnavailable {
		t.Fatalf("new arrival while paused: %+v, %v", e, err)
	}
	mustNext(t, stranger, false, PageUnavailable)
	if err := db.SetStudyState(ctx, st.ID, domain.StateClosed, "test"); err != nil {
		t.Fatal(err)
	}
	c, _ = svc.CrowdSession(ctx, st.ID, c.token)
	mustNext(t, c, false, PageUnavailable)
	if err := c.AnswerTraining(ctx, 2, 0, 4, 0); !errors.Is(err, ErrCrowdUnavailable) {
		t.Fatalf("closed: %v, want ErrCrowdUnavailable", err)
	}
	// The state comes before the scale: a closed study says so.
	if err := c.Answer(ctx, 1, 0, 0); !errors.Is(err, ErrCrowdUnavailable) {
		t.Fatalf("closed, off-scale: %v, want ErrCrowdUnavailable", err)
	}
}

// TestCrowdSessionTimeout: a participant back after the time-out carries
// on while their place is free, and sees the moved-on page once a
// newcomer took it.
func TestCrowdSessionTimeout(t *testing.T) {
	ctx := context.Background()
	svc, db, st := crowdFixture(t, func(s *domain.CrowdSettings) { s.Quota = 1 })
	clock := db.Now()
	db.Now = func() time.Time { return clock }
	batches := 0
	for i := 0; ; i++ {
		c, _ := svc.CrowdSession(ctx, st.ID, "")
		e, err := c.Enter(ctx, CrowdArrival{PID: fmt.Sprintf("%024x", i+1)}, func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		c, _ = svc.CrowdSession(ctx, st.ID, e.Token)
		if _, err := c.Consent(ctx); errors.Is(err, domain.ErrStudyFull) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		batches++
	}
	clock = clock.Add(61 * time.Minute) // everyone idle past the time-out
	// The first participant comes back: their place is free, so they go on.
	p1, err := db.CrowdParticipant(ctx, st.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := svc.CrowdSession(ctx, st.ID, p1.Token)
	mustNext(t, c1, false, PageTraining)
	if p, _ := db.CrowdParticipant(ctx, st.ID, 1); !p.LastSeenAt.Equal(clock) {
		t.Fatalf("renewed session last seen %v, want %v", p.LastSeenAt, clock)
	}
	// A newcomer takes the place of someone still away (not the renewed one).
	newcomer, _ := svc.CrowdSession(ctx, st.ID, "")
	e, err := newcomer.Enter(ctx, CrowdArrival{PID: strings.Repeat("e", 24)}, func() time.Duration { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	newcomer, _ = svc.CrowdSession(ctx, st.ID, e.Token)
	if _, err := newcomer.Consent(ctx); err != nil {
		t.Fatalf("newcomer with an idle place to take: %v", err)
	}
	moved := 0
	for id := int64(2); id <= int64(batches); id++ {
		p, err := db.CrowdParticipant(ctx, st.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := svc.CrowdSession(ctx, st.ID, p.Token)
		if next, err := c.Next(ctx, false); err == nil && next.Page == PageMovedOn {
			moved++
		}
	}
	if moved != 1 {
		t.Fatalf("%d of %d idle participants see the moved-on page, want 1", moved, batches-1)
	}
}

// TestCrowdSessionEnter: the outcomes of an arrival at the entry address.
func TestCrowdSessionEnter(t *testing.T) {
	ctx := context.Background()
	svc, db, st := crowdFixture(t, nil)
	open := func(token string) *CrowdSession {
		c, err := svc.CrowdSession(ctx, st.ID, token)
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	let := func() time.Duration { return 0 }
	reserved := 0
	busy := func() time.Duration { reserved++; return 30 * time.Second }
	pidA := strings.Repeat("a", 24)

	// A bare address: incomplete, without a session; the limit is not asked.
	if e, err := open("").Enter(ctx, CrowdArrival{Problem: "missing"}, busy); err != nil || e.Outcome != EntryIncomplete || reserved != 0 {
		t.Fatalf("bare address: %+v, %v (limit asked %d times)", e, err, reserved)
	}
	// A new arrival over the limit waits; within it, it gets an entry.
	if e, err := open("").Enter(ctx, CrowdArrival{PID: pidA}, busy); err != nil || e.Outcome != EntryBusy || e.Wait != 30*time.Second {
		t.Fatalf("over the limit: %+v, %v", e, err)
	}
	e, err := open("").Enter(ctx, CrowdArrival{PID: pidA, SessionID: "s1"}, let)
	if err != nil || e.Outcome != EntryScreen || e.Token == "" {
		t.Fatalf("new arrival: %+v, %v", e, err)
	}
	tok := e.Token
	// The same browser again is not counted and keeps its cookie.
	reserved = 0
	if e, err := open(tok).Enter(ctx, CrowdArrival{PID: pidA}, busy); err != nil || e.Outcome != EntryScreen || e.Token != "" || reserved != 0 {
		t.Fatalf("the same browser again: %+v, %v (limit asked %d times)", e, err, reserved)
	}
	// A malformed PROLIFIC_PID is refused with its name.
	if _, err := open("").Enter(ctx, CrowdArrival{PID: "not-hex"}, let); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), "PROLIFIC_PID") {
		t.Fatalf("malformed PID: %v", err)
	}
	if _, err := open(tok).Consent(ctx); err != nil {
		t.Fatal(err)
	}
	// Another browser with the PID but not the SESSION_ID is refused.
	if _, err := open("").Enter(ctx, CrowdArrival{PID: pidA, SessionID: "other"}, let); !errors.Is(err, domain.ErrNotYourSession) {
		t.Fatalf("the PID in another browser: %v, want ErrNotYourSession", err)
	}
	// The bare address from the browser holding the session resumes.
	if e, err := open(tok).Enter(ctx, CrowdArrival{Problem: "missing"}, busy); err != nil || e.Outcome != EntryScreen {
		t.Fatalf("bare address with a session: %+v, %v", e, err)
	}
	// Closed: a session that may not go on, and newcomers, are told so.
	if err := db.SetStudyState(ctx, st.ID, domain.StateClosed, "test"); err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{tok, ""} {
		if e, err := open(token).Enter(ctx, CrowdArrival{PID: pidA}, let); err != nil || e.Outcome != EntryUnavailable {
			t.Fatalf("closed, token %q: %+v, %v", token, e, err)
		}
	}
}
