package e2e

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"pragmalab/domain"
	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/web"
)

// germanPairs are the minimal pairs of the e2e judgement study: a
// control sentence and a target sentence differing in one word.
var germanPairs = [][2]string{
	{"Der Hund hat den Ball gefunden.", "Der Hund hat den Ball gefindet."},
	{"Sie hat gestern lange geschlafen.", "Sie hat gestern lange geschlaft."},
	{"Wir sind nach Hause gegangen.", "Wir haben nach Hause gegangen."},
	{"Das Kind spielt im Garten.", "Das Kind spielt in Garten."},
	{"Er gibt dem Lehrer das Heft.", "Er gibt den Lehrer das Heft."},
	{"Die Katze schläft auf dem Sofa.", "Die Katze schlaft auf dem Sofa."},
	{"Ich habe das Buch gelesen.", "Ich habe das Buch gelest."},
	{"Der Zug ist pünktlich angekommen.", "Der Zug hat pünktlich angekommen."},
	{"Sie wohnt seit zwei Jahren hier.", "Sie wohnt seit zwei Jahre hier."},
	{"Das Wetter war schön.", "Das Wetter waren schön."},
	{"Meine Schwester kocht gern.", "Meine Schwester kochen gern."},
	{"Wir warten auf den Bus.", "Wir warten auf dem Bus."},
}

