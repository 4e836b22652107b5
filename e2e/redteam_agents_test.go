package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"pragmalab/domain"
)

// The red team's actors (docs/testing.md#red-team-suite): how each kind
// reads a page, decides and gives its answers, driven through the
// DevTools protocol with trusted input (Input.dispatchMouseEvent,
// Input.dispatchKeyEvent, Input.insertText: the page sees isTrusted true),
// in a Chromium whose navigator.webdriver is false. Their timing is human:
// seeded random pauses, kept short so the suite stays fast. They are
// behaviour, not synchronisation: every wait for the page is a wait for a
// state (redTab.next).

// --- what the actors know: the items, their typical value, the models ---

// rtItem is an item as an actor recognises it on a page.
type rtItem struct {
	key, typ, utterance, cancellation, check string
}

// typical is an item's typical rating in a condition on the 7-point
// scale, as a crowd would give it: high without the cancellation, low
// with it, spread per item; an attention check's "high" is 7.
func typical(it rtItem, cond string) float64 {
	if it.check == "high" {
		return 7
	}
	if it.check == "low" {
		return 1
	}
	h := hash64("typical", it.key, cond)
	if cond == domain.ConditionCancel {
		return 1.6 + float64(h%15)/10 // 1.6–3.0
	}
	return 4.6 + float64(h%17)/10 // 4.6–6.2
}

