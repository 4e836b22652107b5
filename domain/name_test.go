package domain

import (
	"strings"
	"testing"
)

// blankNames show as nothing, or as a space, where a study's or an
// expert's name is listed.
var blankNames = []string{
	"\u3164",           // HANGUL FILLER
	"\u2800",           // BRAILLE PATTERN BLANK
	"\u115f", "\u1160", // HANGUL CHOSEONG and JUNGSEONG FILLER
	"\uffa0",             // HALFWIDTH HANGUL FILLER
	"\u3164\u3164\u2800", // several
	"\u00a0\u3000",       // spaces only, none of them ASCII
	"\u200b",             // a format character only
	"\u034f\ufe0f",       // a combining grapheme joiner and a variation selector
}

// TestNamesMustShow (docs/deploy.md#one-rule-for-text): a
// name of blank or invisible letters only, or with a filler or blank
// inside, is refused naming the character; ordinary names of any script
// pass.
func TestNamesMustShow(t *testing.T) {
	for _, n := range append(blankNames, "Alice\u3164", "Study\u2800 2", "\uffa0Bob") {
		err := CheckStudyName(n)
		if err == nil {
			t.Errorf("study name %q accepted", n)
			continue
		}
		if msg := ErrorMessage(err); !strings.Contains(msg, "name") || !(strings.Contains(msg, "U+") || strings.Contains(msg, "nothing visible")) {
			t.Errorf("study name %q: unclear message %q", n, msg)
		}
		if err := CheckName("the expert's name", n, 100); err == nil {
			t.Errorf("expert name %q accepted", n)
		}
	}
	for _, n := range []string{"Pilot 2", "Étude — été", "한국어 연구", "日本語", "Ελληνικά", "❤️ study", "नमस्ते"} {
		if err := CheckStudyName(n); err != nil {
			t.Errorf("study name %q refused: %v", n, err)
		}
	}
}
