package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"

	"pragmalab/domain"
	"pragmalab/templates"
)

// TestMachineCheckInBrowser: with machine_check on, the consent page says
// the study checks for automated answering, and a batch screen carrying
// the hidden instruction keeps it out of sight (one pixel at most,
// aria-hidden, nothing focusable in it) while the page's text holds it, at
// 390 px and 1280 px, with no axe violation. Neither the instruction nor
// the hidden field is in the accessibility tree, which a screen reader
// reads (docs/studies.md#machine-instruction). Obeying it is stored as 1 (#32 §5).
func TestMachineCheckInBrowser(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudyWith(t, "en", func(set *domain.CrowdSettings) {
		set.MachineCheck = true
	})
	ctx := newBrowser(t)
	trapProlific(t, ctx)
	const pid = "70f1a2b3c4d5e6f7a8b9c0e1"
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: pid, at: func(page string) {
		if page != "consent" {
			return
		}
		for _, w := range widths {
			setWidth(t, ctx, w)
			axeAudit(t, ctx, fmt.Sprintf("consent with machine checks at %d px", w))
			screenshot(t, ctx, fmt.Sprintf("machine-check-consent-%d", w))
		}
		step(t, ctx, "the consent states the checks", chromedp.WaitVisible(testID("consent-checks")))
	}}
	walk.toBatch(t, ctx)
	pos := 1
	for ; ; pos++ {
		waitScreen(t, ctx, pos)
		if get(t, ctx, fmt.Sprintf("screen %d: instruction?", pos), chromedp.Evaluate[bool](findInstruction+`() !== null`)) {
			break
		}
		if pos > 10 {
			t.Fatal("no screen among the first 10 carries the instruction")
		}
		walk.answer(t, ctx, fmt.Sprintf("screen %d", pos), pos, "4")
	}
	var asked int
	for _, w := range widths {
		setWidth(t, ctx, w)
		notInAXTree(t, ctx, fmt.Sprintf("screen with the instruction at %d px", w))
		keyboardMeetsNoTrap(t, ctx, fmt.Sprintf("screen with the instruction at %d px", w))
		asked = lookAtInstruction(t, ctx, w)
		axeAudit(t, ctx, fmt.Sprintf("screen with the instruction at %d px", w))
		screenshot(t, ctx, fmt.Sprintf("machine-check-screen-%d", w))
	}
	walk.answer(t, ctx, "obey the instruction", pos, strconv.Itoa(asked))
	waitScreen(t, ctx, pos+1)
	p := crowdParticipant(t, db, studyID, pid)
	var v sql.NullInt64
	if err := db.Reader().QueryRowContext(context.Background(),
		`SELECT machine_instruction FROM crowd_ratings WHERE participant_id = ? AND position = ?`, p.ID, pos).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if !v.Valid || v.Int64 != 1 {
		t.Errorf("the obeyed instruction of screen %d is stored as %v, want 1", pos, v)
	}
}

