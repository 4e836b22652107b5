package cli

import (
	"testing"
	"time"
)

// An answer's lag runs from its acknowledgement to the first poll showing
// the replica holds what the next poll after it reported; the answers at
// risk at a poll are those acknowledged and not yet known replicated.
func TestReplicationFigures(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	polls := []replPoll{
		{at(0), at(10), 1, 1},
		{at(1000), at(1010), 3, 1}, // the answers at 200 and 900 are in 2..3
		{at(2000), at(2010), 4, 3}, // 3 reached the replica
		{at(3000), at(3010), 4, 4},
	}
	acks := []time.Time{at(900), at(200), at(1500)}
	lags, risk := replicationFigures(acks, polls, at(200), at(3010))
	want := []time.Duration{1810 * time.Millisecond, 1110 * time.Millisecond, 1510 * time.Millisecond}
	if len(lags) != 3 || lags[0] != want[0] || lags[1] != want[1] || lags[2] != want[2] {
		t.Fatalf("lags %v, want %v", lags, want)
	}
	// At 1010 two answers wait; at 2010 the third (in 4) still does; at 3010 none.
	if len(risk) != 3 || risk[0] != 2 || risk[1] != 1 || risk[2] != 0 {
		t.Fatalf("at risk %v, want [2 1 0]", risk)
	}
}
