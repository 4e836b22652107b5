package domain

import (
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// RedactRun is the shortest run of a secret's characters that Redact
// blanks: a server may echo a key or token cut, quoted or wrapped, and 8
// characters of a random secret are already too many to show.
const RedactRun = 8

// Redacted replaces what Redact blanks.
const Redacted = "[redacted]"

// Redact blanks in s every run of RedactRun or more characters that also
// occurs in one of the secrets (an API key, the Prolific token), and a
// whole secret shorter than RedactRun. It is the one redactor for
// everything pragmalab shows or stores that came back from an outside
// service (docs/deploy.md#security).
func Redact(s string, secrets ...string) string {
	if s == "" {
		return s
	}
	keys := variants(secrets)
	if len(keys) == 0 {
		return s
	}
	// The secrets are looked for in t, s without its invisible characters
	// (a zero-width space inside a key hides nothing); at maps t's bytes
	// back to s's.
	t, at := visibleOnly(s)
	var hide []bool
	for _, key := range keys {
		run := min(RedactRun, len(key))
		for i := 0; i+run <= len(key); i++ {
			w := key[i : i+run]
			for off := 0; ; {
				j := strings.Index(t[off:], w)
				if j < 0 {
					break
				}
				if hide == nil {
					hide = make([]bool, len(s))
				}
				for k := at(off + j); k <= at(off+j+run-1); k++ {
					hide[k] = true
				}
				off += j + 1
			}
		}
	}
	if hide == nil {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !hide[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(Redacted)
		for i < len(s) && hide[i] {
			i++
		}
	}
	return strings.ToValidUTF8(b.String(), "")
}

// visibleOnly is s without its Invisible characters, and the map from a
// byte of that back to its byte in s.
func visibleOnly(s string) (string, func(int) int) {
	if strings.IndexFunc(s, Invisible) < 0 {
		return s, func(i int) int { return i }
	}
	var b strings.Builder
	var at []int
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !Invisible(r) {
			b.WriteString(s[i : i+w])
			for k := range w {
				at = append(at, i+k)
			}
		}
		i += w
	}
	return b.String(), func(i int) int { return at[i] }
}

// variants are the secrets and the forms a server may echo them in: their
// percent-encodings in a query and in a path, and reversed (shown under a
// right-to-left override, a reversed key would read in order).
func variants(secrets []string) []string {
	out := make([]string, 0, len(secrets))
	for _, k := range secrets {
		if k == "" {
			continue
		}
		out = append(out, k)
		for _, v := range []string{url.QueryEscape(k), url.PathEscape(k), reversed(k)} {
			if v != k {
				out = append(out, v)
			}
		}
	}
	return out
}

func reversed(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}
