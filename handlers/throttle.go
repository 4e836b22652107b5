package handlers

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// loginThrottle limits failed logins per client address, so a password
// cannot be guessed at the speed of the network.
type loginThrottle struct {
	mu       sync.Mutex
	failures map[string][]time.Time
	max      int
	window   time.Duration
}

func newLoginThrottle() *loginThrottle {
	return &loginThrottle{failures: map[string][]time.Time{}, max: 10, window: 15 * time.Minute}
}

// entryLimit is how many new arrivals a client address may make at the
// crowd entry URL per entryWindow (docs/studies.md#crowd-entry).
const (
	entryLimit  = 30
	entryWindow = 10 * time.Minute
)

func newEntryThrottle(max int) *loginThrottle {
	if max == 0 {
		max = entryLimit
	}
	return &loginThrottle{failures: map[string][]time.Time{}, max: max, window: entryWindow}
}

// clientKey is the client address every per-client limit counts by.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// recent drops failures older than the window and returns those left.
func (t *loginThrottle) recent(key string, now time.Time) []time.Time {
	kept := t.failures[key][:0]
	for _, f := range t.failures[key] {
		if now.Sub(f) < t.window {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		delete(t.failures, key)
		return nil
	}
	t.failures[key] = kept
	return kept
}

// blocked reports how long the client must wait, or 0.
func (t *loginThrottle) blocked(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := t.recent(key, now)
	if len(fs) < t.max {
		return 0
	}
	return t.window - now.Sub(fs[0])
}

func (t *loginThrottle) fail(key string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.recent(key, now)
	t.failures[key] = append(t.failures[key], now)
}

func (t *loginThrottle) reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.failures, key)
}
