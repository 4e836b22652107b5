package web

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestMaskStringShortAndLong checks the masks on strings at and around
// the shortest each can match, so the length test before the regular
// expressions never lets a token through.
func TestMaskStringShortAndLong(t *testing.T) {
	run := strings.Repeat("ABCDEFGH23", 4) // 40 characters of base32
	for _, c := range []struct{ in, want string }{
		{"/e/" + strings.Repeat("a", 16), "/e/{token}"},
		{"/e/" + strings.Repeat("a", 15), "/e/" + strings.Repeat("a", 15)},
		{"GET /x/" + strings.Repeat("Z9_-", 5) + "/done", "GET /x/{token}/done"},
		{run, "{token}"},
		{run[:39], run[:39]},
		{"session " + run + "2 ended", "session {token} ended"},
		{"/s/{study}/screen", "/s/{study}/screen"},
		{"POST", "POST"},
	} {
		if got := maskString(c.in, nil); got != c.want {
			t.Errorf("maskString(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := maskString("key sk-abcdefgh", []string{"sk-abcdefgh"}); strings.Contains(got, "abcdefgh") {
		t.Errorf("a short line kept a secret: %q", got)
	}
}

// BenchmarkMaskRequestLine is the masking of the line `serve -v` writes
// for every request.
func BenchmarkMaskRequestLine(b *testing.B) {
	log := slog.New(maskSecrets(slog.NewTextHandler(io.Discard, nil), func(string) string { return "" }, []string{"PROLIFIC_TOKEN"}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		log.LogAttrs(ctx, slog.LevelInfo, "http", slog.String("method", "POST"), slog.String("route", "/s/{study}/answer"),
			slog.Int("status", 303), slog.Int("bytes", 0), slog.Int64("ms", 3), slog.String("id", "host/abcdefghij-000123"))
	}
}
