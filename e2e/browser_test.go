// Package e2e holds the real-browser tests: a participant's whole path through
// a study, driven in headless Chromium by chromedp against a real server.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds a Chromium or Chrome binary, or returns "".
func chromiumPath() string {
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile for one test
// and returns a tab context that ends with the test. Without a browser the
// test is skipped, unless CI is set: in CI a missing browser is a failure,
// since .ci/run installs it.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return newBrowserWith(t)
}

// newBrowserWith is newBrowser with more allocator options (a flag left
// off, say), applied after the usual ones.
func newBrowserWith(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no Chromium binary found and CI is set: install it (apt-get install -y chromium)")
		}
		t.Skip("no Chromium binary found (looked for /usr/bin/chromium, chromium, chromium-browser, google-chrome); install it with `apt-get install -y chromium` to run the browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1024, 768),
	)
	opts = append(opts, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	// Start the browser with a context without deadline, so that a timeout
	// around a single step does not close the browser.
	if err := chromedp.Do(ctx); err != nil {
		cancelTab()
		cancelAlloc()
		t.Fatalf("start chromium (%s): %v", path, err)
	}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	return ctx
}

// stepLimit bounds one step: a page that has not reached the state a step
// waits for by then is broken. It is a bound, not a wait: a step ends as
// soon as its state is reached, and the bound is wide so that a saturated
// 2-core machine (the whole suite, Chromium and the server on it) still
// passes. PRAGMALAB_TEST_SLOWDOWN multiplies it (and every other bound of
// the browser tests) on a machine slower still: PRAGMALAB_TEST_SLOWDOWN=3
// gives each step 3 minutes.
var stepLimit = slowdown(os.Getenv("PRAGMALAB_TEST_SLOWDOWN")) * 60 * time.Second

// slowdown reads the factor of PRAGMALAB_TEST_SLOWDOWN: a number of at
// least 1, else 1.
func slowdown(v string) time.Duration {
	f, err := strconv.Atoi(v)
	if err != nil || f < 1 {
		return 1
	}
	return time.Duration(f)
}

// step runs actions with a time limit, failing the test with what was being
// done.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepLimit)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one action returning a value, with a time limit.
func get[T any](t *testing.T, ctx context.Context, what string, action chromedp.Action[T]) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepLimit)
	defer cancel()
	v, err := chromedp.Run(sctx, action)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// answerScreen waits for a participant's screen, clicks a rating and the
// button that sends it. When Chromium hands chromedp a new copy of the
// document between finding a node and clicking it ("Could not find node
// with given id", seen on a loaded machine), nothing was clicked, so the
// screen is simply tried again.
func answerScreen(t *testing.T, ctx context.Context, what string, screen chromedp.CSS, rating, send string) {
	t.Helper()
	stepRetry(t, ctx, what, chromedp.WaitVisible(screen), pageLoaded(), chromedp.Click(testID(rating)), chromedp.Click(testID(send)))
}

// stepRetry is step for actions that find a node and then act on it: when
// Chromium swaps the document in between ("given id"), nothing was done,
// so the actions are tried again, up to three times.
func stepRetry(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		sctx, cancel := context.WithTimeout(ctx, stepLimit)
		err := chromedp.Do(sctx, actions...)
		cancel()
		if err == nil {
			return
		}
		if attempt < 3 && strings.Contains(err.Error(), "given id") {
			t.Logf("%s: %v; trying again", what, err)
			continue
		}
		t.Fatalf("%s: %v", what, err)
	}
}

// pageLoaded waits until the page has loaded: its scripts (app.js) have
// run their DOMContentLoaded handlers. It asks from here rather than with
// chromedp.Poll, whose polling runs on the page's own timers: where a test
// turns the page's scripts off, those never fire, and a page not yet
// loaded when the poll began was waited for until the step's bound.
func pageLoaded() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for {
			// An error is a document being replaced: ask the next one.
			done, err := chromedp.Evaluate[bool](`document.readyState === "complete"`)(ctx, tg)
			if err == nil && done {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, ctx.Err()
			case <-time.After(20 * time.Millisecond): // a poll interval, not a wait for a state
			}
		}
	}
}

// testID selects the element with a data-testid attribute.
func testID(id string) chromedp.CSS {
	return chromedp.CSS(`[data-testid="` + id + `"]`)
}

// prolificTrap answers every request to app.prolific.com inside the browser
// (no network) with a small page and records the URLs asked for, so a test
// can see the completion redirect.
type prolificTrap struct {
	mu   sync.Mutex
	urls []string
	// hold leaves the requests unanswered: the page that sent the browser
	// there (the completion page, whose Refresh leaves after 3 seconds)
	// stays on screen for as long as the test reads it.
	hold bool
}

// trapProlific installs the interception on the tab.
func trapProlific(t *testing.T, ctx context.Context) *prolificTrap {
	t.Helper()
	return installProlificTrap(t, ctx, &prolificTrap{})
}

// holdProlific installs the interception on the tab, holding the requests
// unanswered.
func holdProlific(t *testing.T, ctx context.Context) *prolificTrap {
	t.Helper()
	return installProlificTrap(t, ctx, &prolificTrap{hold: true})
}

func installProlificTrap(t *testing.T, ctx context.Context, trap *prolificTrap) *prolificTrap {
	t.Helper()
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "https://app.prolific.com/*"}},
	}); err != nil {
		t.Fatalf("intercept app.prolific.com: %v", err)
	}
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			trap.mu.Lock()
			trap.urls = append(trap.urls, ev.Request.URL)
			trap.mu.Unlock()
			if trap.hold {
				continue
			}
			chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID:       ev.RequestID,
				ResponseCode:    200,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html"}},
				Body:            []byte(`<!doctype html><title>Prolific</title><p data-testid="prolific">Prolific (intercepted by the test)</p>`),
			})
		}
	}()
	return trap
}

// wait returns the first trapped URL starting with prefix, failing the test
// when the browser has not gone there within a step's bound.
func (p *prolificTrap) wait(t *testing.T, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(stepLimit)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		for _, u := range p.urls {
			if strings.HasPrefix(u, prefix) {
				p.mu.Unlock()
				return u
			}
		}
		p.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the browser never went to %s (saw %v)", prefix, p.urls)
	return ""
}