// startJudgementStudy serves an open German 5-point judgement study
// (docs/studies.md#judgement-study): 12 minimal pairs in kontrolle and
// zielsatz (the target sentences after a short context), a check in each
// condition, a practice item expecting 4–5 and one expecting anything,
// batches of 12, opened through the go-live checklist.
func startJudgementStudy(t *testing.T) (*httptest.Server, *store.DB, int64) {
	t.Helper()
	ctx := context.Background()
	db := openStore(t)
	s := &domain.Study{Kind: domain.KindJudgement, Name: "Akzeptabilität e2e", Lang: "de", Seed: 11}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	var items []domain.Item
	for i, p := range germanPairs {
		items = append(items, domain.Item{Key: fmt.Sprintf("paar%02d", i+1), Type: domain.TypeJudgement, Variants: map[string]domain.Variant{
			"kontrolle": {Sentence: p[0]},
			"zielsatz":  {Context: "Eine Freundin erzählt:", Sentence: p[1]},
		}})
	}
	items = append(items,
		domain.Item{Key: "pruef-hoch", Type: domain.TypeJudgement, Check: "high", Variants: map[string]domain.Variant{"zielsatz": {Sentence: "Dieser Satz ist ganz normal, bitte wählen Sie die 5."}}},
		domain.Item{Key: "pruef-tief", Type: domain.TypeJudgement, Check: "low", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Satz dieser bitte 1 die wählen Sie."}}},
		domain.Item{Key: "uebung-1", Type: domain.TypeJudgement, Training: "4-5", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Die Sonne scheint heute."}}},
		domain.Item{Key: "uebung-2", Type: domain.TypeJudgement, Training: "any", Variants: map[string]domain.Variant{"zielsatz": {Context: "Am Abend:", Sentence: "Der Mond scheint hell."}}},
	)
	if err := db.ImportItems(ctx, s.ID, items); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultJudgementSettings()
	set.Conditions = []string{"kontrolle", "zielsatz"}
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 5, 4, 2
	set.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	set.BatchSize, set.CompletionCode, set.PlacesPerAddress = 12, "JUDGE5DE", 0
	if err := db.SaveCrowdSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildCrowdBatches(ctx, db, s.ID, set, s.Seed); err != nil {
		t.Fatal(err)
	}
	if err := studies.OpenStudy(ctx, db, s.ID, ""); err != nil {
		t.Fatal(err)
	}
	ts, _ := serve(t, db, web.Config{})
	return ts, db, s.ID
}

// judgementScreen checks a rating screen of the judgement study: radios
// 1–5, both German end labels, the study's question, a sentence, and none
// of the likelihood study's words.
func judgementScreen(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	points := get(t, ctx, what+": points", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=rating-form] input[type=radio]').length`))
	labels := get(t, ctx, what+": labels", chromedp.Evaluate[string](`document.querySelector('[data-testid="scale-labels"]').innerText`))
	question := get(t, ctx, what+": question", chromedp.Evaluate[string](`document.querySelector('legend').innerText`))
	label := get(t, ctx, what+": sentence label", chromedp.Evaluate[string](`document.querySelector('[data-testid="utterance-label"]').textContent`))
	sentence := get(t, ctx, what+": sentence", chromedp.Evaluate[string](`document.querySelector('[data-testid="utterance"] p:not(.label)').textContent`))
	body := get(t, ctx, what+": page", chromedp.Evaluate[string](`document.body.innerText`))
	if points != 5 || !strings.Contains(labels, "1 = völlig unnatürlich") || !strings.Contains(labels, "5 = völlig natürlich") ||
		question != "Wie natürlich klingt dieser Satz für Sie?" || label != "Satz" || sentence == "" {
		t.Fatalf("%s: %d points, labels %q, question %q, sentence %q %q", what, points, labels, question, label, sentence)
	}
	for _, bad := range []string{"wahrscheinlich", "absolut sicher", "1–7", "7 =", "Item", "Bildschirm"} {
		if strings.Contains(body, bad) {
			t.Errorf("%s shows %q to a participant:\n%s", what, bad, body)
		}
	}
}

// TestJudgementStudyKeyboardInBrowser walks the German 5-point judgement
// study with the keyboard alone — Tab, Space, arrows, Enter — on a phone:
// consent, a practice answer outside 4–5 and its neutral feedback, the
// `any` practice item, the whole batch, the completion code. Each kind of
// page is audited with axe at 390 and 1280 px and saved as a screenshot
// when PRAGMALAB_SCREENSHOTS is set (docs/studies.md#judgement-practice).
func TestJudgementStudyKeyboardInBrowser(t *testing.T) {
	ts, db, studyID := startJudgementStudy(t)
	ctx := newBrowser(t)
	trap := trapProlific(t, ctx)
	const pid = "90f1a2b3c4d5e6f7a8b9c0d9"
	phone := chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)
	touch := func(on bool) {
		t.Helper()
		// A phone's pointer is a finger: no keyboard hint there.
		if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: on, MaxTouchPoints: 5}); err != nil {
			t.Fatal(err)
		}
	}
	both := func(what, name string) {
		t.Helper()
		for _, w := range widths {
			setWidth(t, ctx, w)
			touch(w < 500)
			fits(t, ctx, int(w))
			if name == "screen" {
				// The digit keys' hint where a keyboard is likely, as the
				// page decides on loading (static/app.js): loaded again.
				step(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(testID("rating-form")), pageLoaded())
				scaleShown(t, ctx, w > 500)
			}
			axeAudit(t, ctx, fmt.Sprintf("%s at %d px", what, w))
			screenshot(t, ctx, fmt.Sprintf("judgement-%s-%d", name, w))
		}
		step(t, ctx, "back to the phone", phone)
		touch(true)
	}
	step(t, ctx, "arrive", phone,
		chromedp.Navigate(fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%s&STUDY_ID=st&SESSION_ID=se", ts.URL, studyID, pid)),
		chromedp.WaitVisible(testID("consent")), pageLoaded())
	landing := get(t, ctx, "landing text", chromedp.Evaluate[string](`document.body.innerText`))
	if !strings.Contains(landing, "Sätze beurteilen") || strings.Contains(landing, "wahrscheinlich") {
		t.Errorf("the landing page is not about rating sentences:\n%s", landing)
	}
	both("landing", "landing")
	send(t, ctx, "consent", `[data-testid="agree"]`)

	// Practice 1 expects 4–5: a 2 (Space on the first radio, one arrow)
	// brings it back with neutral feedback naming 4–5.
	waitScreen(t, ctx, 1)
	judgementScreen(t, ctx, "practice 1")
	chooseRadio(t, ctx, "practice 1, wrong", "", 1)
	send(t, ctx, "practice 1, wrong", `[data-testid="next"]`)
	step(t, ctx, "feedback", chromedp.WaitVisible(testID("try-again")), pageLoaded())
	feedback := get(t, ctx, "feedback text", chromedp.Evaluate[string](`document.querySelector('[data-testid="try-again"]').innerText`))
	if feedback != "Bei diesem Übungssatz wurde eine Antwort von 4 bis 5 erwartet. Bitte lesen Sie ihn noch einmal und antworten Sie erneut." {
		t.Errorf("practice feedback = %q", feedback)
	}
	both("practice feedback", "practice-feedback")
	chooseRadio(t, ctx, "practice 1, right", "", 4)
	send(t, ctx, "practice 1, right", `[data-testid="next"]`)

	// Practice 2 takes any answer: a 1 goes on.
	waitScreen(t, ctx, 2)
	intro := get(t, ctx, "practice 2 intro", chromedp.Evaluate[string](`document.querySelector('[data-testid="training"]').innerText`))
	if !strings.Contains(intro, "jede Antwort in Ordnung") {
		t.Errorf("the any practice item says %q", intro)
	}
	chooseRadio(t, ctx, "practice 2", "", 0)
	send(t, ctx, "practice 2", `[data-testid="next"]`)
	step(t, ctx, "end of the practice", chromedp.WaitVisible(testID("practice-end")), pageLoaded())
	send(t, ctx, "begin", `[data-testid="begin"]`)

	p := crowdParticipant(t, db, studyID, pid)
	if p.Screens != 14 {
		t.Fatalf("the batch has %d screens, want 12 sentences and 2 checks", p.Screens)
	}
	seen := map[string]bool{}
	conds := map[string]int{}
	for pos := 1; pos <= p.Screens; pos++ {
		waitScreen(t, ctx, pos)
		judgementScreen(t, ctx, fmt.Sprintf("screen %d", pos))
		if pos == 1 {
			both("rating screen", "screen")
		}
		sentence := get(t, ctx, "sentence", chromedp.Evaluate[string](`document.querySelector('[data-testid="utterance"]').innerText`))
		k := 2 // 3
		switch {
		case strings.Contains(sentence, "die 5"):
			k = 4
		case strings.Contains(sentence, "bitte 1"):
			k = 0
		default:
			found := false
			for i, pair := range germanPairs {
				for c, s := range pair {
					if strings.Contains(sentence, s) {
						if seen[fmt.Sprint(i)] {
							t.Errorf("screen %d: pair %d shown twice", pos, i+1)
						}
						seen[fmt.Sprint(i)], found = true, true
						conds[[]string{"kontrolle", "zielsatz"}[c]]++
						// The target sentence comes after its context, the
						// control sentence alone.
						context := get(t, ctx, "context", chromedp.Evaluate[string](`(document.querySelector('[data-testid="context"] p:not(.label)') || {}).textContent || ""`))
						if (context == "Eine Freundin erzählt:") != (c == 1) {
							t.Errorf("screen %d (%s): context %q", pos, []string{"kontrolle", "zielsatz"}[c], context)
						}
						if c == 1 && conds["zielsatz"] == 1 {
							screenshot(t, ctx, "judgement-screen-context-390")
						}
					}
				}
			}
			if !found {
				t.Fatalf("screen %d shows no sentence of the study: %q", pos, sentence)
			}
		}
		chooseRadio(t, ctx, fmt.Sprintf("screen %d", pos), "", k)
		send(t, ctx, fmt.Sprintf("screen %d", pos), `[data-testid="next"]`)
	}
	if conds["kontrolle"] != 6 || conds["zielsatz"] != 6 {
		t.Errorf("conditions on the screens: %v, want 6 of each", conds)
	}
	step(t, ctx, "completion page", chromedp.WaitVisible(testID("completion-code")), pageLoaded())
	both("completion", "done")
	send(t, ctx, "back to Prolific", `[data-testid="to-prolific"]`)
	if u := trap.wait(t, "https://app.prolific.com/"); !strings.HasSuffix(u, "cc=JUDGE5DE") {
		t.Fatalf("sent to %s", u)
	}
	rs, _ := db.CrowdRatings(context.Background(), p.ID)
	if len(rs) != p.Screens {
		t.Fatalf("%d ratings stored for %d screens", len(rs), p.Screens)
	}
}

