package templates

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"pragmalab/domain"
)

// autofillLabel holds the words, in the catalogs' languages, that browsers'
// autofill and password managers match in a field's label to fill it.
var autofillLabel = regexp.MustCompile(`(?i)name|nome|mail|phone|telef|tel\b|addr|adress|indirizz|street|straße|strasse|\bvia\b|city|stadt|città|zip|postal|\bplz\b|\bcap\b|country|land\b|paese|company|firma|azienda|organi[sz]|user|benutzer|utente|login|pass|kennwort|card|karte|carta|url|web|site|sito|home|code|codice|otp|pin\b|birth|geburt|nascita|search`)

// TestDecoyLabelsAndMarkup: every label of the hidden field, in every
// catalog language, is there and holds no word autofill matches; the
// field is out of the accessibility tree (aria-hidden, inert), out of the
// tab order, and carries what browsers and password managers respect
// (docs/studies.md#integrity-signals). The instruction's wordings are
// there in every language, each with the point's placeholder.
func TestDecoyLabelsAndMarkup(t *testing.T) {
	for _, l := range Languages() {
		for i := 1; i <= domain.DecoyLabels; i++ {
			s := CT(l.Code, fmt.Sprintf("decoy_label_%d", i))
			if s == "" || autofillLabel.MatchString(s) {
				t.Errorf("%s decoy label %d: %q", l.Code, i, s)
			}
		}
		for i := 1; i <= domain.InstructionWordings; i++ {
			if s := CT(l.Code, fmt.Sprintf("machine_instruction_%d", i)); strings.Count(s, "%d") != 1 {
				t.Errorf("%s instruction %d: %q", l.Code, i, s)
			}
		}
	}
	tr := domain.DrawTraps([]byte("k"), "session")
	var b bytes.Buffer
	if err := Decoy("en", tr.Decoy, -1).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{`aria-hidden="true" inert>`, `name="` + tr.Decoy.Name + `"`, `type="text"`, `tabindex="-1"`,
		`autocomplete="off"`, `data-1p-ignore`, `data-lpignore="true"`, `data-bwignore`, `style="` + tr.Decoy.Hide.Style} {
		if !strings.Contains(html, want) {
			t.Errorf("the hidden field lacks %s: %s", want, html)
		}
	}
}
