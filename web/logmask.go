package web

import (
	"context"
	"log/slog"
	"os"
	"regexp"
	"strings"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/scoring"
)

// maskingHandler is the last line between a secret and the log: every
// string of every record (message, attributes, errors, groups) has the
// server's secrets redacted (any 8-character run of the Prolific token or
// an API key, domain.Redact), the token of a participant's path replaced
// by its route parameter, and any run that looks like one of pragmalab's
// random tokens (invitation links, session ids) masked — at every level.
// The code logs route patterns, never paths; this handler catches what a
// wrapped error or a library's message might still carry.
type maskingHandler struct {
	next    slog.Handler
	secrets func() []string
}

// tokenPath is a participant path with its credential: /e/TOKEN, /c/…,
// /x/…, /p/… (invitations and pilot links).
var tokenPath = regexp.MustCompile(`/([ecxp])/[A-Za-z0-9_-]{16,}`)

// tokenRun is a run shaped like store.RandomToken (base32, 52 characters)
// or longer.
var tokenRun = regexp.MustCompile(`[A-Z2-7]{40,}`)

// maskSecrets wraps h; secretEnv names the variables whose values are
// redacted (read through getenv at each record, so a key set later is
// covered too).
func maskSecrets(h slog.Handler, getenv func(string) string, secretEnv []string) slog.Handler {
	return &maskingHandler{next: h, secrets: func() []string {
		out := make([]string, 0, len(secretEnv))
		for _, n := range secretEnv {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				out = append(out, v)
			}
		}
		return out
	}}
}

// secretEnvNames are the variables that hold secrets: the Prolific token,
// the API key variables scoring accepts, and those of the process's
// environment set aside for pragmalab's keys (PRAGMALAB_KEY_…).
func secretEnvNames() []string {
	names := append([]string{prolific.TokenEnv}, scoring.KeyEnvNames...)
	for _, kv := range os.Environ() {
		if k, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, scoring.KeyEnvPrefix) {
			names = append(names, k)
		}
	}
	return names
}

// The shortest strings the token masks can match: a slash, the area's
// letter, a slash and 16 characters; 40 characters.
const minTokenPath, minTokenRun = 19, 40

// maskString applies the masks to one string. The regular expressions run
// only on a string long enough to hold what they match: most of a log
// line's values (a method, a route pattern, a request id) are not, and
// with `serve -v` every request writes a line.
func maskString(s string, secrets []string) string {
	s = domain.Redact(s, secrets...)
	if len(s) >= minTokenPath && strings.IndexByte(s, '/') >= 0 {
		s = tokenPath.ReplaceAllString(s, "/$1/{token}")
	}
	if len(s) >= minTokenRun {
		s = tokenRun.ReplaceAllString(s, "{token}")
	}
	return s
}

func (m *maskingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return m.next.Enabled(ctx, l)
}

func (m *maskingHandler) Handle(ctx context.Context, r slog.Record) error {
	secrets := m.secrets()
	out := slog.NewRecord(r.Time, r.Level, maskString(r.Message, secrets), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(maskAttr(a, secrets))
		return true
	})
	return m.next.Handle(ctx, out)
}

func (m *maskingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	secrets := m.secrets()
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = maskAttr(a, secrets)
	}
	return &maskingHandler{next: m.next.WithAttrs(masked), secrets: m.secrets}
}

func (m *maskingHandler) WithGroup(name string) slog.Handler {
	return &maskingHandler{next: m.next.WithGroup(name), secrets: m.secrets}
}

// maskAttr masks an attribute's value; any value that is not a number, a
// time or a boolean is logged as its masked text.
func maskAttr(a slog.Attr, secrets []string) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		g := v.Group()
		masked := make([]any, len(g))
		for i, x := range g {
			masked[i] = maskAttr(x, secrets)
		}
		return slog.Group(a.Key, masked...)
	case slog.KindString, slog.KindAny:
		return slog.String(a.Key, maskString(v.String(), secrets))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
