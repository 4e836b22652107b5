package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// The accessibility audit (docs/testing.md#accessibility-audit): axe-core,
// vendored in testdata/axe with its licence, is injected into the page the
// browser shows and run with the WCAG 2.0 and 2.1 level A and AA rules.

// axeTags are the rule sets the audit runs: WCAG 2.1 A and AA, which
// include 2.0's.
var axeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"}

var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("testdata/axe/axe.min.js")
	return string(b), err
})

// axeViolation is one rule a page breaks, with the elements that break it.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
	Summary string   `json:"summary"`
}

// axeRun injects axe-core into the page (once per document) and returns
// the WCAG A/AA violations of the page as it is now.
func axeRun(t *testing.T, ctx context.Context, what string) []axeViolation {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		t.Fatalf("read axe-core: %v", err)
	}
	tags := `["` + strings.Join(axeTags, `","`) + `"]`
	run := chromedp.Evaluate[[]axeViolation](`axe.run(document, {
		runOnly: {type: "tag", values: `+tags+`},
		resultTypes: ["violations"],
	}).then(r => r.violations.map(v => ({
		id: v.id, impact: v.impact || "", help: v.help,
		targets: v.nodes.map(n => n.target.join(" ")),
		summary: v.nodes.length ? (v.nodes[0].failureSummary || "") : "",
	})))`, chromedp.EvalAwaitPromise)
	// Evaluated by the DevTools protocol, so the page's
	// Content-Security-Policy does not block it.
	load := chromedp.Evaluate[bool](`typeof window.axe === "object" || (function () {` + src + "\n;return typeof window.axe === \"object\"; })()")
	for attempt := 1; ; attempt++ {
		sctx, cancel := context.WithTimeout(ctx, stepLimit)
		loaded, err := chromedp.Run(sctx, load)
		var vs []axeViolation
		if err == nil && !loaded {
			err = fmt.Errorf("axe-core did not load")
		}
		if err == nil {
			vs, err = chromedp.Run(sctx, run)
		}
		cancel()
		if err == nil {
			return vs
		}
		// A page that refreshes itself (the crowd progress, the metrics,
		// the completion page's Refresh) may replace the document while
		// axe runs: audit the new one.
		if attempt < 3 {
			t.Logf("axe on %s: %v; again", what, err)
			continue
		}
		t.Fatalf("axe on %s: %v", what, err)
	}
}

// axeAudit fails the test (without stopping it) when the page breaks any
// WCAG 2.1 A or AA rule, with one readable line per rule: its id, impact,
// the selectors of the elements and the help text.
func axeAudit(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if vs := axeRun(t, ctx, what); len(vs) > 0 {
		t.Errorf("%s: %d accessibility violations (WCAG 2.1 A/AA, axe-core):\n%s", what, len(vs), formatViolations(vs))
	}
}

// formatViolations lists violations one per line, the elements on the
// next, at most 5 of them.
func formatViolations(vs []axeViolation) string {
	var b strings.Builder
	for _, v := range vs {
		targets := v.Targets
		more := ""
		if len(targets) > 5 {
			more = fmt.Sprintf(" … and %d more", len(targets)-5)
			targets = targets[:5]
		}
		fmt.Fprintf(&b, "  - %s [%s] %s\n      at %s%s\n", v.ID, v.Impact, v.Help, strings.Join(targets, ", "), more)
		if v.Summary != "" {
			fmt.Fprintf(&b, "      %s\n", strings.ReplaceAll(strings.TrimSpace(v.Summary), "\n", "\n      "))
		}
	}
	return b.String()
}

// TestAxeFindsViolations checks the audit itself on a page built to break
// three rules — an image without a text alternative, a field without a
// label, grey text on white — and on the same page mended: it reports
// those rules, with their elements, and nothing on the mended page.
func TestAxeFindsViolations(t *testing.T) {
	ctx := newBrowser(t)
	bad := `<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>Test</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="pic">
<input type="text" id="nameless">
<p id="faint" style="color:#bbb;background:#fff">Hard to read</p></main></body></html>`
	step(t, ctx, "open the broken page", chromedp.Navigate("data:text/html,"+urlEscape(bad)), chromedp.WaitReady("#faint"))
	vs := axeRun(t, ctx, "the broken page")
	got := map[string]string{}
	for _, v := range vs {
		got[v.ID] = strings.Join(v.Targets, " ")
	}
	for id, target := range map[string]string{"image-alt": "#pic", "label": "#nameless", "color-contrast": "#faint"} {
		if !strings.Contains(got[id], target) {
			t.Errorf("axe did not report %s at %s; it reported:\n%s", id, target, formatViolations(vs))
		}
	}
	if msg := formatViolations(vs); !strings.Contains(msg, "image-alt [critical]") {
		t.Errorf("the report does not read rule [impact]:\n%s", msg)
	}
	good := `<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>Test</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="A dot">
<label>Name <input type="text"></label>
<p style="color:#333;background:#fff">Easy to read</p></main></body></html>`
	step(t, ctx, "open the mended page", chromedp.Navigate("data:text/html,"+urlEscape(good)), chromedp.WaitReady("p"))
	if vs := axeRun(t, ctx, "the mended page"); len(vs) > 0 {
		t.Errorf("the mended page has violations:\n%s", formatViolations(vs))
	}
}

func urlEscape(s string) string {
	return strings.NewReplacer("%", "%25", "#", "%23", "\n", "%0A", " ", "%20", `"`, "%22", "<", "%3C", ">", "%3E").Replace(s)
}
