package domain

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseSignal: absent, not a number or negative is no signal; huge is
// clamped; nothing is an error, so the answer is never lost to a signal.
func TestParseSignal(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want Signal
	}{
		{"", 10, Signal{}},
		{"abc", 10, Signal{}},
		{"-1", 10, Signal{}},
		{"1.5", 10, Signal{}},
		{"0", 10, Signal{Valid: true}},
		{" 7 ", 10, Signal{Valid: true, N: 7}},
		{"11", 10, Signal{Valid: true, N: 10}},
		{"99999999999999999999999999", 1, Signal{Valid: true, N: 1}},
		{strings.Repeat("9", 100), 10, Signal{}},
	} {
		if got := ParseSignal(c.in, c.max); got != c.want {
			t.Errorf("ParseSignal(%q, %d) = %+v, want %+v", c.in, c.max, got, c.want)
		}
	}
}

// TestParseHoneypot: spaces are empty; a long value is cut to valid UTF-8.
func TestParseHoneypot(t *testing.T) {
	if got := ParseHoneypot("  \t"); got != "" {
		t.Errorf("blank honeypot kept as %q", got)
	}
	long := ParseHoneypot(strings.Repeat("é", MaxHoneypot))
	if len(long) > MaxHoneypot || !utf8.ValidString(long) || long == "" {
		t.Errorf("long honeypot kept as %d bytes, valid %v", len(long), utf8.ValidString(long))
	}
	if got := ParseHoneypot("a\xffb"); !utf8.ValidString(got) || got == "" {
		t.Errorf("invalid UTF-8 kept as %q", got)
	}
}
