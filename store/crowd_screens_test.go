package store

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"pragmalab/domain"
)

// shownScreen is what a participant's page is built from, as compared
// between the cache and the database.
type shownScreen struct {
	P         CrowdParticipant
	Position  int
	Condition string
	ItemID    int64
	Shown     bool
}

func (f *crowdFixture) screenOf(t *testing.T, token string) shownScreen {
	t.Helper()
	p, sc, err := f.db.CrowdSessionScreen(context.Background(), f.study, token)
	if err != nil {
		t.Fatal(err)
	}
	return shownScreen{*p, sc.Position, sc.Condition, sc.Item.ID, sc.Shown}
}

// checkScreen asserts that the screen served (from the cache when it
// holds the session) is the one the database holds.
func (f *crowdFixture) checkScreen(t *testing.T, token, step string) shownScreen {
	t.Helper()
	got := f.screenOf(t, token)
	f.db.hot.screens.forget()
	want := f.screenOf(t, token)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: served\n%+v\nthe database holds\n%+v", step, got, want)
	}
	f.screenOf(t, token) // cached again for the next step
	return got
}

func TestCrowdScreensFollowEveryWrite(t *testing.T) {
	f := newCrowdFixture(t, 2, 4)
	ctx := context.Background()
	e, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(1), StudyID: "s", SessionID: "x"}, f.s)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.db.ConsentCrowd(ctx, f.study, e.Token, f.s)
	if err != nil {
		t.Fatal(err)
	}
	tok := p.Token
	f.checkScreen(t, tok, "after consent")
	if err := f.db.ScreenFirstShown(ctx, FlowTraining, p.ID, 1, true); err != nil {
		t.Fatal(err)
	}
	if s := f.checkScreen(t, tok, "training screen shown"); !s.Shown {
		t.Fatal("a recorded showing is not served as shown")
	}
	// A wrong training answer, then right ones.
	for _, a := range []struct{ pos, attempt, rating int }{{1, 0, 1}, {1, 1, 6}, {2, 0, 2}} {
		if _, err := f.db.AnswerCrowdTraining(ctx, f.study, tok, a.pos, a.attempt, a.rating, 0, f.s); err != nil {
			t.Fatal(err)
		}
		f.checkScreen(t, tok, fmt.Sprintf("training %d attempt %d", a.pos, a.attempt))
	}
	for pos := 1; pos <= 4; pos++ {
		if err := f.db.ScreenFirstShown(ctx, FlowCrowd, p.ID, pos, true); err != nil {
			t.Fatal(err)
		}
		f.checkScreen(t, tok, fmt.Sprintf("screen %d shown", pos))
		*f.now = f.now.Add(time.Second)
		if _, err := f.db.SaveCrowdRating(ctx, f.study, tok, pos, 5, 0, f.s); err != nil {
			t.Fatal(err)
		}
		s := f.checkScreen(t, tok, fmt.Sprintf("screen %d answered", pos))
		if s.Position != pos+1 || s.P.Answered != pos {
			t.Fatalf("after answering screen %d the session is at %d (%d answered)", pos, s.Position, s.P.Answered)
		}
	}
	if s := f.checkScreen(t, tok, "batch done"); s.P.Status != CrowdCompleted || s.ItemID != 0 {
		t.Fatalf("finished session served as %+v", s)
	}
	// An admin write (the researcher's override) reaches the next screen.
	if err := f.db.SetCrowdExclusion(ctx, f.study, p.ID, domain.OverrideExclude); err != nil {
		t.Fatal(err)
	}
	if s := f.checkScreen(t, tok, "override"); s.P.Override != domain.OverrideExclude {
		t.Fatalf("override not served: %+v", s.P)
	}
}

