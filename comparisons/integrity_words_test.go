package comparisons

import (
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestIntegrityParagraphSaysWhoWasCounted: the Analysis page's methods text
// reads "Of 7 participants, 0 were excluded … 7 were analysed" and then
// counts the flags over everyone who started, finished or not
// (docs/statistics.md#integrity-methods). The second count says so, or a
// reader of the paper sees "3 of 12 participants" disagree with the 7.
func TestIntegrityParagraphSaysWhoWasCounted(t *testing.T) {
	p := integrityParagraph(domain.DefaultJudgementSettings(), 12, 3, map[string]int{"webdriver": 3}, "")
	if !strings.Contains(p, "3 of the 12 participants who started (finished or not) were flagged for review (webdriver 3)") {
		t.Errorf("the flag count does not say whom it counts:\n%s", p)
	}
}
