package cli

import (
	"os"
	"strings"
	"testing"
)

func TestBenchToplinesInProcess(t *testing.T) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset VmHWM here: %v", err)
	}
	out, errs, code := analyzeCLI(t, "", "bench", "toplines", "--rows", "22000", "--participants", "200", "--runs", "1", "--in-process")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"22000 rows, 200 participants", "run 1: wall", "peak memory", "within target"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchToplinesUsage(t *testing.T) {
	if _, errs, code := analyzeCLI(t, "", "bench", "toplines", "--help"); code != 0 || !strings.Contains(errs, "--rows") && !strings.Contains(errs, "-rows") {
		t.Errorf("--help: exit %d\n%s", code, errs)
	}
	if _, errs, code := analyzeCLI(t, "", "bench", "toplines", "--rows", "5", "--participants", "10", "--in-process"); code != 2 || !strings.Contains(errs, "at least") {
		t.Errorf("too few rows: exit %d %s", code, errs)
	}
}
