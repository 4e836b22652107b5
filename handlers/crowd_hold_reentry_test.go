package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"pragmalab/domain"
)

// TestCrowdHoldNotRenewedByReentry (docs/studies.md#no-hoarding): re-opening the
// Prolific entry link of a consented, unanswered place does not renew its
// hold, which counts from consent (docs/studies.md#no-hoarding). Three
// places from one address, their links reloaded every 20 s: after the
// hold, a fourth PID from that address is let in, and in a full study a
// newcomer takes one of the reloaded places.
func TestCrowdHoldNotRenewedByReentry(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) {
		s.Quota, s.PlacesPerAddress, s.HoldMinutes = 1, 3, 1
	})
	e.web.Handler.TrustedProxyHeader = "X-Test-Client"
	now := time.Now().UTC()
	e.db.Now = func() time.Time { return now }
	prog, _ := e.db.CrowdProgress(context.Background(), e.study, e.set)
	if len(prog) < 4 {
		t.Fatalf("%d batches, want at least 4", len(prog))
	}
	const addr = "192.0.2.7"
	for i := range 3 {
		b := e.fromAddr(addr).get(e.entry(pidN(i), fmt.Sprint("s", i)))
		b.post(e.base()+"/consent", nil).must("training")
	}
	// The rest of the batches are taken from other addresses, answered.
	for i := 3; i < len(prog); i++ {
		b := e.fromAddr(fmt.Sprintf("198.51.100.%d", i)).get(e.entry(pidN(i), fmt.Sprint("s", i)))
		b.post(e.base()+"/consent", nil).must("training")
		b.post(e.base()+"/training", map[string][]string{"position": {"1"}, "attempt": {"0"}, "rating": {"6"}})
	}
	// Held: the fourth PID from the address is refused.
	limit := e.fromAddr(addr).get(e.entry(pidN(40), "s40"))
	if limit.resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a fourth PID within the hold: status %d, want 429", limit.resp.StatusCode)
	}
	// 80 s of reloads every 20 s, from the same address.
	for range 4 {
		now = now.Add(20 * time.Second)
		for i := range 3 {
			e.fromAddr(addr).get(e.entry(pidN(i), fmt.Sprint("s", i)))
		}
	}
	fourth := e.fromAddr(addr).get(e.entry(pidN(41), "s41"))
	if fourth.resp.StatusCode == http.StatusTooManyRequests {
		t.Fatalf("80 s after consent, with a one-minute hold, reloads still hold the places: status 429")
	}
	fourth.must("consent")
	fourth.post(e.base()+"/consent", nil).must("training")
}

// TestCrowdPlacesPerAddressIPv6 (docs/studies.md#no-hoarding): one IPv6 host has a
// whole /64 to choose addresses from, so the per-address cap counts the
// /64: three places from three addresses of one /64 fill it, a fourth from
// a fourth address of it is refused, and the next /64 is not concerned.
func TestCrowdPlacesPerAddressIPv6(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) { s.PlacesPerAddress = 3 })
	e.web.Handler.TrustedProxyHeader = "X-Test-Client"
	for i, addr := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:aaaa:bbbb:cccc:dddd"} {
		b := e.fromAddr(addr).get(e.entry(pidN(i), fmt.Sprint("s", i)))
		b.post(e.base()+"/consent", nil).must("training")
	}
	fourth := e.fromAddr("2001:db8:1:2:ffff::9").get(e.entry(pidN(3), "s3"))
	if fourth.resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a fourth address of the same /64: status %d, want 429", fourth.resp.StatusCode)
	}
	e.fromAddr("2001:db8:1:3::1").get(e.entry(pidN(4), "s4")).must("consent")
	// IPv4 keeps counting the address itself.
	e.fromAddr("192.0.2.1").get(e.entry(pidN(5), "s5")).must("consent")
}
