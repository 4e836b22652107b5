package domain

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// autofillNames are the words browsers' autofill and password managers
// match in a field's name to fill it (Chromium's autofill regexes name,
// e-mail, phone, address, company, login, password …): no drawn name may
// hold one, so nothing fills the decoy for a person.
var autofillNames = regexp.MustCompile(`(?i)name|mail|phone|tel|addr|street|city|zip|post|country|company|org|user|login|pass|card|cc|url|web|site|home|search|code|otp`)

// TestDrawTraps: a participant's traps are the same at every draw, differ
// from another participant's and with another key, and their names are
// opaque: never a fixed field's name, never a word autofill matches.
func TestDrawTraps(t *testing.T) {
	key := []byte("server key")
	a, a2, b := DrawTraps(key, "token-a"), DrawTraps(key, "token-a"), DrawTraps(key, "token-b")
	if a != a2 {
		t.Fatalf("two draws for one participant differ: %+v %+v", a, a2)
	}
	if a.Rating == b.Rating || a.Decoy.Name == b.Decoy.Name {
		t.Errorf("two participants share field names: %+v %+v", a, b)
	}
	if c := DrawTraps([]byte("another key"), "token-a"); c.Rating == a.Rating {
		t.Errorf("the key does not change the draw: %+v", c)
	}
	names := map[string]bool{}
	places, labels, wordings, hides := map[int]bool{}, map[int]bool{}, map[int]bool{}, map[string]bool{}
	for i := range 2000 {
		tr := DrawTraps(key, fmt.Sprint("session-", i))
		for _, n := range []string{tr.Rating, tr.Decoy.Name} {
			if !regexp.MustCompile(`^[a-z][a-z0-9]{5}$`).MatchString(n) || slices.Contains(reservedFields, n) || autofillNames.MatchString(n) {
				t.Fatalf("drawn name %q", n)
			}
			names[n] = true
		}
		if tr.Rating == tr.Decoy.Name {
			t.Fatalf("the rating and the decoy share the name %q", tr.Rating)
		}
		for _, h := range []Hidden{tr.Decoy.Hide, tr.Instruction} {
			if strings.Contains(h.Style, "display:none") || strings.Contains(h.Style, "visibility") || !strings.Contains(h.Style, "position:") {
				t.Fatalf("hiding %+v", h)
			}
			hides[h.Tag+h.Style] = true
		}
		places[tr.Decoy.Place], labels[tr.Decoy.Label], wordings[tr.Wording] = true, true, true
	}
	if len(names) < 3990 {
		t.Errorf("2000 participants drew %d distinct names of 4000", len(names))
	}
	if len(places) != FormPlaces || len(labels) != DecoyLabels || len(wordings) != InstructionWordings || len(hides) < 30 {
		t.Errorf("draws cover %d places, %d labels, %d wordings, %d ways of hiding", len(places), len(labels), len(wordings), len(hides))
	}
}

// TestJustifies: the study's count of justification screens, drawn per
// participant among the ordinary screens without the hidden instruction
// (while enough are left), none when off.
func TestJustifies(t *testing.T) {
	key := []byte("k")
	sets := map[string]bool{}
	for s := range 50 {
		tr := DrawTraps(key, fmt.Sprint("p", s))
		for _, n := range []int{1, 2, 3, 6, 10, 30} {
			for count := 0; count <= MaxJustifications; count++ {
				for _, points := range []int{0, 7} {
					var got []int
					for j := range n {
						if tr.Justifies(j, n, count, points) {
							got = append(got, j)
							if points > 0 && n-InstructionScreens(n) >= count && tr.InstructionPoint(j, n, points) != 0 {
								t.Errorf("n %d: justification on the instructed screen %d", n, j)
							}
						}
					}
					if len(got) != min(count, n) {
						t.Fatalf("n %d, count %d: justification screens %v", n, count, got)
					}
					if n == 30 && count == 2 && points == 7 {
						sets[fmt.Sprint(got)] = true
					}
				}
			}
		}
	}
	if len(sets) < 45 {
		t.Errorf("50 participants drew %d different pairs of justification screens", len(sets))
	}
}
