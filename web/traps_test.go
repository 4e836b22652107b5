package web

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"
)

// trapWords are the words no participant page may carry (docs/studies.md#integrity-signals);
// handlers' TestParticipantPagesNameNoTrap holds the same list for the
// crowd's pages.
var trapWords = regexp.MustCompile(`(?i)honeypot|website|machine[-_ ]?check|machine[-_ ]?instruction|decoy|\btraps?\b|class="hp"|leave this field`)

// decoyRE finds the hidden text field of a page: inside an aria-hidden,
// inert element, with its label.
var decoyRE = regexp.MustCompile(`aria-hidden="true" inert><label>[^<]+<input type="text" name="([a-z0-9]+)"`)

// TestExpertPagesNameNoTrap: the experts' item, context and explanation
// screens name no trap, carry the expert's own hidden field, and the
// server reads it back under that expert's name (docs/studies.md#integrity-signals).
func TestExpertPagesNameNoTrap(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	check := func(what, body string) string {
		t.Helper()
		if m := trapWords.FindString(body); m != "" {
			t.Errorf("%s names a trap: %q", what, m)
		}
		d := decoyRE.FindStringSubmatch(body)
		if d == nil {
			t.Fatalf("%s has no hidden field:\n%s", what, short(body))
		}
		return d[1]
	}

	_, experts := expertStudy(t, e, admin)
	as, _ := e.db.AnnotatorAssignments(ctx, experts[0].ID)
	screens, _ := e.db.Screens(ctx, as[0].ID)
	base := fmt.Sprintf("/e/%s/b/%d", experts[0].Token, as[0].ID)
	ada := e.newClient()
	name := check("an expert's item", ada.get(base+"/1?intro=seen").mustStatus(t, http.StatusOK).Body)
	as1, _ := e.db.AnnotatorAssignments(ctx, experts[1].ID)
	other := check("another expert's item", e.newClient().get(fmt.Sprintf("/e/%s/b/%d/1?intro=seen", experts[1].Token, as1[0].ID)).Body)
	if name == other {
		t.Errorf("two experts' hidden fields share the name %q", name)
	}
	form := answerFor(screens[0].Item)
	form.Set(name, "filled by a program")
	form.Set("position", "1")
	ada.post(base+"/1", form).mustStatus(t, http.StatusSeeOther)
	var kept string
	if err := e.db.Writer().QueryRowContext(ctx, `SELECT honeypot FROM judgements WHERE item_id = ?`, screens[0].Item.ID).Scan(&kept); err != nil || kept != "filled by a program" {
		t.Errorf("the expert's hidden field was read back as %q (%v)", kept, err)
	}

	token, aid, _, _, _ := contextSetup(t, e, admin)
	check("a context question", e.newClient().get(fmt.Sprintf("/c/%s/s/%d/1", token, aid)).mustStatus(t, http.StatusOK).Body)
}
