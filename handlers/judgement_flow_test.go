package handlers_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/web"
)

// newJudgementEnv serves an open German 5-point judgement study
// (docs/studies.md#judgement-study): 8 minimal pairs in kontrolle and
// zielsatz, a check in each condition, and two practice items — one
// expecting 4–5, one expecting anything — in batches of 8.
func newJudgementEnv(t *testing.T, mod func(*domain.CrowdSettings)) *crowdEnv {
	t.Helper()
	e := newDraftJudgementEnv(t, mod)
	e.open()
	return e
}

// newDraftJudgementEnv is newJudgementEnv with the study still a draft.
func newDraftJudgementEnv(t *testing.T, mod func(*domain.CrowdSettings)) *crowdEnv {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "judgement.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := &domain.Study{Kind: domain.KindJudgement, Name: "Akzeptabilität", Lang: "de", Seed: 5}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	var items []domain.Item
	for i := range 8 {
		items = append(items, domain.Item{Key: fmt.Sprintf("paar%02d", i), Type: domain.TypeJudgement, Variants: map[string]domain.Variant{
			"kontrolle": {Sentence: fmt.Sprintf("Kontrollsatz %d.", i)},
			"zielsatz":  {Context: fmt.Sprintf("Kontext %d:", i), Sentence: fmt.Sprintf("Zielsatz %d.", i)},
		}})
	}
	items = append(items,
		domain.Item{Key: "check-hoch", Type: domain.TypeJudgement, Check: "high", Variants: map[string]domain.Variant{"zielsatz": {Sentence: "Prüfsatz hoch."}}},
		domain.Item{Key: "check-tief", Type: domain.TypeJudgement, Check: "low", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Prüfsatz tief."}}},
		domain.Item{Key: "uebung-1", Type: domain.TypeJudgement, Training: "4-5", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Übungssatz eins."}}},
		domain.Item{Key: "uebung-2", Type: domain.TypeJudgement, Training: "any", Variants: map[string]domain.Variant{"zielsatz": {Sentence: "Übungssatz zwei."}}},
	)
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultJudgementSettings()
	set.Conditions = []string{"kontrolle", "zielsatz"}
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 5, 4, 2
	set.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	set.BatchSize, set.CompletionCode, set.ScreenOutCode, set.PlacesPerAddress = 8, "C0MPLETE", "SCREENED", 0
	if mod != nil {
		mod(&set)
	}
	if err := db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildCrowdBatches(ctx, db, st.ID, set, 5); err != nil {
		t.Fatal(err)
	}
	s, err := web.New(ctx, web.Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &crowdEnv{t: t, db: db, srv: srv, web: s, study: st.ID, set: set}
}

var radioValueRE = regexp.MustCompile(`<input type="radio" name="[a-z0-9]+" value="(\d+)"`)

// text is a page's visible wording, HTML entities decoded.
func (b *browser) text() string { return html.UnescapeString(b.body) }

// TestJudgementParticipantFlow walks a German 5-point judgement study as a
// participant (docs/studies.md#judgement-study, #judgement-practice): the
// landing page speaks of sentences, a practice answer outside 4–5 comes
// back with neutral feedback naming 4–5 and nothing of a likely side, the
// `any` practice item takes a 1, and every screen of the batch shows the
// condition's sentence (with its context) under the question with radios
// 1–5 and both end labels — no belief, no 7.
func TestJudgementParticipantFlow(t *testing.T) {
	e := newJudgementEnv(t, nil)
	b := e.browser()
	b.get(e.entry(pidN(1), "s1"))
	b.must("landing")
	if txt := b.text(); !strings.Contains(txt, "Sätze beurteilen") || strings.Contains(txt, "wahrscheinlich") {
		t.Fatalf("landing page of a judgement study is not about rating sentences:\n%s", b.body)
	}
	if m := regexp.MustCompile(`data-testid="minutes">([^<]*)<`).FindStringSubmatch(b.text()); m == nil || strings.Contains(m[1], "1 Minuten") || strings.Contains(m[1], "1 Seiten") {
		t.Errorf("the minutes line is missing or its plural is wrong: %v", m)
	} else {
		t.Log(m[1])
	}
	b.post(e.base()+"/consent", nil).must("training")
	if !strings.Contains(b.body, "Übungssatz eins.") {
		t.Fatalf("first practice screen is not the first marked practice item:\n%s", b.body)
	}
	// 2 lies outside 4–5: the item comes back naming the range, neutrally.
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"0"}, "rating": {"2"}})
	b.must("try-again")
	if b.position() != 1 {
		t.Fatal("after an answer outside the range the practice moved on")
	}
	fb := b.text()
	if !strings.Contains(fb, "Bei diesem Übungssatz wurde eine Antwort von 4 bis 5 erwartet.") {
		t.Errorf("feedback does not name the expected range 4–5:\n%s", b.body)
	}
	for _, bad := range []string{"wahrscheinlich", "Seite", "Item", "Bildschirm"} {
		if strings.Contains(fb, bad) {
			t.Errorf("practice page shows %q to a participant", bad)
		}
	}
	// Two more wrong answers: practice_screen_out is 0, nobody is screened out.
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"1"}, "rating": {"3"}})
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"2"}, "rating": {"1"}})
	b.must("try-again")
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"3"}, "rating": {"5"}})
	if !strings.Contains(b.body, "Übungssatz zwei.") || b.has("try-again") {
		t.Fatalf("a 5 in 4–5 did not pass:\n%s", b.body)
	}
	if !strings.Contains(b.text(), "jede Antwort in Ordnung") {
		t.Errorf("the any practice item does not say any answer is fine:\n%s", b.body)
	}
	b.post(e.base()+"/training", url.Values{"position": {"2"}, "attempt": {"0"}, "rating": {"1"}})
	if b.has("try-again") {
		t.Fatal("an `any` practice item called an answer wrong")
	}
	if b.has("practice-end") {
		b.get(e.base() + "/screen?begin=1")
	}
	conds := map[string]int{}
	seen := map[string]bool{}
	for !b.has("done") {
		txt := b.text()
		var pts []string
		for _, m := range radioValueRE.FindAllStringSubmatch(b.body, -1) {
			pts = append(pts, m[1])
		}
		if got := strings.Join(pts, ","); got != "1,2,3,4,5" {
			t.Fatalf("screen %d has radios %s, want 1–5", b.position(), got)
		}
		for _, want := range []string{"1 = völlig unnatürlich", "5 = völlig natürlich", "Wie natürlich klingt dieser Satz für Sie?", ">Satz<"} {
			if !strings.Contains(txt, want) {
				t.Fatalf("screen %d lacks %q:\n%s", b.position(), want, b.body)
			}
		}
		if b.has("belief") || strings.Contains(txt, "wahrscheinlich") || strings.Contains(txt, "absolut sicher") {
			t.Fatalf("screen %d shows the likelihood study's words:\n%s", b.position(), b.body)
		}
		switch m := regexp.MustCompile(`(Kontrollsatz|Zielsatz) (\d)\.`).FindStringSubmatch(b.body); {
		case m != nil:
			if seen[m[2]] {
				t.Errorf("pair %s shown twice", m[2])
			}
			seen[m[2]] = true
			conds[m[1]]++
			if hasCtx := strings.Contains(b.body, "Kontext "+m[2]+":"); hasCtx != (m[1] == "Zielsatz") {
				t.Errorf("screen %d: %s %s with context %v", b.position(), m[1], m[2], hasCtx)
			}
		case strings.Contains(b.body, "Prüfsatz"):
		default:
			t.Fatalf("screen %d shows no sentence:\n%s", b.position(), b.body)
		}
		r := "3"
		if strings.Contains(b.body, "Prüfsatz hoch") {
			r = "5"
		}
		b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(b.position())}, "rating": {r}})
	}
	if conds["Kontrollsatz"] != 4 || conds["Zielsatz"] != 4 {
		t.Errorf("conditions seen %v, want 4 of each", conds)
	}
}

