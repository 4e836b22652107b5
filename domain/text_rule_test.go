package domain

import (
	"strings"
	"testing"
	"unicode/utf16"
)

func TestCheckTextOneRule(t *testing.T) {
	cases := []struct {
		name, in string
		max      int
		multi    bool
		want     string // "" = valid
	}{
		{"plain", "Pilot study — è", 200, OneLine, ""},
		{"invalid UTF-8 named as such", "ok \xff\xfe", 2000, MultiLine, "comments is not valid UTF-8 text (byte 4 is 0xFF)"},
		{"ESC in a name", "study\x1b[2J", 200, OneLine, "character 6 is the control character U+001B (ESC); a one-line field may hold none"},
		{"newline in a name", "a\nb", 200, OneLine, "U+000A (line feed)"},
		{"NUL in prose", "a\x00b", 2000, MultiLine, "U+0000 (NUL); only line breaks and tabs"},
		{"C1 control", "a\u0085b", 200, OneLine, "U+0085"},
		{"DEL", "a\x7fb", 200, OneLine, "U+007F (DEL)"},
		{"lines and tabs in prose", "one\r\ntwo\tthree", 2000, MultiLine, ""},
		{"too long", strings.Repeat("é", 201), 200, OneLine, "at most 200 characters (this one has 201)"},
	}
	for _, c := range cases {
		err := CheckText("comments", c.in, c.max, c.multi)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(ErrorMessage(err), c.want) || ErrorCode(err) != EINVALID):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		"Pilot è":       "Pilot è",
		"two\nlines":    `two\nlines`,
		"tab\there":     `tab\there`,
		"\x1b[31mred":   `\x1b[31mred`,
		"bad \xff byte": `bad \xff byte`,
	} {
		if got := TerminalSafe(in); got != want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

func utf16le(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func TestEncodingNamed(t *testing.T) {
	csv := "id,type,utterance\nx1,scalar,Some cats purr.\n"
	be := []byte{}
	for _, u := range utf16.Encode([]rune(csv)) {
		be = append(be, byte(u>>8), byte(u))
	}
	long := strings.Repeat("è", 3000) // cut mid-character by a 4096-byte sample
	for _, c := range []struct {
		name     string
		head     []byte
		complete bool
		want     string
	}{
		{"UTF-8", []byte(csv), true, ""},
		{"UTF-8 with BOM", append([]byte("\xef\xbb\xbf"), csv...), true, ""},
		{"UTF-8 cut mid-character", []byte(long)[:4095], false, ""},
		{"UTF-16 LE with BOM", utf16le(csv, true), true, "UTF-16 (little-endian)"},
		{"UTF-16 LE without BOM", utf16le(csv, false), true, "UTF-16 (little-endian)"},
		{"UTF-16 BE without BOM", be, true, "UTF-16 (big-endian)"},
		{"UTF-32", []byte{0xFF, 0xFE, 0, 0, 'i', 0, 0, 0}, true, "UTF-32 (little-endian)"},
		{"Latin-1", []byte("id,utterance\nx1,perch\xe9 no\n"), true, "Windows-1252 or Latin-1"},
		// Too short, or of an odd length, to be UTF-16: a stray NUL is
		// left to the field checks, which name its line.
		{"one NUL", []byte("\x00"), true, ""},
		{"NUL and a digit", []byte("\x000"), true, ""},
		{"NUL, digit, NUL", []byte("\x000\x00"), true, ""},
	} {
		got, _ := Encoding(c.head, c.complete)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	err := CheckEncoding("file", utf16le(csv, true), true, false)
	if err == nil || !strings.HasPrefix(ErrorMessage(err), "line 1: the file is UTF-16 (little-endian), not UTF-8: save it as UTF-8") {
		t.Errorf("message %v", err)
	}
}

// TestQuestionnaireCommentMessages: an invalid-UTF-8 comment is told it is
// not UTF-8 (it used to be told "at most 2000 characters"), ESC in the
// languages field is refused, and line breaks in a comment are kept.
func TestQuestionnaireCommentMessages(t *testing.T) {
	on := QuestionnaireSettings{Languages: true, Comments: true}
	q := &Questionnaire{Comments: "fine\xc3("}
	if err := q.Validate(on); err == nil || !strings.Contains(ErrorMessage(err), "comments is not valid UTF-8") {
		t.Errorf("invalid UTF-8 comment: %v", err)
	}
	q = &Questionnaire{NativeLanguages: "it\x1b[0m"}
	if err := q.Validate(on); err == nil || !strings.Contains(ErrorMessage(err), "native languages: character 3 is the control character U+001B (ESC)") {
		t.Errorf("ESC in the languages: %v", err)
	}
	q = &Questionnaire{Comments: "line one\r\nline two"}
	if err := q.Validate(on); err != nil {
		t.Errorf("a two-line comment: %v", err)
	}
}

// TestFormatCharacters (docs/deploy.md#one-rule-for-text): bidi and other format
// characters are refused in names and usernames; item texts and prose keep
// only those a language needs (ZWJ, ZWNJ); command-line tables show them
// escaped.
func TestFormatCharacters(t *testing.T) {
	for _, c := range []struct {
		name, in string
		multi    bool
		want     string
	}{
		{"RLO in a name", "Evil\u202Egnp.exe", OneLine, "character 5 is the format character U+202E (RIGHT-TO-LEFT OVERRIDE); a one-line field may hold none"},
		{"isolate in a name", "a\u2066b", OneLine, "U+2066 (LEFT-TO-RIGHT ISOLATE)"},
		{"ZWJ in a name", "ab\u200Dc", OneLine, "character 3 is the format character U+200D (ZERO WIDTH JOINER)"},
		{"line separator in a name", "a\u2028b", OneLine, "U+2028 (LINE SEPARATOR)"},
		{"BOM in a name", "\uFEFFname", OneLine, "U+FEFF (BYTE ORDER MARK)"},
		{"ZWNJ in Persian prose", "می\u200Cخواهم", MultiLine, ""},
		{"ZWJ in prose", "क्\u200Dष", MultiLine, ""},
		{"PDI in prose", "a\u2069b", MultiLine, "U+2069 (POP DIRECTIONAL ISOLATE); only ZWJ and ZWNJ"},
		{"paragraph separator in prose", "a\u2029b", MultiLine, "U+2029 (PARAGRAPH SEPARATOR)"},
	} {
		err := CheckText("name", c.in, 200, c.multi)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(ErrorMessage(err), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if err := CheckControls([]NamedValue{{"id", "x\uFEFF1"}}, nil); err == nil || !strings.Contains(err.Error(), "U+FEFF") {
		t.Errorf("an item id with a BOM: %v", err)
	}
	if err := CheckControls(nil, []NamedValue{{"utterance", "Some\u202E students"}}); err == nil || !strings.Contains(err.Error(), "utterance") || !strings.Contains(err.Error(), "U+202E") {
		t.Errorf("an utterance with RLO: %v", err)
	}
	if err := CheckControls(nil, []NamedValue{{"utterance", "می\u200Cخواهم क्\u200Dष"}}); err != nil {
		t.Errorf("an utterance with ZWNJ and ZWJ: %v", err)
	}
	for in, want := range map[string]string{
		"Evil\u202Egnp": `Evil\u202egnp`,
		"a\u200Db":      `a\u200db`,
		"\uFEFFx\u2028": `\ufeffx\u2028`,
	} {
		if got := TerminalSafe(in); got != want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", in, got, want)
		}
	}
}
