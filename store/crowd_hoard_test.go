package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"pragmalab/domain"
)

// TestCrowdAddressLimitConcurrent: 200 arrivals at once, 50 of them from
// one address with a limit of 3 places per address: that address gets 3
// places, never more, and the others are unaffected (docs/studies.md#no-hoarding).
func TestCrowdAddressLimitConcurrent(t *testing.T) {
	f := newCrowdFixture(t, 18, 2)
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]int{}
	start := make(chan struct{})
	for i := range 200 {
		key := "other"
		if i%4 == 0 {
			key = "hoarder"
		}
		wg.Go(func() {
			<-start
			p, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(i), StudyID: "s", SessionID: "x" + pid(i)}, f.s)
			if err == nil {
				_, err = f.db.ConsentCrowdFrom(ctx, f.study, p.Token, key+string(rune('a'+i%4)), f.s)
			}
			out := "admitted"
			switch {
			case errors.Is(err, domain.ErrAddressLimit):
				out = "limit"
			case errors.Is(err, domain.ErrStudyFull):
				out = "full"
			case err != nil:
				out = err.Error()
			}
			mu.Lock()
			got[key+" "+out]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	// The hoarder's 50 arrivals carry one key; the 150 others three keys
	// (b, c, d), each also limited to 3.
	if got["hoarder admitted"] != 3 || got["hoarder limit"] != 47 {
		t.Fatalf("the hoarding address: %v", got)
	}
	if got["other admitted"] != 9 || got["other limit"] != 141 {
		t.Fatalf("the other addresses: %v", got)
	}
	var held int
	f.db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM crowd_participants WHERE study_id = ? AND client_key = 'hoardera'`, f.study).Scan(&held)
	if held != 3 {
		t.Fatalf("%d places stored for the hoarder, want 3", held)
	}
	// Off (0): a lab room behind one address fills the study.
	f2 := newCrowdFixture(t, 2, 2)
	f2.s.PlacesPerAddress = 0
	for i := range 10 {
		p, err := f2.db.EnterCrowd(ctx, f2.study, CrowdArrival{PID: pid(i)}, f2.s)
		if err == nil {
			_, err = f2.db.ConsentCrowdFrom(ctx, f2.study, p.Token, "lab", f2.s)
		}
		if err != nil {
			t.Fatalf("lab participant %d: %v", i, err)
		}
	}
}

// TestCrowdCanStart reads what ConsentCrowd would decide, before the
// consent form: full, the address limit, and a hold that frees a place.
func TestCrowdCanStart(t *testing.T) {
	f := newCrowdFixture(t, 1, 3)
	f.s.Quota, f.s.PlacesPerAddress = 2, 1
	ctx := context.Background()
	if err := f.db.CrowdCanStart(ctx, f.study, "k1", f.s); err != nil {
		t.Fatalf("empty study: %v", err)
	}
	p, _ := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(1)}, f.s)
	if _, err := f.db.ConsentCrowdFrom(ctx, f.study, p.Token, "k1", f.s); err != nil {
		t.Fatal(err)
	}
	if err := f.db.CrowdCanStart(ctx, f.study, "k1", f.s); !errors.Is(err, domain.ErrAddressLimit) {
		t.Fatalf("second from k1: %v, want the address limit", err)
	}
	q, _ := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(2)}, f.s)
	if _, err := f.db.ConsentCrowdFrom(ctx, f.study, q.Token, "k2", f.s); err != nil {
		t.Fatal(err)
	}
	if err := f.db.CrowdCanStart(ctx, f.study, "k3", f.s); !errors.Is(err, domain.ErrStudyFull) {
		t.Fatalf("full study: %v", err)
	}
	// k2 answers its first practice item; past the hold only k1's place
	// is free.
	f.ready(t, q)
	*f.now = f.now.Add(f.s.Hold() + time.Minute)
	if err := f.db.CrowdCanStart(ctx, f.study, "k3", f.s); err != nil {
		t.Fatalf("past the hold: %v", err)
	}
	if err := f.db.CrowdCanStart(ctx, f.study, "k1", f.s); err != nil {
		t.Fatalf("k1's unanswered place no longer counts: %v", err)
	}
	r, _ := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(3)}, f.s)
	if n, err := f.db.ConsentCrowdFrom(ctx, f.study, r.Token, "k3", f.s); err != nil || n.Status != CrowdActive {
		t.Fatalf("the newcomer past the hold: %+v %v", n, err)
	}
	if back, _ := f.db.TouchCrowd(ctx, f.study, p.Token, f.s); back.Status != CrowdMovedOn {
		t.Fatalf("the unanswered participant after their place was taken: %s", back.Status)
	}
	if back, _ := f.db.TouchCrowd(ctx, f.study, q.Token, f.s); back.Status != CrowdActive {
		t.Fatalf("the participant who answered: %s", back.Status)
	}
}

// TestCrowdRefusalStoresOnlyTheRefusal: "I do not agree" deletes the entry
// and keeps the refusal; it cannot turn a session into a refusal.
func TestCrowdRefusalStoresOnlyTheRefusal(t *testing.T) {
	f := newCrowdFixture(t, 1, 3)
	ctx := context.Background()
	e, _ := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(1), SessionID: "s"}, f.s)
	if err := f.db.RefuseCrowdConsent(ctx, f.study, e.Token, "declined consent"); err != nil {
		t.Fatal(err)
	}
	if err := f.db.RefuseCrowdConsent(ctx, f.study, e.Token, "declined consent"); err != nil {
		t.Fatalf("a second refusal: %v", err)
	}
	var entries, parts, refusals int
	f.db.read.QueryRow(`SELECT (SELECT COUNT(*) FROM crowd_entries), (SELECT COUNT(*) FROM crowd_participants), (SELECT COUNT(*) FROM crowd_refusals)`).
		Scan(&entries, &parts, &refusals)
	if entries != 0 || parts != 0 || refusals != 1 {
		t.Fatalf("after a refusal: %d entries, %d sessions, %d refusals", entries, parts, refusals)
	}
	if _, err := f.db.ConsentCrowd(ctx, f.study, e.Token, f.s); err == nil {
		t.Fatal("consent after the refusal took a place")
	}
	p := f.enter(t, CrowdArrival{PID: pid(2)})
	if err := f.db.RefuseCrowdConsent(ctx, f.study, p.Token, "declined consent"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("refusing after consent: %v", err)
	}
}
