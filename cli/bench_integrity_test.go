package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"pragmalab/analysis/echobench"
)

// TestBenchIntegrityTiny runs a tiny configuration through the command:
// the tables have a row per rule × model noise, per rule × agent share and
// per model noise × items bin, each rate with its interval; the same seed
// prints the same tables.
func TestBenchIntegrityTiny(t *testing.T) {
	args := []string{"bench", "integrity", "--studies", "4", "--min-items", "30", "--max-items", "40"}
	out, errs, code := analyzeCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"trusted reference, noise 0.00", "trusted reference, noise 1.00", "reference, answers only, noise 0.50", "pool's own humans, noise 0.75",
		"trusted reference, agents 0 %", "pool's own humans, agents 75 %",
		"noise 1.00, 30–39 items", "noise 0.50, 40–40 items",
		"range over generators", "crowd ", "styles ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	rows := regexp.MustCompile(`(?m)^(trusted reference|reference, answers only|pool's own humans), noise`).FindAllString(out, -1)
	if len(rows) != 15 {
		t.Errorf("%d rule × noise rows, want 15 (3 rules × 5 noises)", len(rows))
	}
	if !regexp.MustCompile(`\d+\.\d % \[\d+\.\d, \d+\.\d\]`).MatchString(out) {
		t.Errorf("no rate with its interval in:\n%s", out)
	}
	again, _, _ := analyzeCLI(t, "", args...)
	strip := func(s string) string { return regexp.MustCompile(`(?m)^\d+ studies in .*$`).ReplaceAllString(s, "") }
	if strip(again) != strip(out) {
		t.Errorf("the same seed printed different tables")
	}
}

// TestEchoBenchDetection: where detection must be high — a model as noisy
// as a person, 40–60 items, a trusted reference — at least 85 % of the
// copying agents are flagged and at most 3 % of the honest raters, on
// both generators; against the pool's own humans with agents at 75 %
// most copiers go unflagged (the failure the reference answers).
func TestEchoBenchDetection(t *testing.T) {
	c := echobench.DefaultEchoBenchConfig()
	c.Studies, c.MinItems, c.MaxItems = 25, 40, 60
	c.ModelNoises, c.AgentShares = []float64{1}, []float64{0.25, 0.75}
	res, err := echobench.EchoBench(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range c.Generators {
		var agents, flagged, honest, falseFlags, poolAgents75, poolFlagged75 int
		for _, s := range res {
			if s.Generator != g {
				continue
			}
			agents += s.Agents
			flagged += s.Ref.Agents
			honest += s.Honest + s.Typical
			falseFlags += s.Ref.Honest + s.Ref.Typical
			if s.AgentShare == 0.75 {
				poolAgents75 += s.Agents
				poolFlagged75 += s.Pool.Agents
			}
		}
		t.Logf("%s: %d of %d agents, %d of %d honest flagged; pool rule at 75 %% agents %d of %d", g, flagged, agents, falseFlags, honest, poolFlagged75, poolAgents75)
		if float64(flagged) < 0.85*float64(agents) || float64(falseFlags) > 0.03*float64(honest) {
			t.Errorf("%s: %d of %d agents flagged (want ≥ 85 %%), %d of %d honest (want ≤ 3 %%)", g, flagged, agents, falseFlags, honest)
		}
		if float64(poolFlagged75) > 0.5*float64(poolAgents75) {
			t.Errorf("%s: the pool's own rule flags %d of %d agents at 75 %%: the docs say it fails there", g, poolFlagged75, poolAgents75)
		}
	}
}

func TestBenchIntegrityBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--studies", "0"}, {"--min-items", "50", "--max-items", "40"}, {"--workers", "0"}, {"--reference", "1"},
	} {
		_, errs, code := analyzeCLI(t, "", append([]string{"bench", "integrity"}, args...)...)
		if code != 2 || !strings.Contains(errs, "bench integrity") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}