// TestJudgementStudyWithoutJavaScript: the same study at 390 and 1280 px
// with scripts off — the radios and the button do everything, the
// practice feedback comes back, no page is wider than the screen, the end
// labels are whole and the keyboard hint stays hidden.
func TestJudgementStudyWithoutJavaScript(t *testing.T) {
	ts, _, studyID := startJudgementStudy(t)
	for i, w := range widths {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			ctx := newBrowser(t)
			trapProlific(t, ctx)
			if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
				t.Fatal(err)
			}
			vp := chromedp.EmulateViewport(w, 844)
			if w < 500 {
				vp = chromedp.EmulateViewport(w, 844, chromedp.EmulateMobile)
			}
			step(t, ctx, "arrive", vp,
				chromedp.Navigate(fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%024x&STUDY_ID=st&SESSION_ID=se%d", ts.URL, studyID, 0xfeed00+i, i)),
				chromedp.WaitVisible(testID("consent")), pageLoaded())
			fits(t, ctx, int(w))
			stepRetry(t, ctx, "consent", chromedp.Click(testID("agree")))
			waitScreen(t, ctx, 1)
			answerScreen(t, ctx, "practice 1, wrong", `[data-testid="item"][data-position="1"]`, "rating-1", "next")
			step(t, ctx, "feedback", chromedp.WaitVisible(testID("try-again")), pageLoaded())
			judgementScreen(t, ctx, "practice feedback")
			fits(t, ctx, int(w))
			scaleShown(t, ctx, false)
			screenshot(t, ctx, fmt.Sprintf("judgement-nojs-feedback-%d", w))
			answerScreen(t, ctx, "practice 1, right", `[data-testid="try-again"]`, "rating-4", "next")
			waitScreen(t, ctx, 2)
			answerScreen(t, ctx, "practice 2", `[data-testid="item"][data-position="2"]`, "rating-3", "next")
			step(t, ctx, "end of the practice", chromedp.WaitVisible(testID("practice-end")), pageLoaded())
			stepRetry(t, ctx, "begin", chromedp.Click(testID("begin")))
			waitScreen(t, ctx, 1)
			judgementScreen(t, ctx, "screen 1")
			fits(t, ctx, int(w))
			scaleShown(t, ctx, false)
			screenshot(t, ctx, fmt.Sprintf("judgement-nojs-screen-%d", w))
			// axe itself needs the page's scripts (its promise never settles
			// with them off): the same pages are audited in the keyboard walk.
			answerScreen(t, ctx, "screen 1", `[data-testid="item"][data-position="1"]`, "rating-3", "next")
			waitScreen(t, ctx, 2)
		})
	}
}

