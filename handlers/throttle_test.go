package handlers

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"
)

func TestLoginThrottleReservesAndForgets(t *testing.T) {
	th := newLoginThrottle()
	now := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	keys := loginKeys("203.0.113.9", "Researcher")
	for i := range th.max {
		if w := th.reserve(now.Add(time.Duration(i)*time.Second), keys...); w != 0 {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	w := th.reserve(now.Add(time.Minute), keys...)
	if w <= 0 || w > th.window {
		t.Fatalf("attempt 11: wait %v", w)
	}
	// The same account from elsewhere, and in other letters, waits too.
	if th.reserve(now.Add(time.Minute), loginKeys("198.51.100.1", "researcher")...) == 0 {
		t.Fatal("the account limit did not hold for another client")
	}
	// Once the window has passed the attempts are forgotten.
	if th.reserve(now.Add(th.window+time.Minute), keys...) != 0 {
		t.Fatal("still refused after the window")
	}
	th.release(keys...)
	// The refused attempt from elsewhere reserved nothing.
	if len(th.keys) != 0 {
		t.Fatalf("%d keys after release: %v", len(th.keys), th.keys)
	}
}

// TestLoginThrottleMemoryBounded: a flood of new addresses and names never
// grows the table beyond its bound, and a key holds at most max times.
func TestLoginThrottleMemoryBounded(t *testing.T) {
	th := newLoginThrottle()
	th.maxKeys = 500
	now := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	for i := range 5000 {
		th.reserve(now, loginKeys(fmt.Sprintf("10.0.%d.%d", i/256, i%256), fmt.Sprintf("user%d", i))...)
		if len(th.keys) > th.maxKeys {
			t.Fatalf("after %d attempts the table holds %d keys (bound %d)", i+1, len(th.keys), th.maxKeys)
		}
	}
	for range 100 {
		th.reserve(now, "client x")
	}
	if n := len(th.keys["client x"].at); n > th.max {
		t.Fatalf("one key holds %d times", n)
	}
}

func TestClientAddr(t *testing.T) {
	r := httptest.NewRequest("POST", "/admin/login", nil)
	r.RemoteAddr = "10.1.2.3:5555"
	r.Header.Set("Fly-Client-IP", "203.0.113.9")
	r.Header.Set("X-Forwarded-For", "6.6.6.6, 198.51.100.4")
	for _, c := range []struct{ header, want string }{
		{"", "10.1.2.3"},
		{"Fly-Client-IP", "203.0.113.9"},
		{"X-Forwarded-For", "198.51.100.4"},
		{"X-Real-IP", "10.1.2.3"}, // configured but absent: the connection
	} {
		if got := clientAddr(r, c.header); got != c.want {
			t.Errorf("header %q: %q, want %q", c.header, got, c.want)
		}
	}
	r.Header.Set("Fly-Client-IP", "not an address")
	if got := clientAddr(r, "Fly-Client-IP"); got != "10.1.2.3" {
		t.Errorf("a malformed header gave %q", got)
	}
}

// TestAddrKeyGroupsIPv6 (docs/deploy.md#security): the limits per address count
// an IPv6 /64 as one address, since one host may hold all of it; IPv4 and
// IPv4-mapped addresses count alone.
func TestAddrKeyGroupsIPv6(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.9":                  "203.0.113.9",
		"::ffff:203.0.113.9":           "203.0.113.9",
		"2001:db8:1:2::1":              "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:0:0:9":      "2001:db8:1:2::/64",
		"2001:db8:1:3::1":              "2001:db8:1:3::/64",
		"::1":                          "::/64",
		"not an address (unix socket)": "not an address (unix socket)",
	} {
		if got := addrKey(in); got != want {
			t.Errorf("addrKey(%q) = %q, want %q", in, got, want)
		}
	}
	// The login limit per address holds across a /64.
	th := newLoginThrottle()
	now := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	for i := range th.max {
		th.reserve(now, loginKeys(addrKey(fmt.Sprintf("2001:db8:1:2::%x", i+1)), fmt.Sprint("user", i))...)
	}
	if th.reserve(now, loginKeys(addrKey("2001:db8:1:2::ff"), "other")...) == 0 {
		t.Fatal("an eleventh attempt from the same /64 was let through")
	}
}
