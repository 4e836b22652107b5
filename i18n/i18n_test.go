package i18n

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// The shipped catalogs load, and Italian and German have every message
// English has: participants of a study in either language never meet an
// English sentence.
func TestShippedCatalogsComplete(t *testing.T) {
	if got := Default.Codes(); !slices.Equal(got, []string{"en", "de", "it"}) {
		t.Fatalf("languages = %v, want en, de, it", got)
	}
	for _, lang := range []string{"it", "de"} {
		if m := Default.Missing(lang); len(m) > 0 {
			t.Errorf("%s.json lacks %d messages of en.json: %v", lang, len(m), m)
		}
	}
	if n := len(Default.byLang["en"].flat); n < 150 {
		t.Fatalf("en.json has %d messages; the participant pages use more", n)
	}
	if Default.Name("de") != "Deutsch" || Default.byLang["de"].Note == "" {
		t.Fatalf("de.json should be named Deutsch and say who translated it: %+v", Default.Languages())
	}
}

// Every message keeps English's placeholders in order, so fmt fills them
// alike; checked by Load, but said again here on the real files.
func TestShippedPlaceholders(t *testing.T) {
	en := Default.byLang["en"]
	for _, lang := range Default.Codes() {
		for k, v := range Default.byLang[lang].flat {
			if !slices.Equal(placeholders(v), placeholders(en.flat[k])) {
				t.Errorf("%s %s: placeholders %v, English %v", lang, k, placeholders(v), placeholders(en.flat[k]))
			}
		}
	}
}

const enJSON = `{"name": "English", "messages": {"shared": {"yes": "Yes", "no": "No"}, "crowd": {"screen_of": "Item %d of %d"}}, "guides": {"scalar": {"title": "Scalar items", "instructions": "Judge.", "examples": []}}}`

func TestLoadFallbackAndMissing(t *testing.T) {
	s, err := Load(fstest.MapFS{
		"en.json": {Data: []byte(enJSON)},
		"xx.json": {Data: []byte(`{"name": "Xish", "messages": {"shared": {"yes": "Ja"}}}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Text("xx", "shared.yes"); got != "Ja" {
		t.Errorf("own message: %q", got)
	}
	if got, ok := s.Text("xx", "shared.no"); !ok || got != "No" {
		t.Errorf("missing message should fall back to English: %q %v", got, ok)
	}
	if got := s.Missing("xx"); !slices.Equal(got, []string{"crowd.screen_of", "shared.no"}) {
		t.Errorf("Missing = %v", got)
	}
	if got := s.MissingGuides("xx"); !slices.Equal(got, []string{"scalar"}) {
		t.Errorf("MissingGuides = %v", got)
	}
	if _, ok := s.Text("xx", "shared.nothing"); ok {
		t.Error("a message no catalog has was found")
	}
}

func TestLoadRefusesBadCatalogs(t *testing.T) {
	for _, c := range []struct{ name, file, xx, want string }{
		{"unknown message", "xx.json", `{"name": "X", "messages": {"shared": {"yess": "Ja"}}}`, `unknown message "shared.yess"`},
		{"unknown section", "xx.json", `{"name": "X", "messages": {"crow": {"screen_of": "%d %d"}}}`, `unknown message "crow.screen_of"`},
		{"placeholder lost", "xx.json", `{"name": "X", "messages": {"crowd": {"screen_of": "Item %d"}}}`, `has the placeholders %d where English has %d %d`},
		{"placeholder changed", "xx.json", `{"name": "X", "messages": {"crowd": {"screen_of": "Item %s von %d"}}}`, `placeholders %s %d`},
		{"placeholder added", "xx.json", `{"name": "X", "messages": {"shared": {"yes": "Ja %d"}}}`, `where English has none`},
		{"empty message", "xx.json", `{"name": "X", "messages": {"shared": {"yes": " "}}}`, `"shared.yes" is empty`},
		{"no name", "xx.json", `{"messages": {}}`, `"name"`},
		{"unknown field", "xx.json", `{"name": "X", "mesages": {}}`, `unknown field "mesages"`},
		{"bad JSON", "xx.json", `{"name": "X",`, `xx.json`},
		{"bad file name", "Deutsch.json", `{"name": "X"}`, `language code`},
		{"unknown guide", "xx.json", `{"name": "X", "guides": {"scalr": {"title": "t"}}}`, `unknown item type "scalr"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(fstest.MapFS{"en.json": {Data: []byte(enJSON)}, c.file: {Data: []byte(c.xx)}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %s", err, c.want)
			}
		})
	}
	if _, err := Load(fstest.MapFS{"it.json": {Data: []byte(`{"name": "Italiano"}`)}}); err == nil || !strings.Contains(err.Error(), "en.json") {
		t.Fatalf("no reference catalog: %v", err)
	}
}
