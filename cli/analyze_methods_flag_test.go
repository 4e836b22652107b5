package cli

import (
	"strings"
	"testing"
)

// TestAnalyzeMethodsWithoutItsValue: --methods takes text or markdown
// (docs/cli.md#analyze); a researcher who types "--methods --lang de" is
// told that --methods wants a value, not that "de" is an unexpected
// argument.
func TestAnalyzeMethodsWithoutItsValue(t *testing.T) {
	_, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", conditionsFixture, "--methods", "--lang", "de")
	if code != 2 || !strings.Contains(errOut, `--methods "--lang": want text or markdown`) || strings.Contains(errOut, "unexpected argument") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	out, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", conditionsFixture, "--methods", "text", "--lang", "de")
	if code != 0 || !strings.Contains(out, "Bedingung") {
		t.Errorf("--methods text --lang de: exit %d, %q\n%s", code, errOut, out)
	}
}