func hash64(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func clampPoint(x int) int { return min(7, max(1, x)) }

// modelPoint is a model's answer: the item's typical value rounded, off
// by one point on a share of the items (the model's error, fixed per
// model and item). "study-model" is the model the study's likert job ran;
// "unrun-model" is one the study never ran, with errors of its own.
func modelPoint(model string, it rtItem, cond string) int {
	p := int(math.Round(typical(it, cond)))
	if it.check != "" {
		return p
	}
	errShare := map[string]uint64{"study-model": 30, "unrun-model": 40}[model]
	h := hash64(model, it.key, cond)
	if h%100 < errShare {
		if h>>8%2 == 0 {
			p++
		} else {
			p--
		}
	}
	return clampPoint(p)
}

// honestRater is a person rating what they read: the item's typical
// value, their own bias, and noise.
type honestRater struct {
	rng  *rand.Rand
	bias float64
}

func newHonestRater(seed uint64) *honestRater {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	return &honestRater{rng: rng, bias: rng.NormFloat64() * 0.5}
}

func (h *honestRater) rate(it rtItem, cond string) int {
	sd := 0.9
	if it.check != "" {
		sd = 0.5
	}
	return clampPoint(int(math.Round(typical(it, cond) + h.bias + h.rng.NormFloat64()*sd)))
}

// copier answers with a model's answers, a quarter of them moved one point
// (the stealth agents' disguise).
type copier struct {
	rng   *rand.Rand
	model func(it rtItem, cond string) int
}

func (c *copier) rate(it rtItem, cond string) int {
	p := c.model(it, cond)
	if c.rng.IntN(4) == 0 {
		switch {
		case p == 1:
			p = 2
		case p == 7:
			p = 6
		case c.rng.IntN(2) == 0:
			p++
		default:
			p--
		}
	}
	return p
}

// recognise finds the item a page shows from its text: the item whose
// utterance it holds (the longest, should one hold another), shown with
// its cancellation or without.
func recognise(items []rtItem, text string) (rtItem, string, bool) {
	text = squash(text)
	best, found := rtItem{}, false
	for _, it := range items {
		if strings.Contains(text, squash(it.utterance)) && (!found || len(it.utterance) > len(best.utterance)) {
			best, found = it, true
		}
	}
	if !found {
		return best, "", false
	}
	cond := domain.ConditionTrigger
	if best.cancellation != "" && strings.Contains(text, squash(best.cancellation)) {
		cond = domain.ConditionCancel
	}
	return best, cond, true
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// --- a tab driven with trusted input ---

// redTab is one actor's tab: its own browser context (cookies, storage)
// in the shared Chromium, a seeded clock of pauses and a mouse position.
type redTab struct {
	t      *testing.T
	ctx    context.Context
	rng    *rand.Rand
	mx, my float64
	// justified counts the justifications written so far.
	justified int
}

// pause is the actor's own time: a person reading or moving, an agent
// imitating one. Short, seeded; never used to wait for the page.
func (r *redTab) pause(lo, hi time.Duration) {
	time.Sleep(lo + time.Duration(r.rng.Int64N(int64(hi-lo)+1)))
}

// do runs protocol actions within a step's bound.
func (r *redTab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	r.t.Helper()
	step(r.t, r.ctx, what, actions...)
}

// mouseTo moves the mouse to (x, y) in a few steps along a slightly bent
// path, as a hand does.
func (r *redTab) mouseTo(x, y float64) {
	r.t.Helper()
	n := 3 + r.rng.IntN(4)
	sx, sy := r.mx, r.my
	bend := (r.rng.Float64() - 0.5) * 40
	for i := 1; i <= n; i++ {
		f := float64(i) / float64(n)
		ease := f * f * (3 - 2*f)
		px := sx + (x-sx)*ease + bend*math.Sin(math.Pi*f)
		py := sy + (y-sy)*ease
		r.do("move the mouse", chromedp.MouseEvent(chromedp.MouseMoved, px, py))
		r.pause(2*time.Millisecond, 8*time.Millisecond)
	}
	r.mx, r.my = x, y
}

// clickAt moves to (x, y), jittered a little, and clicks the left button.
func (r *redTab) clickAt(x, y float64) {
	r.t.Helper()
	x += (r.rng.Float64() - 0.5) * 4
	y += (r.rng.Float64() - 0.5) * 4
	r.mouseTo(x, y)
	r.pause(20*time.Millisecond, 70*time.Millisecond)
	r.do("press the button", chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	r.pause(30*time.Millisecond, 90*time.Millisecond)
	r.do("release the button", chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
}

// key presses one key (a rune, or a kb constant such as kb.Tab).
func (r *redTab) key(k string) {
	r.t.Helper()
	r.do("press "+strconv.Quote(k), chromedp.KeyEvent(k))
}

// typeText types s key by key, with a typist's intervals.
func (r *redTab) typeText(s string) {
	r.t.Helper()
	for _, c := range s {
		r.key(string(c))
		r.pause(30*time.Millisecond, 110*time.Millisecond)
	}
}

// typeJittered types s key by key as an agent imitating a person does:
// each interval drawn from a log-normal around 120 ms (the "human-like
// jitter" of docs/studies.md#typed-justifications), seeded, the same
// before a word as within one, with no slip and no pause to think.
func (r *redTab) typeJittered(s string) {
	r.t.Helper()
	for _, c := range s {
		r.key(string(c))
		d := time.Duration(120 * math.Exp(0.35*r.rng.NormFloat64()) * float64(time.Millisecond))
		time.Sleep(min(d, 600*time.Millisecond))
	}
}

// compose types s as a person writing their own sentence: a moment to
// plan before starting, a pause before each word longer than the keys
// within it, a longer one after a comma or full stop, and, when slip is
// set, one wrong letter in a longer word noticed and deleted (a revision).
func (r *redTab) compose(s string, slip bool) {
	r.t.Helper()
	r.pause(600*time.Millisecond, 1500*time.Millisecond)
	words := strings.Split(s, " ")
	slipAt := -1
	if slip {
		for tries := 0; tries < 20 && slipAt < 0; tries++ {
			if i := r.rng.IntN(len(words)); len([]rune(words[i])) >= 5 {
				slipAt = i
			}
		}
	}
	for i, w := range words {
		if i > 0 {
			r.key(" ")
			if strings.ContainsAny(words[i-1], ",.;:") {
				r.pause(700*time.Millisecond, 1600*time.Millisecond)
			} else {
				r.pause(250*time.Millisecond, 700*time.Millisecond)
			}
		}
		for k, c := range []rune(w) {
			if i == slipAt && k == 2 {
				r.key("q")
				r.pause(250*time.Millisecond, 600*time.Millisecond)
				r.key(kb.Backspace)
				r.pause(150*time.Millisecond, 350*time.Millisecond)
			}
			r.key(string(c))
			r.pause(60*time.Millisecond, 150*time.Millisecond)
		}
	}
}

// dictate enters s as dictation does: words arrive in chunks through
// Input.insertText, with no key events.
func (r *redTab) dictate(s string) {
	r.t.Helper()
	words := strings.Fields(s)
	for i := 0; i < len(words); {
		n := 1 + r.rng.IntN(3)
		chunk := strings.Join(words[i:min(i+n, len(words))], " ")
		if i > 0 {
			chunk = " " + chunk
		}
		r.do("dictate", func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: chunk})
			return chromedp.Void{}, err
		})
		i += n
		r.pause(150*time.Millisecond, 400*time.Millisecond)
	}
}

// paste puts s on the clipboard (as copying it from one's notes does) and
// presses Ctrl+V in the focused field: a trusted paste event.
func (r *redTab) paste(s string) {
	r.t.Helper()
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(r.ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted,
			BrowserContextID: chromedp.FromContext(r.ctx).BrowserContextID,
		}); err != nil {
			r.t.Fatalf("grant %s: %v", name, err)
		}
	}
	get(r.t, r.ctx, "copy to the clipboard", chromedp.Evaluate[bool](`navigator.clipboard.writeText(`+strconv.Quote(s)+`).then(() => true)`, chromedp.EvalAwaitPromise, userGesture))
	r.pause(100*time.Millisecond, 300*time.Millisecond)
	r.do("Ctrl+V", func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			p := input.DispatchKeyEventParams{Type: typ, Key: "v", Code: "KeyV", WindowsVirtualKeyCode: 86, NativeVirtualKeyCode: 86, Modifiers: 2} // Ctrl
			if typ == input.DispatchKeyEventTypeRawKeyDown {
				p.Commands = []string{"paste"}
			}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p); err != nil {
				return chromedp.Void{}, err
			}
		}
		return chromedp.Void{}, nil
	})
}

