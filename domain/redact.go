package domain

import (
	"net/url"
	"strings"
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
	var hide []bool
	for _, key := range variants(secrets) {
		if key == "" {
			continue
		}
		if len(key) < RedactRun {
			s = strings.ReplaceAll(s, key, Redacted)
			continue
		}
		for i := 0; i+RedactRun <= len(key); i++ {
			w := key[i : i+RedactRun]
			for off := 0; ; {
				j := strings.Index(s[off:], w)
				if j < 0 {
					break
				}
				if hide == nil {
					hide = make([]bool, len(s))
				}
				for k := off + j; k < off+j+RedactRun; k++ {
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

// variants are the secrets and the forms a server may echo them in: their
// percent-encodings in a query and in a path.
func variants(secrets []string) []string {
	out := make([]string, 0, len(secrets))
	for _, k := range secrets {
		if k == "" {
			continue
		}
		out = append(out, k)
		for _, v := range []string{url.QueryEscape(k), url.PathEscape(k)} {
			if v != k {
				out = append(out, v)
			}
		}
	}
	return out
}
