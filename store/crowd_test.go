package store

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"pragmalab/domain"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// crowdFixture is a crowd study with items, training and batches.
type crowdFixture struct {
	db    *DB
	study int64
	s     domain.CrowdSettings
	now   *time.Time
}

// newCrowdFixture makes a study with nb batches of per screens each (the
// last screen of every batch is a high check, the one before a low check
// when per >= 3) and two training items (trigger, cancel).
func newCrowdFixture(t testing.TB, nb, per int) *crowdFixture {
	t.Helper()
	db := mustOpenDB(t)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	f := &crowdFixture{db: db, now: &now}
	db.Now = func() time.Time { return *f.now }
	ctx := context.Background()
	st := &domain.Study{Kind: domain.KindCrowd, Name: "crowd", Lang: "en"}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	f.study = st.ID
	var items []domain.Item
	for i := range nb*per + 2 {
		items = append(items, domain.Item{Key: fmt.Sprintf("it%03d", i), Type: "scalar", Utterance: "u", Implicature: "b", Cancellation: "x"})
	}
	items = append(items,
		domain.Item{Key: "chk-high", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "high"},
		domain.Item{Key: "chk-low", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "low"})
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	stored, err := db.ListItems(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]int64{}
	for _, it := range stored {
		byKey[it.Key] = it.ID
	}
	training := []CrowdSlot{{byKey["it000"], "trigger"}, {byKey["it001"], "cancel"}}
	var batches [][]CrowdSlot
	next := 2
	for range nb {
		var b []CrowdSlot
		for j := range per {
			switch {
			case j == per-1:
				b = append(b, CrowdSlot{byKey["chk-high"], "trigger"})
			case j == per-2 && per >= 3:
				b = append(b, CrowdSlot{byKey["chk-low"], "trigger"})
			default:
				b = append(b, CrowdSlot{byKey[fmt.Sprintf("it%03d", next)], []string{"trigger", "cancel"}[j%2]})
				next++
			}
		}
		batches = append(batches, b)
	}
	if err := db.SaveCrowdBatches(ctx, st.ID, 42, training, batches); err != nil {
		t.Fatal(err)
	}
	f.s = domain.DefaultCrowdSettings()
	f.s.CompletionCode = "DONE1"
	if err := db.SaveCrowdSettings(ctx, st.ID, f.s); err != nil {
		t.Fatal(err)
	}
	return f
}

func pid(i int) string { return fmt.Sprintf("%024x", i+1) }

// arrive opens the entry link and consents, which is when the batch is
// assigned.
func (f *crowdFixture) arrive(a CrowdArrival) (*CrowdParticipant, error) {
	ctx := context.Background()
	p, err := f.db.EnterCrowd(ctx, f.study, a, f.s)
	if err != nil {
		return nil, err
	}
	return f.db.ConsentCrowd(ctx, f.study, p.Token, f.s)
}

func (f *crowdFixture) enter(t *testing.T, a CrowdArrival) *CrowdParticipant {
	t.Helper()
	p, err := f.arrive(a)
	if err != nil {
		t.Fatalf("enter %s: %v", a.PID, err)
	}
	return p
}

// ready consents and passes the training.
func (f *crowdFixture) ready(t *testing.T, p *CrowdParticipant) {
	t.Helper()
	ctx := context.Background()
	if _, err := f.db.ConsentCrowd(ctx, f.study, p.Token, f.s); err != nil {
		t.Fatal(err)
	}
	for pos, rating := range []int{6, 2} {
		r, err := f.db.AnswerCrowdTraining(ctx, f.study, p.Token, pos+1, 0, rating, 0, f.s)
		if err != nil || !r.Passed {
			t.Fatalf("training %d: %+v %v", pos+1, r, err)
		}
	}
}

