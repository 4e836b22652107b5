package comparisons

import (
	"strings"
	"testing"

	"pragmalab/analysis/modelhuman"
)

// The thin-design warning names both reasons: fewer than 3 humans, and
// humans with fewer than 30 items; a design of 3 humans with 30 items
// each has none.
func TestAltThin(t *testing.T) {
	rows := func(humans, items int) []modelhuman.AltLabel {
		var out []modelhuman.AltLabel
		for h := range humans {
			for i := range items {
				out = append(out, modelhuman.AltLabel{Who: string(rune('a' + h)), Item: string(rune('A' + i)), Label: "1"})
			}
		}
		return out
	}
	if n, thin := altThin(rows(3, 30)); n != 3 || len(thin) != 0 {
		t.Errorf("3 humans × 30 items: %d humans, thin %q; want 3 and none", n, thin)
	}
	n, thin := altThin(rows(2, 29))
	if n != 2 || len(thin) != 2 || !strings.Contains(thin[0], "only 2 humans") || !strings.Contains(thin[1], "2 of 2 humans answered fewer than 30") {
		t.Errorf("2 humans × 29 items: %d humans, thin %q", n, thin)
	}
}