// tabTo presses Tab until the focused element matches css, as a keyboard
// user does, and fails after 40 presses.
func (r *redTab) tabTo(css string) {
	r.t.Helper()
	for range 40 {
		if get(r.t, r.ctx, "what has the focus", chromedp.Evaluate[bool](`!!document.activeElement && document.activeElement.matches(`+strconv.Quote(css)+`)`)) {
			return
		}
		r.key(kb.Tab)
		r.pause(40*time.Millisecond, 120*time.Millisecond)
	}
	r.t.Fatalf("40 presses of Tab never reached %s", css)
}

// shape is an element as seen on the screen: its box in the viewport,
// and whether it shows at all (a box larger than a clipped pixel, inside
// the page, not hidden nor transparent, and, inside the viewport, what a
// click at its middle hits — not so when clipped or inert), which is what
// an agent working from screenshots and the layout knows.
type shape struct {
	Tag, Type, Name, Value, TestID, Text string
	X, Y, W, H                           float64
	Shown                                bool
}

// layoutJS lists the page's form controls and buttons with their boxes.
// A radio is measured by its label, which is what shows.
const layoutJS = `(() => {
	const out = [];
	for (const el of document.querySelectorAll('input, textarea, button, a.button')) {
		if (el.type === 'hidden') continue;
		const box = (el.type === 'radio' && el.closest('label')) || el;
		const r = box.getBoundingClientRect();
		let shown = r.width > 2 && r.height > 2 && r.right + scrollX > 0 && r.bottom + scrollY > 0 &&
			r.left + scrollX < document.documentElement.scrollWidth && r.top + scrollY < document.documentElement.scrollHeight;
		for (let e = box; shown && e; e = e.parentElement) {
			const s = getComputedStyle(e);
			if (s.visibility === 'hidden' || s.display === 'none' || parseFloat(s.opacity) === 0) shown = false;
		}
		// Clipped (clip, clip-path) or inert, a box keeps its size but
		// nothing of it shows or takes a click: what is hit at its middle is
		// something else. Measurable only inside the viewport; a box
		// outside it is measured again once scrolled into it.
		const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
		if (shown && cx >= 0 && cy >= 0 && cx < innerWidth && cy < innerHeight) {
			const hit = document.elementFromPoint(cx, cy);
			if (!hit || !(hit === box || box.contains(hit))) shown = false;
		}
		out.push({Tag: el.tagName.toLowerCase(), Type: el.type || '', Name: el.name || '', Value: el.value || '',
			TestID: el.dataset.testid || '', Text: (box.innerText || '').trim(),
			X: r.left, Y: r.top, W: r.width, H: r.height, Shown: shown});
	}
	return out;
})()`

