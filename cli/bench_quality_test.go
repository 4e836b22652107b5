package cli

import (
	"regexp"
	"testing"
)

func TestBenchQualitySmall(t *testing.T) {
	code, out, errOut := runCLI(t, "", nil, "bench", "quality", "--judgements", "3000", "--annotators", "12", "--per-item", "6", "--runs", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, re := range []string{`on 3000 judgements by 12 annotators \(500 items, 6 per item\)`, `Dawid–Skene: \d+ iterations \(converged true\)`, `median of 1 runs: [0-9.]+ s wall, [0-9.]+ s CPU`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
}
