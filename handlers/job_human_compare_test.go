package handlers

import (
	"strings"
	"testing"

	"pragmalab/analysis/modelhuman"
	"pragmalab/comparisons"
)

// TestNoVerdictOnTooFewHumans (docs/statistics.md#when-the-design-is-too-thin):
// a job tested against 2 humans shows no verdict on its page nor in the
// Analysis page's models, only why, however high ω is.
func TestNoVerdictOnTooFewHumans(t *testing.T) {
	r := &modelhuman.AltTestModel{WinningRate: 1, AdvantageProbability: 0.92, Humans: 2, Items: 30,
		Verdict: modelhuman.AltNA, VerdictReason: "n/a: 2 humans; the test needs 3"}
	c := &comparisons.JobHumanComparison{AltTest: &comparisons.JobAltTest{Epsilon: 0.2, Result: r, Humans: 2}}
	v := humanCompareView(c, "uniform", "/admin/studies/1/jobs/2")
	if v.Verdict != "No verdict at ε = 0.2 (n/a: 2 humans; the test needs 3): with fewer humans the test only asks which of them the model is closer to." || strings.Contains(v.Verdict, "passes") {
		t.Errorf("the job page's verdict: %q", v.Verdict)
	}
	rows := modelsView(1, []comparisons.ModelBesideHumans{{JobID: 2, Task: "expert", Epsilon: 0.2, Alt: r}})
	if len(rows) != 1 || rows[0].Passed != "n/a: 2 humans; the test needs 3" {
		t.Errorf("the Analysis page's row: %+v", rows)
	}
}