// TestJudgementAdminPageInBrowser: the researcher's page of the open
// judgement study at 1280 and 390 px — the items by condition with their
// roles, the settings form with the researcher's own conditions and the
// practice screen-out, the frozen-design note — with no sideways scroll
// and no axe violation (docs/studies.md#judgement-settings).
func TestJudgementAdminPageInBrowser(t *testing.T) {
	ts, db, studyID := startJudgementStudy(t)
	if _, err := db.CreateAdmin(context.Background(), "researcher", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	step(t, ctx, "log in", chromedp.Navigate(ts.URL+"/admin/login"),
		chromedp.SendKeys(`input[name="username"]`, "researcher"), chromedp.SendKeys(`input[name="password"]`, "correct horse battery"),
		chromedp.Submit(`input[name="password"]`), chromedp.WaitVisible(testID("studies")))
	for _, w := range []int64{1280, 390} {
		var opts []chromedp.EmulateViewportOption
		if w < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		step(t, ctx, "the study page", chromedp.EmulateViewport(w, 900, opts...),
			chromedp.Navigate(fmt.Sprintf("%s/admin/studies/%d", ts.URL, studyID)), chromedp.WaitVisible(testID("judgement-items")), pageLoaded())
		summary := get(t, ctx, "summary", chromedp.Text(testID("summary")))
		if !strings.Contains(summary, "Judgement (acceptability / rating) · 5-point scale · conditions kontrolle, zielsatz · 12 items, 2 attention checks (1 high, 1 low), 2 practice items") {
			t.Errorf("summary %q", summary)
		}
		rows := get(t, ctx, "item rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="judgement-items"] tbody tr').length`))
		if rows != 28 {
			t.Errorf("%d rows in the items table, want 24 sentences of the pairs, 2 checks and 2 practice items", rows)
		}
		conds := get(t, ctx, "conditions field", chromedp.Evaluate[string](`document.querySelector('[data-testid="conditions-field"]').value`))
		if conds != "kontrolle, zielsatz" {
			t.Errorf("conditions field %q", conds)
		}
		noSideways(t, ctx, "the judgement study page", w)
		axeAudit(t, ctx, fmt.Sprintf("judgement study page at %d px", w))
		screenshot(t, ctx, fmt.Sprintf("judgement-admin-items-%d", w), testID("judgement-items"))
		screenshot(t, ctx, fmt.Sprintf("judgement-admin-settings-%d", w), testID("settings-form"))
	}
}
