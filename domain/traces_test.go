package domain

import (
	"strings"
	"testing"
)

func TestParseAnswerTrace(t *testing.T) {
	if tr, err := ParseAnswerTrace("", "", ""); err != nil || tr.Set {
		t.Fatalf("no JavaScript: %+v, %v; want no trace and no error", tr, err)
	}
	tr, err := ParseAnswerTrace("2", "1500", "830")
	if err != nil || tr != (AnswerTrace{Set: true, Changes: 2, HiddenMS: 1500, FirstInputMS: 830}) {
		t.Fatalf("got %+v, %v", tr, err)
	}
	for _, c := range []struct{ changes, hidden, first, field string }{
		{"-1", "0", "0", "answer_changes"},
		{"1001", "0", "0", "answer_changes"},
		{"1", "x", "0", "hidden_ms"},
		{"1", "86400001", "0", "hidden_ms"},
		{"1", "0", "", "first_input_ms"},
		{"1", "0", "12345678901", "first_input_ms"},
	} {
		_, err := ParseAnswerTrace(c.changes, c.hidden, c.first)
		if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%v: error %v, want EINVALID naming %s", c, err, c.field)
		}
	}
}
