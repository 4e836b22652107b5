// Package i18n holds the participant-facing messages of every study kind,
// one message catalog per language (catalogs/<lang>.json, embedded), loaded
// and checked once when the program starts. English is the reference: a
// catalog may leave a message out (the page then shows the English one, and
// the study's admin page lists what is missing), but it may not name a
// message English lacks nor change a message's placeholders.
// docs/studies.md, "Languages", says how to add a language.
package i18n

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Reference is the language every other catalog is checked against and
// falls back to.
const Reference = "en"

//go:embed catalogs/*.json
var embedded embed.FS

// Default is the set of catalogs shipped in catalogs/. A bad embedded
// catalog is a programming error caught by the package's tests, so
// loading it panics rather than serving pages with broken texts.
var Default = mustLoad()

func mustLoad() *Set {
	sub, err := fs.Sub(embedded, "catalogs")
	if err != nil {
		panic(err)
	}
	s, err := Load(sub)
	if err != nil {
		panic(err)
	}
	return s
}

// Example is a worked example shown to experts before the first item of a
// type.
type Example struct {
	Context             string `json:"context,omitempty"`
	Utterance           string `json:"utterance"`
	Implicature         string `json:"implicature"`
	Cancellation        string `json:"cancellation"`
	Plausible           string `json:"plausible"`
	CancellationCorrect string `json:"cancellation_correct"`
	Why                 string `json:"why"`
}

// Guide is the instructions and worked examples for one item type of an
// expert study.
type Guide struct {
	Title        string    `json:"title"`
	Instructions string    `json:"instructions"`
	Examples     []Example `json:"examples"`
}

// Catalog is one language's file: its name in that language, an optional
// note (who translated it), the messages by section ("shared", "crowd",
// "impaqts", "expert") and the expert guides by item type.
type Catalog struct {
	Lang     string                       `json:"-"`
	Name     string                       `json:"name"`
	Note     string                       `json:"note,omitempty"`
	Messages map[string]map[string]string `json:"messages"`
	Guides   map[string]Guide             `json:"guides,omitempty"`

	flat map[string]string // "section.key" → text
}

// Language is a language with a catalog, for the admin pages' choices.
type Language struct{ Code, Name, Note string }

// Set is the loaded catalogs.
type Set struct {
	byLang map[string]*Catalog
	langs  []string // sorted, Reference first
}

var langCode = regexp.MustCompile(`^[a-z]{2,3}$`)