// lookAtInstruction checks the hidden instruction of the page at width w
// and returns the point it asks for.
func lookAtInstruction(t *testing.T, ctx context.Context, w int64) int {
	t.Helper()
	type look struct {
		Width, Height float64
		AriaHidden    string
		Display       string
		Focusable     int
		InText        bool
		Text          string
	}
	l := get(t, ctx, "the instruction", chromedp.Evaluate[look](`(() => {
		const el = `+findInstruction+`();
		const r = el.getBoundingClientRect();
		return {Width: r.width, Height: r.height, AriaHidden: el.getAttribute('aria-hidden'),
			Display: getComputedStyle(el).display,
			Focusable: el.querySelectorAll('a, button, input, select, textarea, [tabindex]').length,
			InText: document.body.innerText.includes(el.textContent), Text: el.textContent};
	})()`))
	if l.Width > 1 || l.Height > 1 || l.AriaHidden != "true" || l.Display == "none" || l.Focusable != 0 || !l.InText {
		t.Fatalf("at %d px the instruction is %+v; want at most 1×1 px, aria-hidden, displayed, nothing focusable, in the page's text", w, l)
	}
	m := regexp.MustCompile(`\b(\d+)\b`).FindStringSubmatch(l.Text)
	if m == nil {
		t.Fatalf("instruction text %q", l.Text)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// findInstruction is a script's function that returns the page's hidden
// instruction, found by its wording (any of the English pool), or null.
var findInstruction = func() string {
	var ws []string
	for i := 1; i <= domain.InstructionWordings; i++ {
		ws = append(ws, strings.Replace(regexp.QuoteMeta(templates.CT("en", fmt.Sprintf("machine_instruction_%d", i))), "%d", `\d+`, 1))
	}
	re, _ := json.Marshal("^(" + strings.Join(ws, "|") + ")$")
	return `(() => { const re = new RegExp(` + string(re) + `); return Array.from(document.querySelectorAll("main *")).find(e => re.test(e.textContent.trim())) || null; })`
}()

// notInAXTree fails when the accessibility tree of the page, as Chromium
// gives it to a screen reader, holds the hidden instruction or the hidden
// field (by its label or as a text box), or lacks the rating question
// (then the tree read is not the page's).
func notInAXTree(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	hidden := get(t, ctx, what+": hidden texts", chromedp.Evaluate[[]string](`(() => {
		const out = [];
		const ins = `+findInstruction+`();
		if (ins) out.push(ins.textContent.trim());
		for (const f of document.querySelectorAll('[data-testid=rating-form] input[type=text]')) out.push(f.closest("label").textContent.trim());
		return out;
	})()`))
	if len(hidden) < 2 {
		t.Fatalf("%s: the page has no hidden instruction and field to look for: %v", what, hidden)
	}
	belief := get(t, ctx, what+": belief", chromedp.Text(testID("belief")))
	sctx, cancel := context.WithTimeout(ctx, stepLimit)
	defer cancel()
	tree, err := chromedp.Call(sctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatalf("%s: accessibility tree: %v", what, err)
	}
	sawBelief := false
	for _, n := range tree.Nodes {
		if n.Ignored {
			continue
		}
		var name, role string
		if n.Name != nil {
			json.Unmarshal(n.Name.Value, &name)
		}
		if n.Role != nil {
			json.Unmarshal(n.Role.Value, &role)
		}
		if strings.Contains(name, belief) {
			sawBelief = true
		}
		if role == "textbox" {
			t.Errorf("%s: a text box %q is in the accessibility tree", what, name)
		}
		for _, h := range hidden {
			if name != "" && (strings.Contains(name, h) || strings.Contains(h, name) && len(name) > 12) {
				t.Errorf("%s: %q is in the accessibility tree as %s %q", what, h, role, name)
			}
		}
	}
	if !sawBelief {
		t.Fatalf("%s: the accessibility tree (%d nodes) lacks the rating question %q", what, len(tree.Nodes), belief)
	}
}

// keyboardMeetsNoTrap tabs through the whole page, round to the start, and
// fails when the focus ever lands on a text field or inside an aria-hidden
// or inert element: a keyboard user never meets the hidden field.
func keyboardMeetsNoTrap(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	step(t, ctx, what+": focus the start", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
	seen := 0
	for range 40 {
		step(t, ctx, what+": Tab", chromedp.KeyEvent("\t"))
		bad := get(t, ctx, what+": focus", chromedp.Evaluate[string](`(() => {
			const a = document.activeElement;
			if (!a || a === document.body) return "";
			if (a.closest("[aria-hidden=true],[inert]") || (a.tagName === "INPUT" && a.type === "text")) return a.outerHTML;
			return "ok";
		})()`))
		switch bad {
		case "":
		case "ok":
			seen++
		default:
			t.Fatalf("%s: the keyboard reaches %s", what, bad)
		}
	}
	if seen == 0 {
		t.Fatalf("%s: Tab never focused anything", what)
	}
}
