package contextsurvey

import (
	"os"
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
	"pragmalab/domain"
	"testing"
)

// TestContextKrippendorff checks α on context answers against
// analysis/testdata/krippendorff_ref.py (Python 3.11, pairs enumerated) run
// on the same answers as a 3 annotators × 20 items matrix, "insufficient"
// coded 6 so it is the highest category.
func TestContextKrippendorff(t *testing.T) {
	f, err := os.Open("testdata/context_alpha.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	as, err := ReadContextAnswers(f)
	if err != nil {
		t.Fatal(err)
	}
	c := ComputeContextWith(as, analysis.Bootstrap{Replicates: 300, Seed: 1})
	for _, tc := range []struct {
		name             string
		s                *ContextStats
		nominal, ordinal float64
	}{
		{"overall", c.Overall, 0.34072022160664817, 0.14927496898263026},
		{"S1", c.Surveys["S1"], 0.2592592592592593, 0.04776674937965253},
	} {
		if !atest.Near(tc.s.KrippendorffAlphaNominal, tc.nominal) || !atest.Near(tc.s.KrippendorffAlphaOrdinal, tc.ordinal) {
			t.Errorf("%s: α nominal %s ordinal %s, want %v %v", tc.name, atest.FmtPtr(tc.s.KrippendorffAlphaNominal), atest.FmtPtr(tc.s.KrippendorffAlphaOrdinal), tc.nominal, tc.ordinal)
		}
		for _, ci := range []*analysis.CI{tc.s.KrippendorffAlphaNominalCI, tc.s.KrippendorffAlphaOrdinalCI, tc.s.FullConsensusCI} {
			if ci == nil || ci[0] > ci[1] {
				t.Errorf("%s: interval %v", tc.name, ci)
			}
		}
		if v := *tc.s.KrippendorffAlphaNominal; v < tc.s.KrippendorffAlphaNominalCI[0] || v > tc.s.KrippendorffAlphaNominalCI[1] {
			t.Errorf("%s: α %v outside its interval %v", tc.name, v, tc.s.KrippendorffAlphaNominalCI)
		}
	}
	// Kind × period: both kinds in both periods, plus each kind pooled.
	if len(c.ByKindPeriod) != 2 || len(c.ByKindPeriod["Impl"]) != 3 || c.ByKindPeriod["Impl"][domain.TypeAll].Items != 10 {
		t.Errorf("by kind × period = %v", c.ByKindPeriod)
	}
	if got := c.ByKindPeriod["Ppp"]["1946–1972"].Items; got != 6 {
		t.Errorf("Ppp 1946–1972 items = %d, want 6", got)
	}
}