// TestJudgementPracticeScreenOut: practice_screen_out 2 ends the visit at
// the second wrong answer on one practice item, with the screen-out code
// (docs/studies.md#judgement-practice).
func TestJudgementPracticeScreenOut(t *testing.T) {
	e := newJudgementEnv(t, func(s *domain.CrowdSettings) { s.PracticeScreenOut = 2 })
	b := e.browser()
	b.get(e.entry(pidN(2), "s2"))
	b.post(e.base()+"/consent", nil).must("training")
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"0"}, "rating": {"1"}})
	b.must("try-again")
	b.post(e.base()+"/training", url.Values{"position": {"1"}, "attempt": {"1"}, "rating": {"2"}})
	if !strings.Contains(b.body, "SCREENED") {
		t.Fatalf("the second wrong answer did not screen out:\n%s", b.body)
	}
}

// TestJudgementPilot: a judgement study's pilot link, even while it is a
// draft, opens the participant's flow — consent, then the first practice
// sentence — as a pilot session (docs/studies.md#pilots).
func TestJudgementPilot(t *testing.T) {
	e := newDraftJudgementEnv(t, nil)
	token, err := e.db.NewPilotLink(context.Background(), e.study)
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser().get("/p/" + token)
	b.must("landing")
	b.post(e.base()+"/consent", nil).must("training")
	if !strings.Contains(b.body, "Übungssatz eins.") {
		t.Fatalf("the pilot did not reach the first practice sentence:\n%s", b.body)
	}
}

// TestJudgementMalformedLinkInGerman: a German participant whose Prolific
// link carries a malformed PROLIFIC_PID reads the German refusal alone,
// not the program's English reason in parentheses after it
// (docs/studies.md#languages); an English study's page still names it.
func TestJudgementMalformedLinkInGerman(t *testing.T) {
	e := newJudgementEnv(t, nil)
	b := e.browser()
	b.get(fmt.Sprintf("/s/%d?PROLIFIC_PID=%s&STUDY_ID=st&SESSION_ID=s1", e.study, "not_hex!"))
	if b.resp.StatusCode != 400 || !strings.Contains(b.text(), "Bitte öffnen Sie die Studie über ihren Link auf Prolific") {
		t.Fatalf("malformed PID on a German study: %d\n%s", b.resp.StatusCode, b.body)
	}
	for _, english := range []string{"malformed", "hexadecimal", "PROLIFIC_PID is"} {
		if strings.Contains(b.text(), english) {
			t.Errorf("the German page says %q:\n%s", english, b.body)
		}
	}
}
