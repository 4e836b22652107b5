package handlers

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// loginThrottle limits login attempts per client address and per account,
// so a password cannot be guessed at the speed of the network, nor by many
// clients sharing the work. An attempt is reserved before the password is
// hashed, so parallel attempts cannot all pass the check; a successful
// login gives the reservations back.
//
// Memory is bounded: each key keeps at most max times, and at most maxKeys
// keys are held; when full, expired keys go first, then the key used
// longest ago. Filling the table takes many clients, since every client is
// itself limited.
type loginThrottle struct {
	mu      sync.Mutex
	keys    map[string]*attempts
	max     int
	window  time.Duration
	maxKeys int
}

// attempts are a key's reserved attempts within the window, oldest first.
type attempts struct {
	at   []time.Time
	last time.Time
}

func newLoginThrottle() *loginThrottle {
	return &loginThrottle{keys: map[string]*attempts{}, max: 10, window: 15 * time.Minute, maxKeys: 10000}
}

// entryLimit is how many new arrivals a client address may make at the
// crowd entry URL per entryWindow (docs/studies.md#crowd-entry).
const (
	entryLimit  = 30
	entryWindow = 10 * time.Minute
)

// newEntryThrottle limits new arrivals at the crowd entry URL per client
// address, max per entryWindow (0: entryLimit).
func newEntryThrottle(max int) *loginThrottle {
	if max == 0 {
		max = entryLimit
	}
	return &loginThrottle{keys: map[string]*attempts{}, max: max, window: entryWindow, maxKeys: 10000}
}

// clientAddr is the client's address: from the trusted proxy header when
// one is configured and present, else from the connection. Without a
// configured header no request header is believed, since clients can send
// any header they like.
func clientAddr(r *http.Request, trustedHeader string) string {
	if trustedHeader != "" {
		v := r.Header.Get(trustedHeader)
		// A list (X-Forwarded-For style): the last entry is the one the
		// trusted proxy added.
		if i := strings.LastIndexByte(v, ','); i >= 0 {
			v = v[i+1:]
		}
		if ip := net.ParseIP(strings.TrimSpace(v)); ip != nil {
			return ip.String()
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// addrKey is the address the limits per address count (the crowd's
// places_per_address, the entry and login limits): an IPv6 address counts
// as its /64, since one host is commonly given a whole /64 and may take a
// new address from it for every request; an IPv4 address (IPv4-mapped
// too) counts alone. Anything that is no address is its own key.
func addrKey(addr string) string {
	ip := net.ParseIP(addr)
	if ip == nil {
		return addr
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	n := net.IPNet{IP: ip.Mask(net.CIDRMask(64, 128)), Mask: net.CIDRMask(64, 128)}
	return n.String()
}

// prune drops a key's attempts older than the window; it reports whether
// any are left.
func (t *loginThrottle) prune(a *attempts, now time.Time) bool {
	i := 0
	for i < len(a.at) && now.Sub(a.at[i]) >= t.window {
		i++
	}
	a.at = a.at[i:]
	return len(a.at) > 0
}

// reserve records one attempt under every key, or none if any key is at
// its limit; then it returns how long to wait.
func (t *loginThrottle) reserve(now time.Time, keys ...string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	var wait time.Duration
	for _, k := range keys {
		a := t.keys[k]
		if a == nil || !t.prune(a, now) || len(a.at) < t.max {
			continue
		}
		wait = max(wait, t.window-now.Sub(a.at[0]))
	}
	if wait > 0 {
		return wait
	}
	for _, k := range keys {
		a := t.keys[k]
		if a == nil {
			t.makeRoom(now)
			a = &attempts{}
			t.keys[k] = a
		}
		a.at = append(a.at, now)
		a.last = now
	}
	return 0
}

// makeRoom keeps the table below maxKeys before a key is added.
func (t *loginThrottle) makeRoom(now time.Time) {
	if len(t.keys) < t.maxKeys {
		return
	}
	for k, a := range t.keys {
		if !t.prune(a, now) {
			delete(t.keys, k)
		}
	}
	for len(t.keys) >= t.maxKeys {
		var oldest string
		var at time.Time
		for k, a := range t.keys {
			if oldest == "" || a.last.Before(at) {
				oldest, at = k, a.last
			}
		}
		delete(t.keys, oldest)
	}
}

// release forgets the keys' attempts after a successful login.
func (t *loginThrottle) release(keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		delete(t.keys, k)
	}
}

// loginKeys are the throttle keys of a login: the client and the account.
func loginKeys(client, username string) []string {
	if len(username) > 64 {
		username = username[:64]
	}
	return []string{"client " + client, "account " + strings.ToLower(username)}
}
