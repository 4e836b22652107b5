package templates

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"pragmalab/domain"
	"pragmalab/i18n"
)

// withCatalogs swaps the package's catalogs for the test.
func withCatalogs(t *testing.T, s *i18n.Set) {
	t.Helper()
	old := catalogs
	catalogs = s
	t.Cleanup(func() { catalogs = old })
}

// A catalog missing messages: the participant page shows the English text
// for those, the catalog's own for the rest, and the study's admin page
// lists exactly the missing ones.
func TestIncompleteCatalogFallsBackAndIsListed(t *testing.T) {
	en, err := os.ReadFile("../i18n/catalogs/en.json")
	if err != nil {
		t.Fatal(err)
	}
	set, err := i18n.Load(fstest.MapFS{
		"en.json": {Data: en},
		"de.json": {Data: []byte(`{"name": "Deutsch (Teil)", "messages": {"shared": {"study_paused_title": "Diese Studie ist pausiert"}}}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	withCatalogs(t, set)

	var page bytes.Buffer
	if err := StudyUnavailable("de", domain.StatePaused, true).Render(context.Background(), &page); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{
		`lang="de"`,
		"<h1>Diese Studie ist pausiert</h1>",       // the catalog's own
		"The researcher has paused the study",      // English fallback
		"If you came from Prolific, please return", // English fallback
	} {
		if !strings.Contains(html, want) {
			t.Errorf("participant page lacks %q:\n%s", want, html)
		}
	}
	if got := CT("de", "title"); got != "How likely is it?" {
		t.Errorf("crowd fallback: %q", got)
	}

	var admin bytes.Buffer
	if err := ManageStudy(&domain.Study{ID: 1, Kind: domain.KindCrowd, Name: "S", Lang: "de"}).Render(context.Background(), &admin); err != nil {
		t.Fatal(err)
	}
	ah := admin.String()
	missing := set.Missing("de")
	if len(missing) == 0 || strings.Contains(strings.Join(missing, " "), "shared.study_paused_title") {
		t.Fatalf("Missing = %v", missing)
	}
	for _, k := range []string{"shared.study_paused_body", "crowd.title", "impaqts.ctx_title"} {
		if !strings.Contains(ah, "<code>"+k+"</code>") {
			t.Errorf("admin listing lacks %s", k)
		}
	}
	if strings.Contains(ah, "<code>shared.study_paused_title</code>") {
		t.Error("admin listing names a message the catalog has")
	}
	if !strings.Contains(ah, itoa(len(missing))+" messages of the participant pages are missing from <code>i18n/catalogs/de.json</code>") {
		t.Errorf("admin page lacks the count of %d missing messages:\n%s", len(missing), ah)
	}
}

// A complete catalog without a note adds nothing to the admin page; the
// shipped German one says it is the project's translation.
func TestStudyLanguagePanel(t *testing.T) {
	render := func(s *domain.Study) string {
		var b bytes.Buffer
		if err := ManageStudy(s).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if h := render(&domain.Study{ID: 1, Kind: domain.KindCrowd, Name: "S", Lang: "it"}); strings.Contains(h, "study-language") {
		t.Error("a complete Italian catalog should add no language panel to a crowd study")
	}
	h := render(&domain.Study{ID: 1, Kind: domain.KindCrowd, Name: "S", Lang: "de"})
	if !strings.Contains(h, "Participant language: Deutsch") || !strings.Contains(h, "not reviewed by a native speaker") || strings.Contains(h, "catalog-missing") {
		t.Errorf("German study panel:\n%s", h)
	}
	if h := render(&domain.Study{ID: 1, Kind: domain.KindExpert, Name: "S", Lang: "it"}); !strings.Contains(h, "discourse, natural, scalar and synthetic items are shown in English") {
		t.Errorf("Italian expert study should say the guides are English:\n%s", h)
	}
}