func (r *redTab) layout() []shape {
	r.t.Helper()
	return get(r.t, r.ctx, "read the layout", chromedp.Evaluate[[]shape](layoutJS))
}

// clickShape scrolls s into the viewport with the wheel if needed, as a
// person does, and clicks its middle.
func (r *redTab) clickShape(match func(shape) bool, what string) {
	r.t.Helper()
	for range 6 {
		var s *shape
		for _, c := range r.layout() {
			if c.Shown && match(c) {
				s = &c
				break
			}
		}
		if s == nil {
			r.t.Fatalf("%s: nothing on the screen to click", what)
		}
		vh := get(r.t, r.ctx, "viewport height", chromedp.Evaluate[float64](`innerHeight`))
		if s.Y >= 0 && s.Y+s.H <= vh {
			r.clickAt(s.X+s.W/2, s.Y+s.H/2)
			return
		}
		dy := s.Y + s.H/2 - vh/2
		r.do("scroll", func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, t, wheelEvent, wheelParams{Type: "mouseWheel", X: r.mx, Y: r.my, DeltaX: 0, DeltaY: dy})
			return chromedp.Void{}, err
		})
		r.pause(80*time.Millisecond, 200*time.Millisecond)
	}
	r.t.Fatalf("%s: never scrolled into view", what)
}

