package report

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestEchoMeasuredInDocs: the rates the methods paragraph quotes are the
// rows of docs/statistics.md#llm-echo-measured.
func TestEchoMeasuredInDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/statistics.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, c := range []struct {
		rule  string
		rates []EchoMeasured
	}{{"reference", EchoMeasuredReference}, {"pool", EchoMeasuredPool}} {
		for _, r := range c.rates {
			ff := fmt.Sprintf("%.1f–%.1f %%", r.FalseFlagLo, r.FalseFlagHi)
			if r.FalseFlagLo == r.FalseFlagHi {
				ff = fmt.Sprintf("%.1f %%", r.FalseFlagLo)
			}
			row := fmt.Sprintf("| %s | %s | %.1f %% [", c.rule, num(r.ModelNoise), r.Detection)
			i := strings.Index(doc, row)
			if i < 0 {
				t.Errorf("no row %q in docs/statistics.md", row)
				continue
			}
			line := doc[i : i+strings.Index(doc[i:], "\n")]
			if !strings.Contains(line, "| "+ff+" |") {
				t.Errorf("docs row %q: honest raters flagged is not %s", line, ff)
			}
		}
	}
}
