package domain

import (
	"encoding/json"
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
