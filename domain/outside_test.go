package domain

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestCleanOutside: credentials are blanked by value and by shape, control
// characters made visible, and ordinary text and ids left alone.
func TestCleanOutside(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Authorization: Bearer sk-proj-Q7b2Xk9LmN4pR8sT1vW3", "Authorization: Bearer [redacted]"},
		{`{"api_key": "abcd1234efgh"}`, `{"api_key": "[redacted]"}`},
		{"key sk-ant-api03-abcdefghijklmnopqrst was refused", "key [redacted] was refused"},
		{"hf_abcdefghijklmnopqrstu", "[redacted]"},
		{"red \x1b[31m text\x00\x07", `red \x1b[31m text\x00\a`},
		{"line one\nline\ttwo\r\n", "line one\nline\ttwo\r\n"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"context length 4096 tokens exceeded for model x001|prior|TF", "context length 4096 tokens exceeded for model x001|prior|TF"},
		{"a secret value here: OPAQUE-SECRET-9", "a secret value here: [redacted]"},
	} {
		if got := CleanOutside(c.in, "OPAQUE-SECRET-9"); got != c.want {
			t.Errorf("CleanOutside(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	raw := json.RawMessage(`{"p_true":0.15600000000000003,"samples":["A"]}`)
	if got := CleanOutsideJSON(raw); string(got) != string(raw) {
		t.Errorf("a clean answer changed: %s", got)
	}
	got := CleanOutsideJSON(json.RawMessage(`{"p_true":0.1,"reply":"x\u001b[2J"}`))
	if string(got) != `{"p_true":0.1,"reply":"x\\x1b[2J"}` {
		t.Errorf("cleaned answer %s", got)
	}
}

// TestCleanOutsideDisguisedKeys (docs/deploy.md#no-secret-in-a-log-or-page):
// a key without a provider prefix, behind a non-breaking
// space, percent-encoded in a query or glued to a word, is blanked; the
// job's own key wherever and however it appears, the others by their
// shape when the key is not known (a file read offline).
func TestCleanOutsideDisguisedKeys(t *testing.T) {
	const key = "Q7b2Xk9LmN4pR8sT1vW3yZ6aHj0c"
	for _, c := range []struct {
		in      string
		secrets []string
	}{
		{"Incorrect API key provided: " + key + ".", []string{key}},
		{"invalid key (" + key[:14] + "…" + key[20:] + ")", []string{key}},
		{"Authorization: Bearer\u00a0" + key + " refused", nil},
		{"header was Bearer\u00a0" + key + " refused", nil},
		{"sent Bearer\u2009\u200b" + key, nil},
		{"GET /v1/models?key=Bearer%20" + key + "&x=1: 401", nil},
		{"GET /v1/models?api_key=%22" + key + "%22: 401", nil},
		{"bad credential token_" + key + " for org", nil},
		{"bad credential x_token-" + key, nil},
		{"url /v1?key=" + url.QueryEscape("+/"+key), []string{"+/" + key}},
	} {
		got := CleanOutside(c.in, c.secrets...)
		for i := 0; i+RedactRun <= len(key); i++ {
			if strings.Contains(got, key[i:i+RedactRun]) {
				t.Errorf("CleanOutside(%q) = %q: %q of the key shows", c.in, got, key[i:i+RedactRun])
				break
			}
		}
		if !strings.Contains(got, Redacted) {
			t.Errorf("CleanOutside(%q) = %q: nothing marked redacted", c.in, got)
		}
	}
	// A key of many reserved characters, echoed percent-encoded, keeps no
	// 8-character run of itself: its encoded forms are blanked too.
	const odd = "Ab+9/Cd+8/Ef+7/Gh+6=Jk"
	for _, enc := range []string{url.QueryEscape(odd), url.PathEscape(odd)} {
		if got := CleanOutside("rejected credential "+enc+" here", odd); strings.Contains(got, enc[:RedactRun]) || !strings.Contains(got, Redacted) {
			t.Errorf("the encoded key %q shows: %q", enc, got)
		}
	}
	// Words that only look like a label keep their values.
	for _, s := range []string{
		"token limit exceeded: 4096 tokens requested",
		"missing key: prompt",
		"max_tokens=512 is too large",
		"token_limit_exceeded_for_this_model",
	} {
		if got := CleanOutside(s); got != s {
			t.Errorf("CleanOutside(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestCleanOutsideShowsInvisible (docs/deploy.md#no-secret-in-a-log-or-page): in an error every
// bidi control, zero-width and other invisible character is written as
// <U+XXXX>; in an answer only those that reorder text (and tag
// characters), the joiners and marks a script needs kept; a key split by
// zero-width spaces or reversed is still blanked.
func TestCleanOutsideShowsInvisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\u202eb\u2066c\u2069d\u200be\ufeff", "a<U+202E>b<U+2066>c<U+2069>d<U+200B>e<U+FEFF>"},
		{"\u3164\u115f\u1160\uffa0\u00ad\U000E0041", "<U+3164><U+115F><U+1160><U+FFA0><U+00AD><U+E0041>"},
		{"plain text, é, 日本", "plain text, é, 日本"},
	} {
		if got := CleanOutside(c.in); got != c.want {
			t.Errorf("CleanOutside(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	const key = "Q7b2Xk9LmN4pR8sT1vW3yZ6aHj0c"
	split := ""
	for i, r := range key {
		if i > 0 && i%3 == 0 {
			split += "\u200b"
		}
		split += string(r)
	}
	for _, in := range []string{"key " + split + " refused", "key \u202e" + reversed(key) + "\u202c refused"} {
		got := CleanOutside(in, key)
		if !strings.Contains(got, Redacted) || strings.Contains(got, "Q7b") || strings.Contains(got, "0jH") {
			t.Errorf("CleanOutside(%q) = %q: the key shows", in, got)
		}
	}
	got := CleanOutsideJSON(json.RawMessage(`{"samples":["می‌خواهم 👩‍💻 \u202eevil\u202c"]}`))
	if string(got) != `{"samples":["می‌خواهم 👩‍💻 <U+202E>evil<U+202C>"]}` {
		t.Errorf("cleaned answer %s", got)
	}
}
