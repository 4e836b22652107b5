// Package templates holds pragmalab's pages as templ components and the
// typed view data each page takes.
package templates

import (
	"strings"

	"pragmalab/domain"
	"pragmalab/i18n"
)

// catalogs holds the participant-facing messages, one catalog per language
// (i18n/catalogs/*.json); English is the fallback for a message missing in
// another language. Tests swap it for an incomplete set.
var catalogs = i18n.Default

// T returns the shared text for key in lang, falling back to English, then
// the key.
func T(lang, key string) string {
	if s, ok := catalogs.Text(lang, "shared."+key); ok {
		return s
	}
	return key
}

// Languages lists the languages participants can be addressed in: those
// with a message catalog, English first.
func Languages() []i18n.Language { return catalogs.Languages() }

// languageGaps is what a study's admin page says about its participant
// language: the catalog's note (who translated it) and the messages and
// expert guides its catalog lacks, which participants see in English.
type languageGaps struct {
	Lang, Name, Note string
	Missing, Guides  []string
}

func (g languageGaps) show() bool { return g.Note != "" || len(g.Missing) > 0 || len(g.Guides) > 0 }

func studyLanguageGaps(s *domain.Study) languageGaps {
	g := languageGaps{Lang: s.Lang, Name: catalogs.Name(s.Lang), Missing: catalogs.Missing(s.Lang)}
	for _, l := range catalogs.Languages() {
		if l.Code == s.Lang {
			g.Note = l.Note
		}
	}
	if s.Kind == domain.KindExpert {
		g.Guides = catalogs.MissingGuides(s.Lang)
	}
	return g
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// joinAnd joins words as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(w []string) string {
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}