func TestCrowdAssignmentConcurrent(t *testing.T) {
	f := newCrowdFixture(t, 18, 2)
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted, full := 0, 0
	var other []error
	start := make(chan struct{})
	for i := range 200 {
		wg.Go(func() {
			<-start
			_, err := f.arrive(CrowdArrival{PID: pid(i), StudyID: "s", SessionID: "x" + pid(i)})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				admitted++
			case errors.Is(err, domain.ErrStudyFull):
				full++
			default:
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if len(other) > 0 {
		t.Fatalf("unexpected errors: %v", other[:min(3, len(other))])
	}
	if admitted != 90 || full != 110 {
		t.Fatalf("admitted %d, full %d; want 90 and 110", admitted, full)
	}
	var sessions int
	f.db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM crowd_participants WHERE study_id = ?`, f.study).Scan(&sessions)
	if sessions != 90 {
		t.Fatalf("%d sessions stored, want 90", sessions)
	}
	prog, err := f.db.CrowdProgress(ctx, f.study, f.s)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range prog {
		if b.Taken() != 5 {
			t.Errorf("batch %d has %d participants, want 5", b.Number, b.Taken())
		}
	}
}

func TestCrowdEntrySamePID(t *testing.T) {
	f := newCrowdFixture(t, 3, 4)
	a := CrowdArrival{PID: pid(1), StudyID: "study1", SessionID: "sess1"}
	p := f.enter(t, a)
	if p.PID != a.PID || p.ProlificStudyID != "study1" || p.SessionID != "sess1" || p.Token == "" {
		t.Fatalf("stored %+v", p)
	}
	// Same browser (cookie): the same session, never a second batch.
	a.Token = p.Token
	again := f.enter(t, a)
	if again.ID != p.ID || again.BatchID != p.BatchID {
		t.Fatalf("same PID got session %d batch %d, want %d batch %d", again.ID, again.BatchID, p.ID, p.BatchID)
	}
	// Another browser knowing only the PID: refused.
	for _, sess := range []string{"", "guess"} {
		_, err := f.db.EnterCrowd(context.Background(), f.study, CrowdArrival{PID: pid(1), SessionID: sess}, f.s)
		if !errors.Is(err, domain.ErrNotYourSession) {
			t.Fatalf("PID alone with SESSION_ID %q: err %v, want ErrNotYourSession", sess, err)
		}
	}
	// Another browser with PID and SESSION_ID: the same session.
	other := f.enter(t, CrowdArrival{PID: pid(1), SessionID: "sess1"})
	if other.ID != p.ID || other.Token != p.Token {
		t.Fatal("PID + SESSION_ID from another browser did not resume the session")
	}
	var n int
	f.db.read.QueryRow(`SELECT COUNT(*) FROM crowd_participants`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d sessions, want 1", n)
	}
}

func TestCrowdArrivalValidate(t *testing.T) {
	f := newCrowdFixture(t, 1, 2)
	for _, tc := range []struct {
		a    CrowdArrival
		want string
	}{
		{CrowdArrival{}, "PROLIFIC_PID is missing"},
		{CrowdArrival{PID: "{{%PROLIFIC_PID%}}"}, "PROLIFIC_PID is malformed"},
		{CrowdArrival{PID: strings.Repeat("a", 65)}, "PROLIFIC_PID is malformed"},
		{CrowdArrival{PID: "abc"}, "a Prolific id is 24 hexadecimal characters"},
		{CrowdArrival{PID: strings.Repeat("g", 24)}, "a Prolific id is 24 hexadecimal characters"},
		{CrowdArrival{PID: pid(0), SessionID: "a b"}, "SESSION_ID is malformed"},
		{CrowdArrival{PID: pid(0), StudyID: "<x>"}, "STUDY_ID is malformed"},
	} {
		_, err := f.db.EnterCrowd(context.Background(), f.study, tc.a, f.s)
		if err == nil || domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.a, err, tc.want)
		}
	}
	var n int
	f.db.read.QueryRow(`SELECT COUNT(*) FROM crowd_participants`).Scan(&n)
	if n != 0 {
		t.Fatalf("bad arrivals stored %d sessions", n)
	}
}

func TestCrowdTimeout(t *testing.T) {
	f := newCrowdFixture(t, 1, 3)
	f.s.Quota = 2
	ctx := context.Background()
	a := f.enter(t, CrowdArrival{PID: pid(1)})
	f.enter(t, CrowdArrival{PID: pid(2)})
	if _, err := f.arrive(CrowdArrival{PID: pid(3)}); !errors.Is(err, domain.ErrStudyFull) {
		t.Fatalf("third participant: %v, want ErrStudyFull", err)
	}
	// 61 minutes later nobody came: a carries on.
	*f.now = f.now.Add(61 * time.Minute)
	back, err := f.db.TouchCrowd(ctx, f.study, a.Token, f.s)
	if err != nil || back.Status != CrowdActive {
		t.Fatalf("returning within a free slot: %+v %v", back, err)
	}
	// b is idle now (61 minutes): its slot goes to c.
	c := f.enter(t, CrowdArrival{PID: pid(3)})
	if c.BatchID != a.BatchID {
		t.Fatal("c did not get the freed slot")
	}
	// b comes back: the slot is taken, the study has moved on.
	b, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(2), Token: mustToken(t, f, pid(2))}, f.s)
	if err != nil || b.Status != CrowdMovedOn {
		t.Fatalf("b after its slot was taken: %+v %v", b, err)
	}
	// And b's answers are refused from now on.
	f.ready(t, c)
	if p, err := f.db.SaveCrowdRating(ctx, f.study, b.Token, 1, 4, 0, f.s); err != nil || p.Answered != 0 {
		t.Fatalf("moved-on participant's answer stored: %+v %v", p, err)
	}
}

func mustToken(t *testing.T, f *crowdFixture, pid string) string {
	t.Helper()
	var tok string
	if err := f.db.read.QueryRow(`SELECT token FROM crowd_participants WHERE prolific_pid = ?`, pid).Scan(&tok); err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestCrowdRatingsIdempotentAndComplete(t *testing.T) {
	f := newCrowdFixture(t, 2, 4)
	ctx := context.Background()
	p := f.enter(t, CrowdArrival{PID: pid(1)})
	// domain.No answer before consent and training.
	if q, _ := f.db.SaveCrowdRating(ctx, f.study, p.Token, 1, 5, 0, f.s); q.Answered != 0 {
		t.Fatal("answer stored before the training")
	}
	f.ready(t, p)
	save := func(pos, rating int) CrowdAnswerState {
		t.Helper()
		q, err := f.db.SaveCrowdRating(ctx, f.study, p.Token, pos, rating, 0, f.s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	save(1, 5)
	if q := save(1, 2); q.Answered != 1 { // double submit, other value
		t.Fatalf("answered = %d after resubmit, want 1", q.Answered)
	}
	if q := save(3, 2); q.Answered != 1 { // skipping ahead
		t.Fatalf("answered = %d after skipping, want 1", q.Answered)
	}
	save(2, 7)
	save(3, 2) // the low check, passed
	if q := save(4, 1); q.Status != CrowdCompleted || q.Answered != 4 {
		t.Fatalf("after the last screen: %+v", q)
	}
	if p, _ := f.db.CrowdParticipant(ctx, f.study, p.ID); p.CompletedAt.IsZero() || p.Status != CrowdCompleted {
		t.Fatalf("stored after the last screen: %+v", p)
	}
	if q := save(4, 1); q.Status != CrowdCompleted {
		t.Fatal("resubmitting the last answer changed the session")
	}
	rs, err := f.db.CrowdRatings(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || rs[0].Rating != 5 {
		t.Fatalf("ratings %+v; want 4 with the first answer 5 kept", rs)
	}
	if _, err := f.db.SaveCrowdRating(ctx, f.study, p.Token, 2, 8, 0, f.s); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("rating 8: %v", err)
	}
	if _, err := f.db.SaveCrowdRating(ctx, f.study, "forged", 2, 3, 0, f.s); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("unknown token: %v", err)
	}
	// The batches cannot be rebuilt now.
	if err := f.db.SaveCrowdBatches(ctx, f.study, 1, nil, [][]CrowdSlot{{{rs[0].ItemID, "trigger"}}}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("rebuild after participants: %v", err)
	}
}

func TestCrowdTraining(t *testing.T) {
	f := newCrowdFixture(t, 2, 3)
	ctx := context.Background()
	p := f.enter(t, CrowdArrival{PID: pid(1)})
	if _, err := f.db.ConsentCrowd(ctx, f.study, p.Token, f.s); err != nil {
		t.Fatal(err)
	}
	// domain.Item 1 is without cancellation: 2 is wrong, try again.
	r, _ := f.db.AnswerCrowdTraining(ctx, f.study, p.Token, 1, 0, 2, 0, f.s)
	if !r.Retry || r.P.TrainingWrong != 1 {
		t.Fatalf("wrong answer: %+v", r)
	}
	// The same wrong answer submitted twice (attempt 0 again) is stale.
	r, _ = f.db.AnswerCrowdTraining(ctx, f.study, p.Token, 1, 0, 2, 0, f.s)
	if r.Retry || r.Passed || r.P.Status != CrowdActive {
		t.Fatalf("double submit counted: %+v", r)
	}
	r, _ = f.db.AnswerCrowdTraining(ctx, f.study, p.Token, 1, 1, 6, 0, f.s)
	if !r.Passed || r.P.TrainingDone != 1 || r.P.TrainingWrong != 0 {
		t.Fatalf("right answer: %+v", r)
	}
	// domain.Item 2 has the cancellation: 6 is wrong twice; without a screen-out
	// code the participant keeps trying.
	for attempt := range 3 {
		r, _ = f.db.AnswerCrowdTraining(ctx, f.study, p.Token, 2, attempt, 6, 0, f.s)
		if !r.Retry {
			t.Fatalf("attempt %d: %+v", attempt, r)
		}
	}
	// With a screen-out code, the second wrong answer ends it.
	f.s.ScreenOutCode = "SCREEN1"
	q := f.enter(t, CrowdArrival{PID: pid(2)})
	f.db.ConsentCrowd(ctx, f.study, q.Token, f.s)
	f.db.AnswerCrowdTraining(ctx, f.study, q.Token, 1, 0, 1, 0, f.s)
	r, _ = f.db.AnswerCrowdTraining(ctx, f.study, q.Token, 1, 1, 3, 0, f.s)
	if r.P.Status != CrowdScreenedOut {
		t.Fatalf("second failure with a screen-out code: %+v", r.P)
	}
	// A screened-out participant frees the slot.
	prog, _ := f.db.CrowdProgress(ctx, f.study, f.s)
	if q.BatchID == p.BatchID {
		t.Fatal("second participant put on the occupied batch while another was empty")
	}
	if prog[q.BatchNumber-1].Taken() != 0 || prog[q.BatchNumber-1].ScreenedOut != 1 {
		t.Fatalf("screened-out participant still counted: %+v", prog)
	}
	var attempts int
	f.db.read.QueryRow(`SELECT COUNT(*) FROM crowd_training_answers WHERE participant_id = ?`, p.ID).Scan(&attempts)
	if attempts != 5 {
		t.Fatalf("%d training answers stored for p, want 5", attempts)
	}
}

func TestCrowdExport(t *testing.T) {
	f := newCrowdFixture(t, 1, 4)
	f.s.Quota = 3
	f.s.MaxFailedChecks = 1
	ctx := context.Background()
	answer := func(id int, ratings ...int) *CrowdParticipant {
		p := f.enter(t, CrowdArrival{PID: pid(id), StudyID: "st", SessionID: fmt.Sprint("se", id)})
		f.ready(t, p)
		for i, r := range ratings {
			if _, err := f.db.SaveCrowdRating(ctx, f.study, p.Token, i+1, r, 0, f.s); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	answer(1, 6, 2, 1, 7) // both checks passed (low: 1, high: 7)
	// it002 corrected between the two: the second participant rates version 2.
	if _, err := f.db.write.Exec(`UPDATE items SET version = 2 WHERE study_id = ? AND key = 'it002'`, f.study); err != nil {
		t.Fatal(err)
	}
	p2 := answer(2, 5, 5, 6, 2) // both failed
	answer(3, 4)                // not finished
	if err := f.db.SaveCrowdSettings(ctx, f.study, f.s); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.db.ExportRatings(ctx, f.study, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "participant_id,batch_id,item_id,item_type,condition,rating,check,item_version,shown_at,answered_at,rt_ms,answer_changes,hidden_ms,first_input_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot,machine_instruction,scale_points" {
		t.Fatalf("header %v", recs[0])
	}
	if len(recs) != 9 {
		t.Fatalf("%d rows, want 8 ratings of the 2 completed participants + header", len(recs))
	}
	// The store test shows no page, so shown_at is empty; answered_at is
	// the clock's.
	if got := strings.Join(recs[4], ","); got != pid(1)+",1,chk-high,synthetic,trigger,7,high,1,,2026-11-29T12:00:00.000Z,,,,,,,,,,,7" {
		t.Fatalf("row 4 = %s", got)
	}
	if got := strings.Join(recs[1][:8], ","); got != pid(1)+",1,it002,scalar,trigger,6,,1" {
		t.Fatalf("row 1 = %s", got)
	}
	if got := strings.Join(recs[5][:8], ","); !strings.HasPrefix(got, pid(2)+",1,it002,") || !strings.HasSuffix(got, ",2") {
		t.Fatalf("row 5 = %s, want the second participant's rating of it002 on version 2", got)
	}
	reps, err := f.db.CrowdParticipants(ctx, f.study, f.s)
	if err != nil {
		t.Fatal(err)
	}
	if reps[0].ChecksFailed != 0 || reps[0].Excluded || reps[1].ChecksFailed != 2 || !reps[1].Excluded || reps[1].ChecksAnswered != 2 {
		t.Fatalf("check results: %+v / %+v", reps[0], reps[1])
	}
	// The researcher overrides: p2 stays in.
	if err := f.db.SetCrowdExclusion(ctx, f.study, p2.ID, "include"); err != nil {
		t.Fatal(err)
	}
	reps, _ = f.db.CrowdParticipants(ctx, f.study, f.s)
	if !reps[1].AutoExcluded || reps[1].Excluded {
		t.Fatalf("override not applied: %+v", reps[1])
	}
	buf.Reset()
	f.db.SetCrowdExclusion(ctx, f.study, p2.ID, "")
	f.db.ExportCrowdRatings(ctx, f.study, &buf, true)
	if n := strings.Count(buf.String(), pid(2)); n != 0 {
		t.Fatalf("excluded participant exported %d times with exclusions applied", n)
	}
	buf.Reset()
	if err := f.db.ExportCrowdParticipants(ctx, f.study, &buf); err != nil {
		t.Fatal(err)
	}
	recs, _ = csv.NewReader(&buf).ReadAll()
	if len(recs) != 4 || recs[2][0] != pid(2) || recs[2][2] != "se2" || recs[2][4] != "completed" || recs[2][12] != "2" || recs[2][15] != "yes" {
		t.Fatalf("participants CSV %v", recs)
	}
	if recs[3][4] != "active" || recs[3][8] != "1" {
		t.Fatalf("unfinished participant row %v", recs[3])
	}
}

func TestCrowdSettingsValidate(t *testing.T) {
	for _, tc := range []struct {
		mod  func(*domain.CrowdSettings)
		want string
	}{
		{func(s *domain.CrowdSettings) { s.Quota = 0 }, "quota must be 1–1000"},
		{func(s *domain.CrowdSettings) { s.CheckHighMin = 8 }, "high check threshold"},
		{func(s *domain.CrowdSettings) { s.Conditions = []string{"trigger", "neutral"} }, "must include trigger and cancel"},
		{func(s *domain.CrowdSettings) { s.CompletionCode = "C O" }, "completion code"},
		{func(s *domain.CrowdSettings) {
			s.Training = []domain.CrowdTrainingSpec{{Key: "a", Condition: "negation"}}
		}, "training line 1 (a)"},
	} {
		s := domain.DefaultCrowdSettings()
		tc.mod(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err %v, want %q", err, tc.want)
		}
	}
	s := domain.DefaultCrowdSettings()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestCrowdAnswerAfterIdle(t *testing.T) {
	f := newCrowdFixture(t, 1, 3)
	f.s.Quota = 1
	ctx := context.Background()
	a := f.enter(t, CrowdArrival{PID: pid(1)})
	f.ready(t, a)
	// Two hours away; nobody took the slot: the answer is stored.
	*f.now = f.now.Add(2 * time.Hour)
	st, err := f.db.SaveCrowdRating(ctx, f.study, a.Token, 1, 6, 0, f.s)
	if err != nil || st.Answered != 1 || st.Status != CrowdActive {
		t.Fatalf("answer after a free idle time: %+v %v", st, err)
	}
	// Two more hours; meanwhile b takes the slot: a's answer is refused.
	*f.now = f.now.Add(2 * time.Hour)
	f.enter(t, CrowdArrival{PID: pid(2)})
	st, err = f.db.SaveCrowdRating(ctx, f.study, a.Token, 2, 6, 0, f.s)
	if err != nil || st.Answered != 1 || st.Status != CrowdMovedOn {
		t.Fatalf("answer after the slot was taken: %+v %v", st, err)
	}
	rs, _ := f.db.CrowdRatings(ctx, a.ID)
	if len(rs) != 1 {
		t.Fatalf("%d ratings, want 1", len(rs))
	}
}

// TestCrowdSlotTakenAtConsent: opening the link takes no slot; consent
// does, and only then can the study be full.
func TestCrowdSlotTakenAtConsent(t *testing.T) {
	f := newCrowdFixture(t, 1, 3)
	f.s.Quota = 1
	ctx := context.Background()
	var entries []*CrowdParticipant
	for i := range 50 {
		p, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(100 + i)}, f.s)
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != 0 || p.BatchID != 0 || p.Token == "" {
			t.Fatalf("an entry got a session: %+v", p)
		}
		entries = append(entries, p)
	}
	prog, _ := f.db.CrowdProgress(ctx, f.study, f.s)
	if prog[0].Taken() != 0 {
		t.Fatalf("%d slots taken by link openings", prog[0].Taken())
	}
	real := f.enter(t, CrowdArrival{PID: pid(1), SessionID: "s1"})
	if real.BatchID == 0 || !real.Consented {
		t.Fatalf("consent did not assign a batch: %+v", real)
	}
	// The session keeps the entry's token: the browser's cookie stays.
	if _, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(1), Token: real.Token}, f.s); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.ConsentCrowd(ctx, f.study, entries[0].Token, f.s); !errors.Is(err, domain.ErrStudyFull) {
		t.Fatalf("consent with every slot taken: %v, want ErrStudyFull", err)
	}
	var n int
	f.db.read.QueryRow(`SELECT COUNT(*) FROM crowd_participants`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d sessions, want 1", n)
	}
}

// TestCrowdPIDCaseInsensitive: one person cannot get two sessions by
// changing the case of their id; other shapes need the any_pid setting.
func TestCrowdPIDCaseInsensitive(t *testing.T) {
	f := newCrowdFixture(t, 2, 3)
	ctx := context.Background()
	id := "5F0C1A2B3C4D5E6F7A8B9C0D"
	p := f.enter(t, CrowdArrival{PID: id, SessionID: "s1"})
	if p.PID != strings.ToLower(id) {
		t.Fatalf("stored PID %q, want lower case", p.PID)
	}
	if _, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: strings.ToLower(id)}, f.s); !errors.Is(err, domain.ErrNotYourSession) {
		t.Fatalf("same PID in lower case from another browser: %v, want ErrNotYourSession", err)
	}
	again, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: strings.ToLower(id), SessionID: "s1"}, f.s)
	if err != nil || again.ID != p.ID {
		t.Fatalf("same PID other case + SESSION_ID: %+v %v", again, err)
	}
	if _, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: "tester-1"}, f.s); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("non-Prolific id accepted without any_pid: %v", err)
	}
	f.s.AnyPID = true
	if _, err := f.arrive(CrowdArrival{PID: "Tester-1"}); err != nil {
		t.Fatalf("any_pid: %v", err)
	}
}

// TestCrowdTwoEntriesOnePID: the same PID opened in two browsers before
// consenting; the second consent gets the first's session only with the
// same SESSION_ID.
func TestCrowdTwoEntriesOnePID(t *testing.T) {
	f := newCrowdFixture(t, 2, 3)
	ctx := context.Background()
	a, _ := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(1), SessionID: "s1"}, f.s)
	b, _ := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(1), SessionID: "s1"}, f.s)
	c, _ := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(1), SessionID: "other"}, f.s)
	pa, err := f.db.ConsentCrowd(ctx, f.study, a.Token, f.s)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := f.db.ConsentCrowd(ctx, f.study, b.Token, f.s)
	if err != nil || pb.ID != pa.ID || pb.Token != pa.Token {
		t.Fatalf("second browser, same SESSION_ID: %+v %v", pb, err)
	}
	if _, err := f.db.ConsentCrowd(ctx, f.study, c.Token, f.s); !errors.Is(err, domain.ErrNotYourSession) {
		t.Fatalf("third browser, other SESSION_ID: %v", err)
	}
}

// slotsMatch checks that every batch's slots_taken is the number of its
// participants holding a place (active or completed).
func slotsMatch(t *testing.T, f *crowdFixture) {
	t.Helper()
	rows, err := f.db.read.Query(`
		SELECT b.number, b.slots_taken,
			(SELECT COUNT(*) FROM crowd_participants p WHERE p.batch_id = b.id AND p.status IN ('active', 'completed'))
		FROM batches b WHERE b.study_id = ?`, f.study)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n, kept, counted int
		rows.Scan(&n, &kept, &counted)
		if kept != counted {
			t.Errorf("batch %d: slots_taken %d, but %d participants hold a place", n, kept, counted)
		}
	}
}

// TestCrowdSlotCounts: the places kept with the batches follow arrivals,
// completions, screen-outs and time-outs.
func TestCrowdSlotCounts(t *testing.T) {
	f := newCrowdFixture(t, 3, 3)
	f.s.Quota, f.s.ScreenOutCode = 2, "OUT"
	ctx := context.Background()
	var ps []*CrowdParticipant
	for i := range 6 {
		ps = append(ps, f.enter(t, CrowdArrival{PID: pid(i)}))
	}
	slotsMatch(t, f)
	if _, err := f.arrive(CrowdArrival{PID: pid(6)}); !errors.Is(err, domain.ErrStudyFull) {
		t.Fatalf("seventh: %v, want full", err)
	}
	// One completes, one is screened out (its place frees), one idles.
	f.ready(t, ps[0])
	for pos := 1; pos <= 3; pos++ {
		f.db.SaveCrowdRating(ctx, f.study, ps[0].Token, pos, 6, 0, f.s)
	}
	f.db.ConsentCrowd(ctx, f.study, ps[1].Token, f.s)
	for attempt := range 2 {
		f.db.AnswerCrowdTraining(ctx, f.study, ps[1].Token, 1, attempt, 1, 0, f.s)
	}
	slotsMatch(t, f)
	late := f.enter(t, CrowdArrival{PID: pid(7)})
	if late.BatchID != ps[1].BatchID {
		t.Fatalf("the newcomer went to batch %d, not to the screened-out participant's %d", late.BatchID, ps[1].BatchID)
	}
	// Everybody but ps[5] comes back after 61 minutes and answers (a page
	// view alone renews no hold: docs/studies.md#no-hoarding); a newcomer
	// takes ps[5]'s place, which moves ps[5] on.
	*f.now = f.now.Add(61 * time.Minute)
	for _, p := range []*CrowdParticipant{ps[2], ps[3], ps[4], late} {
		if back, err := f.db.TouchCrowd(ctx, f.study, p.Token, f.s); err != nil || back.Status != CrowdActive {
			t.Fatalf("returning participant: %+v %v", back, err)
		}
		f.ready(t, p)
	}
	c := f.enter(t, CrowdArrival{PID: pid(8)})
	if c.BatchID != ps[5].BatchID {
		t.Fatalf("the newcomer went to batch %d, not to the idle participant's %d", c.BatchID, ps[5].BatchID)
	}
	if b, _ := f.db.TouchCrowd(ctx, f.study, ps[5].Token, f.s); b.Status != CrowdMovedOn {
		t.Fatalf("idle participant after their place was taken: %s", b.Status)
	}
	if _, err := f.arrive(CrowdArrival{PID: pid(9)}); !errors.Is(err, domain.ErrStudyFull) {
		t.Fatalf("with no idle place left: %v, want full", err)
	}
	slotsMatch(t, f)
}

// TestCrowdAssignmentUsesIndexes: choosing a batch reads indexes, never
// every batch or participant, so it costs the same at any study size.
func TestCrowdAssignmentUsesIndexes(t *testing.T) {
	db := mustOpenDB(t)
	for _, q := range []string{
		`SELECT id, slots_taken FROM batches WHERE study_id = 1 AND retired = 0 ORDER BY slots_taken, number LIMIT 1`,
		`SELECT id, batch_id FROM crowd_participants WHERE study_id = 1 AND status = 'active' AND last_seen_at < 'x' ORDER BY last_seen_at LIMIT 1`,
	} {
		rows, err := db.read.Query(`EXPLAIN QUERY PLAN ` + q)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			rows.Scan(&id, &parent, &notused, &detail)
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if !strings.Contains(p, "USING INDEX") && !strings.Contains(p, "USING COVERING INDEX") || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("%s\nplan: %s; want an index search, no sort", q, p)
		}
	}
}

// TestProlificSyncFreesPlace: a submission returned on Prolific ends the
// session as moved on and gives its place back to the next arrival.
func TestProlificSyncFreesPlace(t *testing.T) {
	f := newCrowdFixture(t, 1, 3)
	f.s.Quota = 2
	ctx := context.Background()
	a := f.enter(t, CrowdArrival{PID: pid(1)})
	f.enter(t, CrowdArrival{PID: pid(2)})
	if _, err := f.arrive(CrowdArrival{PID: pid(3)}); !errors.Is(err, domain.ErrStudyFull) {
		t.Fatalf("third: %v, want full", err)
	}
	res, err := f.db.SaveProlificSync(ctx, f.study, []ProlificSubmission{{SubmissionID: "sub1", PID: a.PID, Status: "RETURNED"}},
		func(status string) bool { return status == "RETURNED" })
	if err != nil || len(res.Freed) != 1 {
		t.Fatalf("sync: %+v %v", res, err)
	}
	slotsMatch(t, f)
	if c := f.enter(t, CrowdArrival{PID: pid(3)}); c.BatchID != a.BatchID {
		t.Fatal("the returned submission's place was not given to the next arrival")
	}
	slotsMatch(t, f)
}

// TestTestParticipantLookupUsesIndex: the question every arrival asks in
// the writer, whether it is a Prolific test participant, reads the partial
// index of migration 0350, not the whole journal of calls.
func TestTestParticipantLookupUsesIndex(t *testing.T) {
	db := mustOpenDB(t)
	rows, err := db.read.Query(`EXPLAIN QUERY PLAN `+qTestParticipant, "5f0c1a2b3c4d5e6f7a8b9c0d")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if p := strings.Join(plan, "; "); !strings.Contains(p, "prolific_calls_test_participants") {
		t.Errorf("plan: %s; want the partial index prolific_calls_test_participants", p)
	}
}

// TestRatingsExportNamesItsScale: every row of the ratings export, with
// or without the item texts, names the study's scale in its last column
// (#45 §3, §6).
func TestRatingsExportNamesItsScale(t *testing.T) {
	f := newCrowdFixture(t, 1, 4)
	ctx := context.Background()
	p := f.enter(t, CrowdArrival{PID: pid(1), StudyID: "st", SessionID: "se1"})
	f.ready(t, p) // the fixture's practice is on 7 points
	f.s.ScalePoints, f.s.CheckHighMin, f.s.CheckLowMax = 5, 4, 2
	f.s.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	if err := f.db.SaveCrowdSettings(ctx, f.study, f.s); err != nil {
		t.Fatal(err)
	}
	for i, r := range []int{5, 1, 1, 5} {
		if _, err := f.db.SaveCrowdRating(ctx, f.study, p.Token, i+1, r, 0, f.s); err != nil {
			t.Fatal(err)
		}
	}
	for _, texts := range []bool{false, true} {
		var buf bytes.Buffer
		export := f.db.ExportCrowdRatings
		if texts {
			export = f.db.ExportCrowdRatingsWithTexts
		}
		if err := export(ctx, f.study, &buf, false); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&buf).ReadAll()
		if err != nil || len(recs) != 5 {
			t.Fatalf("texts %v: %d rows, %v", texts, len(recs), err)
		}
		at := slices.Index(recs[0], "scale_points")
		if at < 0 || !texts && at != len(recs[0])-1 {
			t.Fatalf("texts %v: scale_points at %d of %v", texts, at, recs[0])
		}
		for _, r := range recs[1:] {
			if r[at] != "5" {
				t.Errorf("texts %v: row %v names scale %q, want 5", texts, r, r[at])
			}
		}
	}
}
