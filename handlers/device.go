package handlers

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device
// Cookies"; docs/deploy.md#security): a browser that logged in to an
// account carries a cookie, signed with a server key, naming the account
// and when it expires. A login with a valid device cookie for the account
// it names is throttled on that cookie alone, so failed attempts made
// elsewhere — which lock the account and the addresses they come from —
// never lock out a browser its owner used before. A login without one
// keeps the per-account and per-address limits.

const (
	deviceCookie   = "pragmalab_device"
	deviceLifetime = 90 * 24 * time.Hour
)

// deviceMAC signs a device cookie's payload.
func (h *Handler) deviceMAC(payload string) string {
	m := hmac.New(sha256.New, h.DeviceKey)
	m.Write([]byte("pragmalab device cookie\x00" + payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// trustDevice gives the browser a fresh device cookie for username, after a
// successful login.
func (h *Handler) trustDevice(w http.ResponseWriter, username string) {
	if len(h.DeviceKey) == 0 {
		return
	}
	var nonce [16]byte
	rand.Read(nonce[:])
	payload := base64.RawURLEncoding.EncodeToString([]byte(strings.ToLower(username))) + "." +
		strconv.FormatInt(h.Now().Add(deviceLifetime).Unix(), 10) + "." + hex.EncodeToString(nonce[:])
	http.SetCookie(w, &http.Cookie{
		Name: deviceCookie, Value: payload + "." + h.deviceMAC(payload), Path: "/admin/login",
		MaxAge: int(deviceLifetime.Seconds()), HttpOnly: true, Secure: h.SecureCookies, SameSite: http.SameSiteStrictMode,
	})
}

// device is the id of the request's device cookie when it is valid (signed
// by this server, not expired) and names username; "" otherwise.
func (h *Handler) device(r *http.Request, username string) string {
	if len(h.DeviceKey) == 0 {
		return ""
	}
	c, err := r.Cookie(deviceCookie)
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(c.Value, '.')
	if i < 0 {
		return ""
	}
	payload, mac := c.Value[:i], c.Value[i+1:]
	if !hmac.Equal([]byte(mac), []byte(h.deviceMAC(payload))) {
		return ""
	}
	parts := strings.Split(payload, ".")
	if len(parts) != 3 {
		return ""
	}
	name, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil || !strings.EqualFold(string(name), username) {
		return ""
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || !h.Now().Before(time.Unix(exp, 0)) {
		return ""
	}
	return parts[2]
}

// lockAudit remembers which lock of each account has its audit entry, so
// a lock is written once, not once per refused attempt.
type lockAudit struct {
	mu     sync.Mutex
	logged map[string]time.Time // account key → first attempt of the lock
}

// reserveLogin reserves a login attempt: on the device cookie's own key
// when the browser carries a valid one for username, else on the client's
// address and the account. It returns the keys reserved (to release after
// a success) or how long to wait. A lock cleared with `pragmalab admin
// unlock` after its first attempt no longer holds; a new lock of the
// account is written to the audit log once.
func (h *Handler) reserveLogin(r *http.Request, client, username string) ([]string, time.Duration) {
	if id := h.device(r, username); id != "" {
		keys := []string{"device " + id}
		return keys, h.logins.reserve(h.Now(), keys...)
	}
	keys := loginKeys(addrKey(client), username)
	now := h.Now()
	wait := h.logins.reserve(now, keys...)
	if wait == 0 {
		return keys, 0
	}
	account := keys[1]
	first, locked := h.logins.blocked(now, account)
	if !locked {
		return keys, wait
	}
	if at, err := h.Store.LoginUnlockedAt(r.Context(), username); err == nil && at.After(first) {
		h.logins.forgetBefore(account, at)
		if wait = h.logins.reserve(now, keys...); wait == 0 {
			return keys, 0
		}
		if first, locked = h.logins.blocked(now, account); !locked {
			return keys, wait
		}
	}
	h.locks.mu.Lock()
	if h.locks.logged == nil {
		h.locks.logged = map[string]time.Time{}
	}
	fresh := !h.locks.logged[account].Equal(first)
	h.locks.logged[account] = first
	if len(h.locks.logged) > 10000 {
		clear(h.locks.logged)
	}
	h.locks.mu.Unlock()
	if fresh {
		if err := h.SignIn.AuditLoginLockout(r.Context(), username, client, wait); err != nil {
			h.Log.Error("audit log not written", "action", "login lockout", "err", err)
		}
	}
	return keys, wait
}

// blocked reports whether key is at its limit, and its first attempt
// within the window.
func (t *loginThrottle) blocked(now time.Time, key string) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.keys[key]
	if a == nil || !t.prune(a, now) || len(a.at) < t.max {
		return time.Time{}, false
	}
	return a.at[0], true
}

// forgetBefore drops key's attempts made before at.
func (t *loginThrottle) forgetBefore(key string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.keys[key]
	if a == nil {
		return
	}
	i := 0
	for i < len(a.at) && a.at[i].Before(at) {
		i++
	}
	a.at = a.at[i:]
}
