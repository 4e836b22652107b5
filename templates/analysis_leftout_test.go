package templates

import (
	"bytes"
	"context"
	"html"
	"strings"
	"testing"
)

// TestAnalysisLeftOutSaysZScoresOnly: on a judgement study's Analysis page
// (docs/statistics.md#judgement-by-condition) a participant with every
// rating equal stays in the means on the scale; the list that names them
// says they are left out of the analysis or of its z-scores, not simply
// "left out".
func TestAnalysisLeftOutSaysZScoresOnly(t *testing.T) {
	v := AnalysisView{StudyID: 5, Kind: "judgement", Summary: []string{"7 participants in the export"},
		Excluded: []ExcludedView{{ID: "p008", Reason: "all 4 ratings equal: counted on the scale, no z-scores"}}}
	var b bytes.Buffer
	if err := Analysis(v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	if !strings.Contains(page, "<summary>Participants left out of the analysis or of its z-scores (1)</summary>") {
		t.Errorf("the list of participants left out is headed otherwise:\n%s", page)
	}
}
