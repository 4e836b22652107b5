package domain

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkControl refuses C0 control characters (U+0000–U+001F) in a field:
// NUL and the like corrupt exports and confuse the programs that read
// them. A text (multi-line prose) may hold tabs and line breaks (LF, CR);
// a name or id may hold none. The error names the character's position in
// the field (1-based, counted in characters) so it can be found.
func checkControl(field, s string, text bool) error {
	pos := 0
	for _, r := range s {
		pos++
		if isFormat(r) && !(text && languageFormat(r)) {
			what := "a name or id may hold none"
			if text {
				what = "only ZWJ and ZWNJ, which some scripts need, are allowed in a text"
			}
			return FieldErrorf(field, "character %d is the format character %s; %s", pos, formatName(r), what)
		}
		if r >= 0x20 {
			continue
		}
		if text && (r == '\t' || r == '\n' || r == '\r') {
			continue
		}
		what := "a name or id may hold none"
		if text {
			what = "only tabs and line breaks are allowed in a text"
		}
		return FieldErrorf(field, "character %d is the control character %s; %s", pos, controlName(r), what)
	}
	return nil
}

// isFormat reports an invisible character that changes how text around it
// is shown: the Unicode format characters (Cf: the bidi embeddings,
// overrides, isolates and marks, the zero-width characters, the byte-order
// mark, the soft hyphen…) and the line and paragraph separators. A name
// holding one can show one thing and be another (docs/deploy.md#one-rule-for-text).
func isFormat(r rune) bool {
	return r == 0x2028 || r == 0x2029 || r >= 0xAD && unicode.Is(unicode.Cf, r)
}

// blankLetter reports a character that is no format character yet shows
// as nothing, or as a blank: the Hangul fillers (U+115F, U+1160, U+3164,
// U+FFA0) and the other default-ignorable code points that are letters or
// marks (the combining grapheme joiner, the Khmer inherent vowels…), and
// the Braille blank U+2800. A name of them looks empty, and one with them
// looks like another name (docs/studies.md#managing-studies).
func blankLetter(r rune) bool {
	return r == 0x2800 || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// CheckName checks a name as typed (trimmed): CheckText's one-line rule
// (no control, format or blank character), at most max characters, and at
// least one character that shows — not a space of any kind, nor an
// invisible character (docs/deploy.md#one-rule-for-text). label is the field as the form
// names it.
func CheckName(label, name string, max int) error {
	if err := CheckText(label, name, max, OneLine); err != nil {
		return err
	}
	if strings.IndexFunc(name, func(r rune) bool {
		return !unicode.IsSpace(r) && !unicode.Is(unicode.Zs, r) && !Invisible(r) && !blankLetter(r)
	}) < 0 {
		return Errorf(EINVALID, "%s has nothing visible: it is only spaces or invisible characters", label)
	}
	return nil
}

// languageFormat reports the format characters a text may need to be
// written right in its language: ZWNJ (Persian, the Indic scripts) and ZWJ
// (the Indic scripts, emoji sequences).
func languageFormat(r rune) bool { return r == 0x200C || r == 0x200D }

// formatName is how a format character is written in a message.
func formatName(r rune) string {
	if n, ok := formatNames[r]; ok {
		return fmt.Sprintf("U+%04X (%s)", r, n)
	}
	return fmt.Sprintf("U+%04X", r)
}

var formatNames = map[rune]string{
	0x00AD: "SOFT HYPHEN", 0x061C: "ARABIC LETTER MARK",
	0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
	0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
	0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR",
	0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE",
	0x2060: "WORD JOINER", 0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE",
	0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE", 0xFEFF: "BYTE ORDER MARK",
	0x115F: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER", 0x3164: "HANGUL FILLER",
	0xFFA0: "HALFWIDTH HANGUL FILLER", 0x2800: "BRAILLE PATTERN BLANK", 0x034F: "COMBINING GRAPHEME JOINER",
}

// controlName is how a control character is written in a message.
func controlName(r rune) string {
	switch r {
	case 0:
		return "U+0000 (NUL)"
	case '\t':
		return "U+0009 (tab)"
	case '\n':
		return "U+000A (line feed)"
	case '\r':
		return "U+000D (carriage return)"
	case 0x1b:
		return "U+001B (ESC)"
	case 0x7f:
		return "U+007F (DEL)"
	}
	return fmt.Sprintf("U+%04X", r)
}

// CheckControls runs checkControl over names (no control character) and
// texts (tabs and line breaks allowed), in order.
func CheckControls(names, texts []NamedValue) error {
	for _, f := range names {
		if err := checkControl(f.Name, f.V, false); err != nil {
			return err
		}
	}
	for _, f := range texts {
		if err := checkControl(f.Name, f.V, true); err != nil {
			return err
		}
	}
	return nil
}

// NamedValue is a field's name and value, for CheckControls.
type NamedValue struct{ Name, V string }

func FieldErrorf(field, format string, a ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// The one rule for text a person types or uploads (docs/deploy.md#security):
// valid UTF-8, no control character (C0, DEL, C1) but line breaks and tabs
// in a multi-line field, at most a number of characters; the message names
// the field. Every name, title, settings text, answer, comment and username
// passes CheckText on its way to the store.

// Text kinds for CheckText.
const (
	OneLine   = false // a name, a title, a username: no control character
	MultiLine = true  // prose: tabs and line breaks (LF, CR) allowed
)

// CheckText checks one field's text; label is the field as the form or
// file names it ("study name", "comments"). The error is EINVALID.
func CheckText(label, s string, max int, multiLine bool) error {
	if !utf8.ValidString(s) {
		i := 0
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return Errorf(EINVALID, "%s is not valid UTF-8 text (byte %d is 0x%02X); type it again, or save the file as UTF-8", label, i+1, s[i])
	}
	pos := 0
	for _, r := range s {
		pos++
		if isFormat(r) && !(multiLine && languageFormat(r)) {
			what := "a one-line field may hold none"
			if multiLine {
				what = "only ZWJ and ZWNJ, which some scripts need, are allowed"
			}
			return Errorf(EINVALID, "%s: character %d is the format character %s; %s", label, pos, formatName(r), what)
		}
		if !multiLine && blankLetter(r) {
			return Errorf(EINVALID, "%s: character %d is %s, which shows as nothing; a one-line field may hold none", label, pos, formatName(r))
		}
		if !isControl(r) || multiLine && (r == '\t' || r == '\n' || r == '\r') {
			continue
		}
		what := "a one-line field may hold none"
		if multiLine {
			what = "only line breaks and tabs are allowed"
		}
		return Errorf(EINVALID, "%s: character %d is the control character %s; %s", label, pos, controlName(r), what)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return Errorf(EINVALID, "%s must be at most %d characters (this one has %d)", label, max, n)
	}
	return nil
}

// isControl reports a control character: C0, DEL or C1.
func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// TerminalSafe is s as a terminal may print it in a table cell: control
// characters (ESC among them, so no escape sequence reaches the terminal;
// line breaks and tabs, which would break the table) and format characters
// (a bidi override would reorder the row) are written as Go escapes (\n,
// \x1b, \u202e), and invalid UTF-8 bytes as \xNN.
func TerminalSafe(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || isControl(r) || isFormat(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case isControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		case isFormat(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