// Load reads every <lang>.json at the root of fsys and checks them against
// the Reference catalog, which must be there. The error names the file and
// the message.
func Load(fsys fs.FS) (*Set, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	s := &Set{byLang: map[string]*Catalog{}}
	for _, n := range names {
		c, err := readCatalog(fsys, n)
		if err != nil {
			return nil, err
		}
		s.byLang[c.Lang] = c
		s.langs = append(s.langs, c.Lang)
	}
	ref, ok := s.byLang[Reference]
	if !ok {
		return nil, fmt.Errorf("message catalogs: %s.json (the reference language) is missing", Reference)
	}
	sort.Slice(s.langs, func(i, j int) bool {
		a, b := s.langs[i], s.langs[j]
		if (a == Reference) != (b == Reference) {
			return a == Reference
		}
		return a < b
	})
	for _, l := range s.langs {
		if err := check(s.byLang[l], ref); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func readCatalog(fsys fs.FS, name string) (*Catalog, error) {
	lang := strings.TrimSuffix(path.Base(name), ".json")
	if !langCode.MatchString(lang) {
		return nil, fmt.Errorf("message catalog %s: the file name must be a language code of 2 or 3 lower-case letters, e.g. de.json", name)
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	c := &Catalog{Lang: lang}
	if err := dec.Decode(c); err != nil {
		return nil, fmt.Errorf("message catalog %s: %w", name, err)
	}
	if strings.TrimSpace(c.Name) == "" {
		return nil, fmt.Errorf("message catalog %s: \"name\" (the language's own name, e.g. Deutsch) is empty", name)
	}
	c.flat = map[string]string{}
	for sec, msgs := range c.Messages {
		for k, v := range msgs {
			c.flat[sec+"."+k] = v
		}
	}
	return c, nil
}

// placeholder matches a fmt verb such as %d or %s (and %% for a percent
// sign), the placeholders a message may carry.
var placeholder = regexp.MustCompile(`%[-+# 0]*[0-9]*(?:\.[0-9]+)?[a-zA-Z%]`)

func placeholders(s string) []string { return placeholder.FindAllString(s, -1) }

// check refuses messages and guides English lacks, empty messages, and
// messages whose placeholders differ from English's (same verbs, same
// order: the code fills them in that order).
func check(c, ref *Catalog) error {
	keys := make([]string, 0, len(c.flat))
	for k := range c.flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want, ok := ref.flat[k]
		if !ok {
			return fmt.Errorf("message catalog %s.json: unknown message %q (English has no such message; check its spelling)", c.Lang, k)
		}
		got := c.flat[k]
		if strings.TrimSpace(got) == "" {
			return fmt.Errorf("message catalog %s.json: message %q is empty (leave it out to show the English text)", c.Lang, k)
		}
		if g, w := placeholders(got), placeholders(want); !slices.Equal(g, w) {
			return fmt.Errorf("message catalog %s.json: message %q has the placeholders %s where English has %s", c.Lang, k, verbs(g), verbs(w))
		}
	}
	// A counted noun has both its forms, so no count falls back to
	// another language's word (plural.go).
	for _, k := range keys {
		if base, ok := strings.CutSuffix(k, One); ok {
			if _, has := c.flat[base+Other]; !has {
				return fmt.Errorf("message catalog %s.json: counted message %q has no %q: give both forms", c.Lang, k, base+Other)
			}
		}
	}
	for t := range c.Guides {
		if _, ok := ref.Guides[t]; !ok {
			return fmt.Errorf("message catalog %s.json: guide for unknown item type %q", c.Lang, t)
		}
	}
	return nil
}

func verbs(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, " ")
}

// Has reports whether lang has a catalog.
func (s *Set) Has(lang string) bool { _, ok := s.byLang[lang]; return ok }

// Languages lists the languages with a catalog, English first.
func (s *Set) Languages() []Language {
	out := make([]Language, 0, len(s.langs))
	for _, l := range s.langs {
		c := s.byLang[l]
		out = append(out, Language{Code: l, Name: c.Name, Note: c.Note})
	}
	return out
}

// Codes lists the language codes with a catalog, English first.
func (s *Set) Codes() []string { return slices.Clone(s.langs) }

// Text returns message key ("section.name") in lang, falling back to
// English; ok is false when neither has it.
func (s *Set) Text(lang, key string) (string, bool) {
	if c, ok := s.byLang[lang]; ok {
		if t, ok := c.flat[key]; ok {
			return t, true
		}
	}
	t, ok := s.byLang[Reference].flat[key]
	return t, ok
}

// Guide returns the expert guide of itemType in lang, falling back to
// English.
func (s *Set) Guide(lang, itemType string) Guide {
	if c, ok := s.byLang[lang]; ok {
		if g, ok := c.Guides[itemType]; ok {
			return g
		}
	}
	return s.byLang[Reference].Guides[itemType]
}

// Missing lists, sorted, the messages English has and lang's catalog
// lacks: the ones its participants see in English. A language without a
// catalog misses them all.
func (s *Set) Missing(lang string) []string {
	c := s.byLang[lang]
	var out []string
	for k := range s.byLang[Reference].flat {
		if c == nil || c.flat[k] == "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// MissingGuides lists, sorted, the item types whose expert guide lang's
// catalog lacks (shown in English).
func (s *Set) MissingGuides(lang string) []string {
	c := s.byLang[lang]
	var out []string
	for t := range s.byLang[Reference].Guides {
		if c == nil {
			out = append(out, t)
			continue
		}
		if _, ok := c.Guides[t]; !ok {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// Name is lang's own name ("Deutsch"), or lang itself without a catalog.
func (s *Set) Name(lang string) string {
	if c, ok := s.byLang[lang]; ok {
		return c.Name
	}
	return lang
}

// Has reports whether lang has a shipped catalog.
func Has(lang string) bool { return Default.Has(lang) }

// Codes lists the shipped catalogs' language codes, English first.
func Codes() []string { return Default.Codes() }

// Count is Default.Count: counted message key for n in lang.
func Count(lang, key string, n int) string { return Default.Count(lang, key, n) }
