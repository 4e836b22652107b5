package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/web"
)

// startCrowdStudy serves a crowd study built from the demo items: six
// training items, batches of ten items plus the demo's attention checks.
func startCrowdStudy(t *testing.T) (*httptest.Server, *store.DB, int64, domain.CrowdSettings) {
	t.Helper()
	return startCrowdStudyWith(t, "en", nil)
}

// startCrowdStudyWith is startCrowdStudy in language lang with the
// settings mod changes, made before the study opens: its design is frozen
// from then on (docs/studies.md#frozen-design).
func startCrowdStudyWith(t *testing.T, lang string, mod func(*domain.CrowdSettings)) (*httptest.Server, *store.DB, int64, domain.CrowdSettings) {
	t.Helper()
	s := &domain.Study{Kind: domain.KindCrowd, Name: "Crowd e2e", Lang: lang, Seed: 11}
	set := domain.DefaultCrowdSettings()
	set.BatchSize, set.CompletionCode = 10, "E2ECODE7"
	if mod != nil {
		mod(&set)
	}
	db, _ := openCrowdStudy(t, s, set)
	ts, _ := serve(t, db, web.Config{})
	return ts, db, s.ID, set
}

// openCrowdStudy creates study s on a new store with the demo items and
// attention checks, saves set, builds the batches and opens the study; it
// returns the store and the items imported. The caller serves it, with
// the web settings it needs.
func openCrowdStudy(t *testing.T, s *domain.Study, set domain.CrowdSettings) (*store.DB, []domain.Item) {
	t.Helper()
	ctx := context.Background()
	db := openStore(t)
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	var items []domain.Item
	for _, f := range []string{"../cli/demo/items.jsonl", "../cli/demo/crowd_checks.jsonl"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		its, err := itemfiles.ParseItemsJSONL(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, its...)
	}
	if err := db.ImportItems(ctx, s.ID, items); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveCrowdSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildCrowdBatches(ctx, db, s.ID, set, s.Seed); err != nil {
		t.Fatal(err)
	}
	if err := studies.OpenStudy(ctx, db, s.ID, ""); err != nil {
		t.Fatal(err)
	}
	return db, items
}

// waitScreen waits until the page shows rating screen pos, with its
// keyboard script loaded.
func waitScreen(t *testing.T, ctx context.Context, pos int) {
	t.Helper()
	step(t, ctx, fmt.Sprintf("screen %d", pos),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`[data-testid="item"][data-position="%d"]`, pos))), pageLoaded())
}

