package cli

import (
	"regexp"
	"strings"
	"testing"
)

func TestBenchCoverage(t *testing.T) {
	out, errs, code := analyzeCLI(t, "", "bench", "coverage", "--cells", "explanations-small", "--replicates", "30", "--bootstrap", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// One line per interval: the method in use, coverage ± Monte-Carlo error, verdict.
	line := regexp.MustCompile(`explanations all/all/acceptable\s+Wilson\s+(\d\.\d{3})±(\d\.\d{3})[ *]\s+(ok|approximate)\s+0\.6\d\d`)
	m := line.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "30 data sets, 20 bootstrap replicates each") {
		t.Fatalf("output lacks the acceptable share's coverage line:\n%s", out)
	}
	// Clustered Wilson on independent passages covers; 30 data sets leave
	// a Monte-Carlo error of about 0.04.
	if m[1] < "0.800" {
		t.Errorf("coverage of the acceptable share %s, want about 0.95", m[1])
	}
	if !strings.Contains(errs, "explanations-small: 30/30 data sets") {
		t.Errorf("no progress on stderr: %s", errs)
	}
}

func TestBenchCoverageUsage(t *testing.T) {
	if _, errs, code := analyzeCLI(t, "", "bench", "coverage", "--cells", "nope"); code != 2 || !strings.Contains(errs, "crowd-small") {
		t.Errorf("unknown cell: exit %d %s", code, errs)
	}
	if _, errs, code := analyzeCLI(t, "", "bench", "coverage", "--bootstrap", "5"); code != 2 || !strings.Contains(errs, "--bootstrap") {
		t.Errorf("--bootstrap 5: exit %d %s", code, errs)
	}
}
