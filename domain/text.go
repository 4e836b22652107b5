package domain

import "fmt"

// checkControl refuses C0 control characters (U+0000–U+001F) in a field:
// NUL and the like corrupt exports and confuse the programs that read
// them. A text (multi-line prose) may hold tabs and line breaks (LF, CR);
// a name or id may hold none. The error names the character's position in
// the field (1-based, counted in characters) so it can be found.
func checkControl(field, s string, text bool) error {
	pos := 0
	for _, r := range s {
		pos++
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