// TestCrowdParticipantInBrowser is a Prolific participant's whole visit on a
// phone-sized screen: arrival with the Prolific parameters, consent, a
// wrong training answer and its retry, the batch answered with keys 1–7, a
// reload half-way, the completion code (which stays on the page) and the
// button back to Prolific.
func TestCrowdParticipantInBrowser(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudy(t)
	ctx := newBrowser(t)
	// Held: the completion page stays while its code is read, however
	// slowly, instead of leaving after its 3-second Refresh.
	trap := holdProlific(t, ctx)
	bctx := context.Background()
	training, err := db.CrowdTraining(bctx, studyID)
	if err != nil || len(training) != 6 {
		t.Fatalf("training items: %d, %v", len(training), err)
	}

	const pid = "60f1a2b3c4d5e6f7a8b9c0d1"
	// Training: the first item is shown without its cancellation, so a 1 is
	// wrong: "try again" on the same item, then a right answer.
	if training[0].Condition != "trigger" {
		t.Fatalf("first training item in condition %s", training[0].Condition)
	}
	step(t, ctx, "a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: pid, query: "STUDY_ID=st123&SESSION_ID=se456", byKey: true, wrongFirst: true}
	walk.toBatch(t, ctx)

	// The batch, by keyboard; the scale fits the phone's width.
	p := crowdParticipant(t, db, studyID, pid)
	step(t, ctx, "the batch's first screen", chromedp.WaitVisible(testID("progress")))
	width := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if width > 390 {
		t.Errorf("the page is %d px wide on a 390 px screen", width)
	}
	sent := map[int]int{}
	for pos := 1; pos <= p.Screens; pos++ {
		waitScreen(t, ctx, pos)
		if pos == p.Screens/2 {
			step(t, ctx, "reload mid-way", chromedp.Reload())
			waitScreen(t, ctx, pos)
		}
		rating := pos%7 + 1
		sent[pos] = rating
		step(t, ctx, fmt.Sprintf("answer screen %d", pos), chromedp.KeyEvent(strconv.Itoa(rating)))
	}
	step(t, ctx, "completion page", chromedp.WaitVisible(testID("completion-code")))
	code := get(t, ctx, "code", chromedp.Text(testID("completion-code")))
	if strings.TrimSpace(code) != "E2ECODE7" {
		t.Fatalf("completion code %q", code)
	}
	// The page stays (nothing leaves by itself) until the participant
	// takes the code back to Prolific with the button.
	// Retried on a swapped document (stepRetry): the page has just loaded.
	stepRetry(t, ctx, "back to Prolific", pageLoaded(), chromedp.Click(testID("to-prolific")))
	u := trap.wait(t, "https://app.prolific.com/submissions/complete")
	if u != "https://app.prolific.com/submissions/complete?cc=E2ECODE7" {
		t.Fatalf("sent to %s", u)
	}

	// Exactly one rating per screen, each the key pressed.
	p = crowdParticipant(t, db, studyID, pid)
	if p.Status != store.CrowdCompleted || p.ProlificStudyID != "st123" || p.SessionID != "se456" {
		t.Fatalf("participant %+v", p)
	}
	rs, err := db.CrowdRatings(bctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != p.Screens {
		t.Fatalf("%d ratings for %d screens", len(rs), p.Screens)
	}
	for i, r := range rs {
		if r.Position != i+1 || r.Rating != sent[r.Position] {
			t.Fatalf("rating %d: %+v, sent %d", i, r, sent[r.Position])
		}
	}
}

func crowdParticipant(t *testing.T, db *store.DB, studyID int64, pid string) *store.CrowdParticipant {
	t.Helper()
	reps, err := db.CrowdParticipants(context.Background(), studyID, domain.DefaultCrowdSettings())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		if r.PID == pid {
			return r.CrowdParticipant
		}
	}
	t.Fatalf("no session for %s", pid)
	return nil
}

// TestResponseTimeInBrowser: where JavaScript runs, each answer carries the
// time from its screen being shown to the answer, measured by the page's
// script — by key (1–7) and by mouse (a radio, then Next) — beside the
// server's shown_at and answered_at.
func TestResponseTimeInBrowser(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudy(t)
	ctx := newBrowser(t)
	trapProlific(t, ctx)
	bctx := context.Background()
	const pid = "70f1a2b3c4d5e6f7a8b9c0d2"
	step(t, ctx, "a desktop", chromedp.EmulateViewport(1280, 900))
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: pid, byKey: true}
	walk.toBatch(t, ctx)
	// Screen 1 by key after 800 ms; screen 2 by mouse after 400 ms.
	waitScreen(t, ctx, 1)
	time.Sleep(800 * time.Millisecond)
	step(t, ctx, "answer 1 by key", chromedp.KeyEvent("5"))
	waitScreen(t, ctx, 2)
	time.Sleep(400 * time.Millisecond)
	stepRetry(t, ctx, "answer 2 by mouse", pageLoaded(), chromedp.Click(testID("rating-3")), chromedp.Click(testID("next")))
	waitScreen(t, ctx, 3)

	p := crowdParticipant(t, db, studyID, pid)
	rs, err := db.CrowdRatings(bctx, p.ID)
	if err != nil || len(rs) != 2 {
		t.Fatalf("ratings %+v %v", rs, err)
	}
	for i, min := range []int{800, 400} {
		r := rs[i]
		// At least the wait; the bound above is the server's own measure
		// (below), not a number of seconds a busy machine may exceed.
		if r.RTms < min {
			t.Errorf("screen %d: rt_ms %d, want at least %d (the wait)", i+1, r.RTms, min)
		}
		if r.ShownAt.IsZero() || r.AnsweredAt.Before(r.ShownAt) {
			t.Errorf("screen %d: shown %v, answered %v", i+1, r.ShownAt, r.AnsweredAt)
		}
		if server := r.AnsweredAt.Sub(r.ShownAt).Milliseconds(); int(server) < r.RTms-1000 {
			t.Errorf("screen %d: browser rt %d ms beyond the server's %d ms", i+1, r.RTms, server)
		}
		if r.Rating != []int{5, 3}[i] {
			t.Errorf("screen %d rated %d", i+1, r.Rating)
		}
	}
}
