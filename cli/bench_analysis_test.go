package cli

import (
	"regexp"
	"strings"
	"testing"
)

func TestBenchAnalysisSmall(t *testing.T) {
	out, errs, code := analyzeCLI(t, "", "bench", "analysis", "--items", "30", "--runs", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// One batch of 30 items in both conditions: 2 batches of 5 participants,
	// each rating 40 screens.
	if !strings.Contains(out, "crowd study of 30 items, 10 participants, 400 ratings") {
		t.Errorf("seeding:\n%s", out)
	}
	if !regexp.MustCompile(`run 1: one analysis [0-9.]+ s wall, [0-9.]+ s CPU; page \+ \d+ figures`).MatchString(out) ||
		!regexp.MustCompile(`median: .* ratio [0-9.]+ wall, [0-9.]+ CPU \(target < 2 in CPU time\)`).MatchString(out) {
		t.Errorf("output:\n%s", out)
	}
}

func TestBenchAnalysisUsage(t *testing.T) {
	if _, errs, code := analyzeCLI(t, "", "bench", "analysis", "--items", "10"); code != 2 || !strings.Contains(errs, "at least 30") {
		t.Errorf("too few items: exit %d %s", code, errs)
	}
}
