package cli

import (
	"strings"
	"testing"

	"pragmalab/studies"
)

// TestCodebookLeftOutSaysZScoresOnly: a judgement study's participant who
// gave every item the same rating is counted on the scale and has no
// z-scores (docs/statistics.md#judgement-by-condition); the codebook's
// table of those left out says so in its heading, not "Left out of the
// analysis" above a row that says "counted on the scale".
func TestCodebookLeftOutSaysZScoresOnly(t *testing.T) {
	got := leftOutTable([]studies.Excluded{{ID: "p008", Reason: "all 4 ratings equal: counted on the scale, no z-scores"}})
	if !strings.HasPrefix(got, "Left out of the analysis, or of its z-scores only:\n") || !strings.Contains(got, "| p008 | all 4 ratings equal: counted on the scale, no z-scores |") {
		t.Errorf("the codebook's table:\n%s", got)
	}
	if leftOutTable(nil) != "" {
		t.Errorf("a table of nobody: %q", leftOutTable(nil))
	}
}
