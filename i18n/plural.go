package i18n

import "fmt"

// A counted noun ("3 minutes") is two messages, key_one and key_other,
// each with one %d: the form for a count the language calls singular and
// the form for every other count (docs/studies.md#languages). English,
// German and Italian say "1 minute", "1 Minute", "1 minuto" and the plural
// for every other number, 0 included; French and Portuguese count 0 as
// singular too (the CLDR's cardinal rules for whole numbers).
const (
	One   = "_one"
	Other = "_other"
)

// zeroIsOne lists the languages whose singular covers 0 as well as 1.
var zeroIsOne = map[string]bool{"fr": true, "pt": true}

// PluralSuffix is the suffix (One or Other) of a counted message for n in
// lang.
func PluralSuffix(lang string, n int) string {
	if n == 1 || n == 0 && zeroIsOne[lang] {
		return One
	}
	return Other
}

// Count returns counted message key ("section.name", without suffix) for
// n in lang with n filled in: "1 minute", "2 minutes". The form falls back
// to English's as every message does.
func (s *Set) Count(lang, key string, n int) string {
	t, _ := s.Text(lang, key+PluralSuffix(lang, n))
	return fmt.Sprintf(t, n)
}
