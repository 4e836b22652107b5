package domain

import (
	"fmt"
	"strings"
	"unicode"
)

// Invisible reports whether r shows nothing where it stands, or changes
// how the text around it is ordered or joined: a format character (Cf:
// the bidi embeddings, overrides and isolates U+202A–U+202E and
// U+2066–U+2069, the marks U+200E, U+200F and U+061C, the zero-width
// space, joiners and no-break U+200B–U+200D, U+2060, U+FEFF, the soft
// hyphen, the tag characters…), another default-ignorable code point
// (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the combining
// grapheme joiner…) or a variation selector.
func Invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

// reorders reports whether r can change the order in which the text
// around it is shown: a bidi embedding, override or isolate (the marks
// U+200E, U+200F and U+061C only set the direction of neutral characters
// beside them, and right-to-left text needs them), or a tag character,
// which shows nothing and can carry a hidden text.
func reorders(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r >= 0xE0000 && r <= 0xE007F
}

// ShowInvisible writes every rune of s for which hide is true as <U+XXXX>,
// so that nothing hidden is stored or shown.
func ShowInvisible(s string, hide func(rune) bool) string {
	if strings.IndexFunc(s, hide) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hide(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
