package domain

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Text from outside (docs/deploy.md#no-secret-in-a-log-or-page): what a
// model server or an offline runner's batch file sends back — errors,
// generations, samples, reasons — is stored and shown only after
// CleanOutside. A file read offline carries no key pragmalab knows, so
// credentials are also blanked by their shape.

// Around a credential a server or a URL may put any space (a
// non-breaking one too), an invisible format character, or the same
// percent-, plus- or JSON-escaped; a credential's own characters may be
// percent-encoded.
const (
	credSep  = `(?:[\s\p{Z}\p{Cf}]|%[0-9A-Fa-f]{2}|\+|\\u[0-9A-Fa-f]{4}|\\[nrt])`
	credChar = `(?:[A-Za-z0-9._~+/=-]|%[0-9A-Fa-f]{2})`
)

// credentialShapes are the ways a server echoes a credential: an
// Authorization value, a key=value or "key": "value" pair, a label glued
// to the value (token_…), and the prefixes of the common providers' API
// keys. The first group of each match is kept; loose (the label key or
// token) holds only a value that looks random (looksRandom), so "missing
// key: prompt" is left alone.
var credentialShapes = []struct {
	re    *regexp.Regexp
	loose func(label string) bool
}{
	{re: regexp.MustCompile(`(?i)\b((?:bearer|basic)` + credSep + `+)` + credChar + `{6,}`)},
	{re: regexp.MustCompile(`(?i)(["']?\b(api[_-]?key|x-api-key|access[_-]?token|refresh[_-]?token|auth[_-]?token|id[_-]?token|client[_-]?secret|secret|password|passwd|authorization|key|token)["']?` +
		credSep + `*[:=]` + credSep + `*["']?(?:(?:bearer|basic)` + credSep + `+)?)[^\s\p{Z}"',;}&]{4,}`),
		loose: func(label string) bool { l := strings.ToLower(label); return l == "key" || l == "token" }},
	{re: regexp.MustCompile(`(?i)((token|key|secret|bearer|apikey)[_-])` + credChar + `{16,}`),
		loose: func(string) bool { return true }},
	{re: regexp.MustCompile(`()(?:\b(?:sk|rk|pk)-[A-Za-z0-9_-]{16,}|\b(?:hf|gsk|r8)_[A-Za-z0-9]{16,}|\bAIza[0-9A-Za-z_-]{30,}|\bxai-[A-Za-z0-9]{16,})`)},
}

// looksRandom reports whether v could be a secret rather than a word: 8
// characters or more with both a letter and a digit.
func looksRandom(v string) bool {
	return len(v) >= 8 && strings.ContainsAny(v, "0123456789") &&
		strings.IndexFunc(v, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' }) >= 0
}

// blankShapes blanks every credential shape in s.
func blankShapes(s string) string {
	for _, c := range credentialShapes {
		s = c.re.ReplaceAllStringFunc(s, func(m string) string {
			g := c.re.FindStringSubmatch(m)
			if c.loose != nil && c.loose(g[2]) && !looksRandom(m[len(g[1]):]) {
				return m
			}
			return g[1] + Redacted
		})
	}
	return s
}

// CleanOutside is s fit to store and show: every run of the secrets
// blanked (Redact), credentials blanked by their shape, invalid UTF-8
// replaced by U+FFFD and every control character but tab and line breaks
// written as a visible escape (ESC as \x1b), so nothing stored can send
// an escape sequence to a terminal or a NUL to a CSV reader. It is the one
// cleaner of outside text: the scoring client's errors (with the job's
// key), an offline runner's lines (with the key of the job's variable
// when it is set) and the store (with none, the shapes only) all use it.
//
// Invisible characters (bidi controls, zero-width characters, Hangul
// fillers…) are written as <U+XXXX>: a right-to-left override would make
// a reversed text read in order, a zero-width space hide a difference.
func CleanOutside(s string, secrets ...string) string {
	return cleanOutside(s, Invisible, secrets)
}

// cleanOutside is CleanOutside with show the invisible characters written
// as <U+XXXX>.
func cleanOutside(s string, show func(rune) bool, secrets []string) string {
	if s == "" {
		return s
	}
	s = blankShapes(Redact(s, secrets...))
	return ShowInvisible(visibleControls(strings.ToValidUTF8(s, "\uFFFD")), show)
}

// visibleControls writes C0 (but tab, LF, CR), DEL and C1 as Go escapes.
func visibleControls(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return isControl(r) && r != '\t' && r != '\n' && r != '\r' }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) && r != '\t' && r != '\n' && r != '\r' {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CleanOutsideJSON is raw (a stored answer) with CleanOutside applied to
// every string in it, keys included, but for the invisible characters that
// a script needs (the joiners of Persian, Hindi or an emoji, the zero-width
// space of Thai, the bidi marks of Arabic): in an answer, only those that
// reorder the text around them (bidi embeddings, overrides and isolates)
// and the tag characters are written as <U+XXXX>. raw comes back
// unchanged, byte for byte, when no string needed it, and as it was when
// it is not JSON.
func CleanOutsideJSON(raw json.RawMessage, secrets ...string) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return raw
	}
	changed := false
	v = cleanValue(v, &changed, secrets)
	if !changed {
		return raw
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return raw
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func cleanValue(v any, changed *bool, secrets []string) any {
	switch x := v.(type) {
	case string:
		c := cleanOutside(x, reorders, secrets)
		if c != x {
			*changed = true
		}
		return c
	case []any:
		for i := range x {
			x[i] = cleanValue(x[i], changed, secrets)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ck := cleanOutside(k, reorders, secrets)
			if ck != k {
				*changed = true
			}
			out[ck] = cleanValue(e, changed, secrets)
		}
		return out
	}
	return v
}