func TestCrowdScreensIdleTimeOut(t *testing.T) {
	f := newCrowdFixture(t, 1, 4)
	ctx := context.Background()
	p := f.enter(t, CrowdArrival{PID: pid(1), StudyID: "s", SessionID: "x"})
	f.ready(t, p)
	f.checkScreen(t, p.Token, "ready")
	// Idle past the time-out, then back: the renewal is served.
	*f.now = f.now.Add(f.s.Timeout() + time.Minute)
	if _, err := f.db.TouchCrowd(ctx, f.study, p.Token, f.s); err != nil {
		t.Fatal(err)
	}
	if s := f.checkScreen(t, p.Token, "renewed"); !s.P.LastSeenAt.Equal(*f.now) {
		t.Fatalf("renewal not served: last seen %v, want %v", s.P.LastSeenAt, *f.now)
	}
}

// Another process writing the same file: its change reaches the screens
// this process serves (within the writer's look at PRAGMA data_version).
func TestCrowdScreensSeeAnotherProcess(t *testing.T) {
	f := newCrowdFixture(t, 1, 4)
	ctx := context.Background()
	p := f.enter(t, CrowdArrival{PID: pid(1), StudyID: "s", SessionID: "x"})
	f.ready(t, p)
	if s := f.screenOf(t, p.Token); s.Position != 1 {
		t.Fatalf("at screen %d, want 1", s.Position)
	}
	other, err := Open(ctx, f.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Now = f.db.Now
	if _, err := other.SaveCrowdRating(ctx, f.study, p.Token, 1, 4, 0, f.s); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for f.screenOf(t, p.Token).Position != 2 {
		if time.Now().After(deadline) {
			t.Fatal("an answer stored by another process never reached the screen served here")
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.checkScreen(t, p.Token, "after the other process")

	// The researcher edits the item on screen (the CLI, say): the edit
	// reaches the page this process serves.
	_, sc, err := f.db.CrowdSessionScreen(ctx, f.study, p.Token)
	if err != nil {
		t.Fatal(err)
	}
	next := sc.Item
	next.Utterance = "edited by another process"
	if changed, err := other.EditItem(ctx, f.study, sc.Item.ID, next, "typo"); err != nil || !changed {
		t.Fatalf("edit: %v %v", changed, err)
	}
	for {
		_, sc, err := f.db.CrowdSessionScreen(ctx, f.study, p.Token)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Item.Utterance == next.Utterance {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an item edited by another process never reached the screen served here")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Many participants answering while their screens are read: once an
// answer is acknowledged, no screen before the next is ever served, and
// at the end every cached session is the database's.
func TestCrowdScreensUnderLoad(t *testing.T) {
	const n, per = 24, 6
	f := newCrowdFixture(t, 4, per)
	f.s.Quota = n
	ctx := context.Background()
	if err := f.db.SaveCrowdSettings(ctx, f.study, f.s); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for i := range n {
		p := f.enter(t, CrowdArrival{PID: pid(i), StudyID: "s", SessionID: "x" + pid(i)})
		f.ready(t, p)
		tokens = append(tokens, p.Token)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i, tok := range tokens {
		// Its answers, with a second reader looking at the same session.
		stop := make(chan struct{})
		wg.Go(func() {
			defer close(stop)
			for pos := 1; pos <= per; pos++ {
				if _, _, err := f.db.CrowdSessionScreen(ctx, f.study, tok); err != nil {
					errs <- err
					return
				}
				if pos%2 == 0 {
					f.db.ScreenFirstShown(ctx, FlowCrowd, 0, pos, false) // another owner's record: changes nothing here
				}
				if _, err := f.db.SaveCrowdRating(ctx, f.study, tok, pos, 1+(i+pos)%7, 0, f.s); err != nil {
					errs <- err
					return
				}
				_, sc, err := f.db.CrowdSessionScreen(ctx, f.study, tok)
				if err != nil {
					errs <- err
					return
				}
				if sc.Position <= pos {
					errs <- fmt.Errorf("participant %d: screen %d served after screen %d was acknowledged", i, sc.Position, pos)
					return
				}
			}
		})
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := f.db.CrowdSessionScreen(ctx, f.study, tok); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, tok := range tokens {
		if s := f.checkScreen(t, tok, fmt.Sprintf("participant %d at the end", i)); s.P.Status != CrowdCompleted {
			t.Fatalf("participant %d: %s after all %d answers", i, s.P.Status, per)
		}
	}
}