// wheelParams is Input.dispatchMouseEvent's for the wheel, whose
// protocol wants deltaX even when it is 0 (cdproto leaves a 0 out).
type wheelParams struct {
	Type   string  `json:"type"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	DeltaX float64 `json:"deltaX"`
	DeltaY float64 `json:"deltaY"`
}

var wheelEvent = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

// axText is the page's text as the accessibility tree gives it, which is
// how current agents read a page: what is aria-hidden or not rendered is
// not in it.
func (r *redTab) axText() string {
	r.t.Helper()
	nodes := get(r.t, r.ctx, "read the accessibility tree", func(ctx context.Context, t *chromedp.Target) ([]*accessibility.Node, error) {
		res, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		if err != nil {
			return nil, err
		}
		return res.Nodes, nil
	})
	var b strings.Builder
	for _, n := range nodes {
		if n.Ignored || n.Name == nil || n.Role == nil {
			continue
		}
		var role, name string
		json.Unmarshal(n.Role.Value, &role)
		if role != "StaticText" || json.Unmarshal(n.Name.Value, &name) != nil {
			continue
		}
		b.WriteString(name)
		b.WriteString("\n")
	}
	return b.String()
}

// domText is the page's text as a program reading the DOM meets it,
// visually hidden text included.
func (r *redTab) domText() string {
	r.t.Helper()
	return get(r.t, r.ctx, "read the DOM's text", chromedp.Evaluate[string](`(() => {
		const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		const out = [];
		for (let n = w.nextNode(); n; n = w.nextNode()) {
			if (n.parentElement.closest("script, style")) continue;
			const s = n.textContent.trim();
			if (s) out.push(s);
		}
		return out.join("\n");
	})()`))
}

// addressedToAI finds, in a page's text, a sentence addressed to an AI
// that asks for a point of the scale, whatever its wording: the naive
// agent's weakness.
var addressedToAI = regexp.MustCompile(`(?i)\b(ai|a\.i\.|llms?|language models?|chatbots?|assistants?|bots?|agents?|automated|machines?)\b`)

var onePoint = regexp.MustCompile(`\b([1-9])\b`)

// obeyedPoint is the point such a sentence asks for, if the text has one.
func obeyedPoint(text string) (int, bool) {
	for _, line := range strings.Split(text, "\n") {
		for _, sentence := range strings.FieldsFunc(line, func(r rune) bool { return r == '.' || r == '!' || r == '?' }) {
			if !addressedToAI.MatchString(sentence) {
				continue
			}
			if m := onePoint.FindAllStringSubmatch(sentence, -1); len(m) == 1 {
				n, _ := strconv.Atoi(m[0][1])
				return n, true
			}
		}
	}
	return 0, false
}

// stateJS names the page on screen once it has loaded: the harness's
// synchronisation, not the actors' knowledge.
const stateJS = `(() => {
	if (document.readyState !== "complete") return "";
	const q = s => document.querySelector(s);
	if (q('[data-testid="completion-code"]')) return "done";
	if (q('[data-testid="questionnaire"]')) return "questionnaire";
	if (q('[data-testid="practice-end"]')) return "practice-end";
	const it = q('[data-testid="item"]');
	if (it) return (q('[data-testid="training"]') ? "practice-" : "screen-") + it.dataset.position + (q('[data-testid="try-again"]') ? "-again" : "");
	if (q('[data-testid="consent"]')) return "consent";
	return "other:" + location.pathname;
})()`

// next waits until the page on screen is no longer prev and has loaded,
// and names it.
func (r *redTab) next(prev string) string {
	r.t.Helper()
	deadline := time.Now().Add(stepLimit)
	var err error
	for time.Now().Before(deadline) {
		sctx, cancel := context.WithTimeout(r.ctx, stepLimit)
		var st string
		st, err = chromedp.Run(sctx, chromedp.Evaluate[string](stateJS))
		cancel()
		if err == nil && st != "" && st != prev {
			return st
		}
		time.Sleep(20 * time.Millisecond) // a poll interval, not a wait for a state
	}
	r.t.Fatalf("the page never left %q (last error: %v)", prev, err)
	return ""
}

// userGesture evaluates as if the user had acted (the clipboard asks it).
func userGesture(p *runtime.EvaluateParams) { t := true; p.UserGesture = &t }

func (r *redTab) String() string { return fmt.Sprintf("tab at (%.0f, %.0f)", r.mx, r.my) }

// --- the browser actors ---

// style is how an actor of a kind uses the browser.
type style struct {
	// keys answers the rating screens with the digit keys and moves with
	// Tab and Enter; otherwise it clicks.
	keys bool
	// ax reads the page through the accessibility tree (what an agent
	// reading like a screen reader, or a person, meets); otherwise the
	// DOM's text, hidden text included.
	ax bool
	// obey follows text addressed to an AI; fillAll fills every text
	// field in the DOM, the hidden one too.
	obey, fillAll bool
	// read is the time spent on a screen before answering.
	readLo, readHi time.Duration
}

func styleOf(a *rtActor, rng *rand.Rand) style {
	agent := style{ax: true, readLo: 120 * time.Millisecond, readHi: 350 * time.Millisecond}
	person := style{ax: true, readLo: 150 * time.Millisecond, readHi: 450 * time.Millisecond}
	switch a.kind {
	case kindCopier:
		return agent
	case kindUnrun:
		agent.keys = rng.IntN(2) == 0
		return agent
	case kindNaive:
		agent.ax, agent.obey, agent.fillAll = false, true, true
		return agent
	case kindKeyboard, kindPaste:
		person.keys = true
	case kindSlow:
		// Reads each screen for seconds; moves like anyone else.
		person.readLo, person.readHi = 1200*time.Millisecond, 2500*time.Millisecond
	}
	return person
}

// walk takes a through the study in its own browser context: consent,
// the practice, the batch, the questionnaire, up to the completion code.
func (e *rtEnv) walk(t *testing.T, bctx context.Context, a *rtActor) {
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	defer cancel()
	// The tab is made by a first call without a deadline: a step's
	// deadline would close it when the step ends.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab in a new browser context: %v", err)
	}
	rng := rand.New(rand.NewPCG(a.seed, 0x7ab))
	st := styleOf(a, rng)
	r := &redTab{t: t, ctx: ctx, rng: rng, mx: 100 + rng.Float64()*200, my: 80 + rng.Float64()*100}
	r.do("arrive", chromedp.Navigate(fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%s&STUDY_ID=st&SESSION_ID=se-%s", e.ts.URL, e.studyID, a.pid, a.pid)))
	page := r.next("")
	if page != "consent" {
		t.Fatalf("arrived on %s, not the consent page: %s", page, get(t, ctx, "the page's text", chromedp.Evaluate[string](`document.body.innerText`)))
	}
	if !get(t, ctx, "navigator.webdriver", chromedp.Evaluate[bool](`navigator.webdriver === false`)) {
		t.Fatal("navigator.webdriver is not false: the red team's browser announces its automation")
	}
	for page != "done" {
		switch {
		case page == "consent":
			r.pause(st.readLo*2, st.readHi*2)
			r.press(st, `[data-testid="agree"]`, func(s shape) bool { return s.TestID == "agree" && s.Tag != "input" })
		case page == "practice-end":
			r.pause(st.readLo, st.readHi)
			r.press(st, `[data-testid="begin"]`, func(s shape) bool { return s.TestID == "begin" })
		case strings.HasPrefix(page, "practice-") || strings.HasPrefix(page, "screen-"):
			e.rateScreen(r, a, st, strings.HasPrefix(page, "practice-"))
		case page == "questionnaire":
			e.questionnaire(r, a, st)
		default:
			t.Fatalf("on an unexpected page: %s", page)
		}
		page = r.next(page)
	}
}

// press activates a link or button: Tab to it and Enter, or a click.
func (r *redTab) press(st style, css string, match func(shape) bool) {
	r.t.Helper()
	if st.keys {
		r.tabTo(css)
		r.pause(80*time.Millisecond, 200*time.Millisecond)
		r.key(kb.Enter)
		return
	}
	r.clickShape(match, css)
}

// rateScreen reads a practice or batch screen, decides and answers.
func (e *rtEnv) rateScreen(r *redTab, a *rtActor, st style, practice bool) {
	t := r.t
	var text string
	if st.ax {
		text = r.axText()
	} else {
		text = r.domText()
	}
	if _, ok := obeyedPoint(text); ok && st.ax {
		// The accessibility tree is how agents and screen readers read:
		// an instruction in it would be read aloud to people.
		t.Fatalf("the accessibility tree carries a text addressed to an AI:\n%s", text)
	}
	it, cond, ok := recognise(e.items, text)
	if !ok {
		t.Fatalf("no item recognised in the page's text:\n%s", text)
	}
	rating := a.rate(it, cond)
	if practice && !e.set.PracticePasses(cond, rating) {
		// The practice says what it wants; everyone learns it at once.
		rating = 6
		if cond == domain.ConditionCancel {
			rating = 2
		}
	}
	if st.obey {
		if n, ok := obeyedPoint(text); ok {
			rating = n
		}
	}
	r.pause(st.readLo, st.readHi)
	// A justification is asked for when a text box shows under the scale.
	justify := slices.ContainsFunc(r.layout(), func(s shape) bool { return s.Shown && s.Tag == "textarea" })
	why := justification(r.rng, cond, rating)
	if st.fillAll {
		// Every field of the DOM, the box and the hidden field alike.
		r.fillEveryField(why)
		justify = false
	}
	v := strconv.Itoa(rating)
	if st.keys {
		r.key(v) // with the box still empty the form stays, as a person finds
		if !justify {
			return
		}
		r.tabTo(`textarea`)
		r.write(a, why)
		r.tabTo(`[data-testid="next"]`)
		r.key(kb.Enter)
		return
	}
	r.clickShape(func(s shape) bool { return s.Type == "radio" && s.Value == v }, "the rating "+v)
	if justify {
		r.pause(120*time.Millisecond, 350*time.Millisecond)
		r.clickShape(func(s shape) bool { return s.Tag == "textarea" }, "the justification")
		r.write(a, why)
	}
	r.pause(120*time.Millisecond, 350*time.Millisecond)
	r.clickShape(func(s shape) bool { return s.TestID == "next" }, "Next")
}

// write enters a justification into the focused box as a's kind does: an
// agent types it key by key with human-like jitter; the dictation control
// dictates it; every other person composes it, with a slip deleted in
// their first.
func (r *redTab) write(a *rtActor, s string) {
	r.t.Helper()
	r.justified++
	switch {
	case groupOf(a.kind) != "control" && a.kind != kindReference:
		r.typeJittered(s)
	case a.kind == kindDictation:
		r.dictate(s)
	default:
		r.compose(s, r.justified == 1)
	}
}

// justification is a sentence or two on why a rating was given, as a
// person or a model writes it: at least 40 keys, so that its typing is
// judged (docs/studies.md#typed-justifications).
func justification(rng *rand.Rand, cond string, rating int) string {
	high := []string{
		"The speaker says it quite directly, so I think most people would take it that way.",
		"Nothing later in the exchange goes against it, so the reading seems natural to me.",
		"It is what you would normally understand from a sentence like this one.",
		"I read it the obvious way, and nothing in the context suggests otherwise.",
	}
	low := []string{
		"The second sentence takes back what the first one suggests, so it seems unlikely.",
		"What comes after cancels the idea, so I would not read it that way at all.",
		"The speaker corrects it straight away, which makes that meaning hard to keep.",
		"It is suggested at first, but the rest of the sentence says the opposite.",
	}
	pool := high
	if cond == domain.ConditionCancel || rating <= 3 {
		pool = low
	}
	return pool[rng.IntN(len(pool))]
}

// fillEveryField fills every text field the DOM holds, seen or not, as a
// form-filling program does: a field that takes the focus gets the text
// typed into it by keys; one that does not (the hidden field is inert and
// out of the tab order) gets it as its value, set from the DOM, which is
// how such programs fill what they cannot type into.
func (r *redTab) fillEveryField(text string) {
	r.t.Helper()
	const fields = `document.querySelectorAll('input[type=text], input:not([type]), textarea')`
	n := get(r.t, r.ctx, "count the text fields", chromedp.Evaluate[int](fields+`.length`))
	for i := range n {
		if get(r.t, r.ctx, "focus a field", chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const f = %s[%d]; f.focus(); return document.activeElement === f; })()`, fields, i))) {
			r.typeJittered(text)
			continue
		}
		get(r.t, r.ctx, "set a field's value", chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const f = %s[%d]; f.value = %s; return f.value !== ""; })()`, fields, i, strconv.Quote(text))))
	}
}

// pasteNote is what the paste control pastes into the comments.
const pasteNote = "From my notes while rating: the ones that took it back were easy, the others less so."

// questionnaire answers the post-study questionnaire in the actor's way.
func (e *rtEnv) questionnaire(r *redTab, a *rtActor, st style) {
	r.pause(st.readLo, st.readHi)
	// The fields as they show: a line of text (the languages) and a box
	// (the comments), whatever their names; the hidden field never shows
	// (clickShape takes only what shows) and Tab never reaches it.
	line := func(s shape) bool { return s.Tag == "input" && (s.Type == "text" || s.Type == "") }
	box := func(s shape) bool { return s.Tag == "textarea" }
	const lineCSS, boxCSS = `input[type=text], input:not([type])`, `textarea`
	radio := func(name, value string) func(shape) bool {
		return func(s shape) bool { return s.Type == "radio" && s.Name == name && s.Value == value }
	}
	send := func(s shape) bool { return s.TestID == "q-send" }
	switch a.kind {
	case kindNaive:
		r.fillEveryField("English")
		r.clickShape(radio("age_range", "25-34"), "an age")
		r.clickShape(send, "Send")
	case kindKeyboard:
		r.tabTo(lineCSS)
		r.typeText("Italian")
		r.tabTo(`[data-testid="q-send"]`)
		r.key(kb.Enter)
	case kindDictation:
		r.clickShape(line, "the languages")
		r.dictate("English and Welsh")
		r.clickShape(box, "the comments")
		r.dictate("Some of the sentences were hard to judge without more context")
		r.clickShape(send, "Send")
	case kindPaste:
		r.tabTo(lineCSS)
		r.typeText("German")
		r.tabTo(boxCSS)
		r.paste(pasteNote)
		r.tabTo(`[data-testid="q-send"]`)
		r.key(kb.Enter)
	default: // the stealth agents and the mouse users: the visible fields, typed
		r.clickShape(line, "the languages")
		r.typeText([]string{"English", "Spanish", "Polish"}[r.rng.IntN(3)])
		r.clickShape(radio("age_range", domain.AgeRanges[r.rng.IntN(5)]), "an age")
		if groupOf(a.kind) == "stealth" {
			r.clickShape(box, "the comments")
			r.typeText("No comments.")
		}
		r.clickShape(send, "Send")
	}
}
