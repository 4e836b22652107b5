package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pragmalab/analysis/modelhuman"
)

// altTestFiles simulates 7 humans labelling 40 items (one human with 20
// only, left out) and two models, one close to the humans' majority and
// one at random: categories for accuracy, 1–7 ratings for neg-rmse.
func altTestFiles(numeric bool) (humans, models string) {
	rng := rand.New(rand.NewPCG(31, 7))
	label := func(truth int) string {
		if numeric {
			return strconv.Itoa(max(1, min(7, truth+rng.IntN(3)-1)))
		}
		if rng.IntN(4) == 0 {
			return []string{"a", "b", "c"}[rng.IntN(3)]
		}
		return []string{"a", "b", "c"}[truth%3]
	}
	var h, m strings.Builder
	h.WriteString("annotator,item_id,label\n")
	m.WriteString("model,item_id,label\n")
	for i := range 40 {
		truth := 1 + rng.IntN(7)
		for a := range 7 {
			if a == 6 && i >= 20 {
				continue
			}
			fmt.Fprintf(&h, "H%d,item%02d,%s\n", a, i, label(truth))
		}
		fmt.Fprintf(&m, "close,item%02d,%s\n", i, label(truth))
		fmt.Fprintf(&m, "random,item%02d,%s\n", i, label(1+rng.IntN(7)))
	}
	return h.String(), m.String()
}

// The alt-test's R companion recomputes, from its own reading of the
// definition, every model's ω, ρ, verdict, humans and items and every
// human's items, p-value and rejection, equal to pragmalab's to 1e-9, by
// accuracy and by −RMSE on z-scores (docs/statistics.md#where-each-shows).
func TestRCompanionAltTest(t *testing.T) {
	needR(t, false)
	for _, c := range []struct {
		name    string
		numeric bool
		flags   []string
	}{
		{"accuracy", false, []string{"--scoring", "accuracy", "--epsilon", "0.2"}},
		{"neg-rmse-z", true, []string{"--scoring", "neg-rmse", "--epsilon", "0.1", "--zscore"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs, ms := altTestFiles(c.numeric)
			dir := filepath.Join(t.TempDir(), "alt r")
			args := append([]string{"analyze", "alt-test", "--humans", writeAnalyzeInput(t, "humans.csv", hs), "--models", writeAnalyzeInput(t, "models.csv", ms), "--json", "--r", dir}, c.flags...)
			out, errs, code := analyzeCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var res modelhuman.AltTest
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			printed := runR(t, dir)
			ch := &checker{t: t, r: readLong(t, filepath.Join(dir, "alttest_r.csv"))}
			for _, name := range []string{"close", "random"} {
				m := res.Models[name]
				if m == nil {
					t.Fatalf("no result for %s", name)
				}
				passed := 0.0
				if m.Passed {
					passed = 1
				}
				ch.same(name+"||winning_rate", m.WinningRate)
				ch.same(name+"||advantage_probability", m.AdvantageProbability)
				ch.same(name+"||passed", passed)
				ch.same(name+"||humans", float64(m.Humans))
				ch.same(name+"||items", float64(m.Items))
				for _, h := range m.PerHuman {
					rej := 0.0
					if h.Rejected {
						rej = 1
					}
					ch.same(name+"|"+h.Annotator+"|items", float64(h.Items))
					ch.same(name+"|"+h.Annotator+"|p_value", h.PValue)
					ch.same(name+"|"+h.Annotator+"|rejected", rej)
				}
				if m.Humans != 6 {
					t.Errorf("%s: %d humans tested, want 6 (H6 has 20 items)", name, m.Humans)
				}
			}
			if ch.n != 2*(5+3*6) {
				t.Errorf("compared %d values", ch.n)
			}
			if !strings.Contains(printed, "0 differ by more than 1e-9") {
				t.Errorf("the script disagrees with pragmalab's own file:\n%s", printed)
			}
			if !res.Models["close"].Passed && res.Models["close"].AdvantageProbability < res.Models["random"].AdvantageProbability {
				t.Errorf("the simulation is off: close ρ %.2f, random ρ %.2f", res.Models["close"].AdvantageProbability, res.Models["random"].AdvantageProbability)
			}
		})
	}
}
