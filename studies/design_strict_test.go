package studies

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pragmalab/domain"
)

// strictDesign is a valid explain design, as JSON text.
func strictDesign(t *testing.T) string {
	t.Helper()
	d := map[string]any{
		"format": DesignFormat, "kind": domain.KindExplain, "name": "strict", "lang": "en",
		"settings": map[string]any{"per_expert": 2},
		"passages": []any{
			map[string]any{"id": "p1", "kind": "Impl", "text": "One. Two.", "explanation": "e"},
			map[string]any{"id": "p2", "kind": "Ppp", "text": "Three. Four.", "explanation": "f"},
		},
		"outputs": []any{map[string]any{"item_id": "p1", "strategy": "zero-shot", "model": "m", "output": "o"}},
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := ParseDesign(b); err != nil {
		t.Fatalf("the base design is refused: %v", err)
	}
	return string(b)
}

// TestDesignRefusesWhatJSONLetsThrough (docs/formats.md#design-file):
// trailing data, a second object, a duplicate key at any
// depth and invalid UTF-8 are refused, naming what and where; a UTF-8
// byte-order mark is read past and UTF-16 named; an invalid passage or
// output is named with its field, never as "Internal error.".
func TestDesignRefusesWhatJSONLetsThrough(t *testing.T) {
	base := strictDesign(t)
	swap := func(old, new string) string {
		t.Helper()
		s := strings.Replace(base, old, new, 1)
		if s == base {
			t.Fatalf("the design has no %q", old)
		}
		return s
	}
	utf16 := func(s string, bom bool) string {
		var b []byte
		if bom {
			b = append(b, 0xFF, 0xFE)
		}
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return string(b)
	}
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"trailing data", base + "\nx", []string{"after the design's object", "line"}},
		{"a second object", base + "\n" + base, []string{"after the design's object", "a second"}},
		{"a trailing comma", base + ",", []string{"after the design's object"}},
		{"a duplicate key", swap(`"name": "strict",`, `"name": "strict", "name": "other",`), []string{`duplicate key "name"`, fmt.Sprintf("line %d", strings.Count(base[:strings.Index(base, `"name"`)], "\n")+1)}},
		{"a key repeated in another case", swap(`"name": "strict",`, `"name": "strict", "Name": "other",`), []string{`duplicate key "Name"`, `as "name" before`}},
		{"a nested duplicate key", swap(`"per_expert": 2`, `"per_expert": 2, "per_expert": 3`), []string{`duplicate key "settings.per_expert"`}},
		{"a duplicate key in a passage", swap(`"id": "p2",`, `"id": "p2", "id": "p1",`), []string{`duplicate key "passages[1].id"`}},
		{"invalid UTF-8", swap(`"strict"`, "\"str\xffict\""), []string{"not valid UTF-8", "line", "byte"}},
		{"UTF-16 with a mark", utf16(base, true), []string{"UTF-16"}},
		{"UTF-16 without one", utf16(base, false), []string{"UTF-16"}},
		{"an invalid passage", swap(`"kind": "Ppp"`, `"kind": "Xyz"`), []string{`passages[1] (p2)`, `"kind"`, "Xyz"}},
		{"an invalid output", swap(`"model": "m"`, `"model": "all"`), []string{`outputs[0]`, `"model"`, "reserved"}},
	} {
		_, _, _, _, err := ParseDesign([]byte(c.data))
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		msg := domain.ErrorMessage(err)
		if domain.ErrorCode(err) != domain.EINVALID || strings.Contains(msg, "Internal error") {
			t.Errorf("%s: %s %q", c.name, domain.ErrorCode(err), msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", c.name, msg, w)
			}
		}
	}
	if _, _, _, _, err := ParseDesign([]byte("\xef\xbb\xbf" + base)); err != nil {
		t.Errorf("a design after a UTF-8 byte-order mark: %v", err)
	}
	// Whatever it refuses, the import creates nothing.
	v := New(mustOpenDB(t), nil)
	if _, _, err := v.CreateStudyFromDesign(context.Background(), []byte(base+base), ""); err == nil {
		t.Error("CreateStudyFromDesign accepted two objects")
	}
	if ss, err := v.db.Studies(context.Background()); err != nil || len(ss) != 0 {
		t.Errorf("%d studies made from refused designs (%v)", len(ss), err)
	}
}
