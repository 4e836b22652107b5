package i18n

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// TestCountedNouns: the consent's minutes and pages, and the context
// survey's sentences, take the singular for 1 and the plural otherwise in
// every shipped language: never "etwa 1 Minuten" (#45 §5).
func TestCountedNouns(t *testing.T) {
	for _, c := range []struct {
		lang, key string
		n         int
		want      string
	}{
		{"en", "crowd.minutes", 1, "1 minute"},
		{"en", "crowd.minutes", 2, "2 minutes"},
		{"en", "crowd.minutes", 0, "0 minutes"},
		{"de", "crowd.minutes", 1, "1 Minute"},
		{"de", "crowd.minutes", 12, "12 Minuten"},
		{"it", "crowd.minutes", 1, "1 minuto"},
		{"it", "crowd.minutes", 5, "5 minuti"},
		{"en", "impaqts.ctx_sentences", 1, "1 preceding sentence"},
		{"de", "impaqts.ctx_sentences", 1, "1 vorangehendem Satz"},
		{"it", "impaqts.ctx_sentences", 3, "3 frasi precedenti"},
	} {
		if got := Default.Count(c.lang, c.key, c.n); got != c.want {
			t.Errorf("%s %s %d: %q, want %q", c.lang, c.key, c.n, got, c.want)
		}
	}
	// Every counted message of every catalog has one %d in both forms.
	for _, lang := range Default.Codes() {
		for k, v := range Default.byLang[lang].flat {
			base, one := strings.CutSuffix(k, One)
			if one && (strings.Count(v, "%d") != 1 || strings.Count(Default.byLang[lang].flat[base+Other], "%d") != 1) {
				t.Errorf("%s %s = %q: a counted form has exactly one %%d", lang, k, v)
			}
		}
	}
	if PluralSuffix("fr", 0) != One || PluralSuffix("de", 0) != Other {
		t.Error("0 is singular in French and plural in German")
	}
}

// TestCountedNounNeedsBothForms: a catalog giving one form of a counted
// noun without the other is refused by name.
func TestCountedNounNeedsBothForms(t *testing.T) {
	en := `{"name": "English", "messages": {"crowd": {"minutes_one": "%d minute", "minutes_other": "%d minutes"}}}`
	_, err := Load(fstest.MapFS{
		"en.json": {Data: []byte(en)},
		"xx.json": {Data: []byte(`{"name": "X", "messages": {"crowd": {"minutes_one": "%d Minute"}}}`)},
	})
	if err == nil || !strings.Contains(err.Error(), `counted message "crowd.minutes_one" has no "crowd.minutes_other"`) {
		t.Fatalf("one form alone: %v", err)
	}
}

// TestCrowdWordsAreLay: the crowd pages, read by lay participants, speak
// of questions and pages, never of the researcher's "items" and
// "screens" (#45 §5), in every shipped language.
func TestCrowdWordsAreLay(t *testing.T) {
	jargon := regexp.MustCompile(`(?i)\b(items?|übungsitems?|screens?|bildschirm\w*|schermat\w*)\b`)
	for _, lang := range Default.Codes() {
		for k, v := range Default.byLang[lang].flat {
			if strings.HasPrefix(k, "crowd.") && jargon.MatchString(v) {
				t.Errorf("%s %s says %q: %q", lang, k, jargon.FindString(v), v)
			}
		}
	}
}
