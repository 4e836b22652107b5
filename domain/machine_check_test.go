package domain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestInstructionPoint: on every batch length and scale the setting
// allows, InstructionScreens(n) screens carry the instruction, asking
// points that are never the midpoint, distinct while the scale has enough
// points besides the midpoint, so never all the same (a straight-liner
// does not obey them all); and the screens are drawn per participant.
func TestInstructionPoint(t *testing.T) {
	key := []byte("test key")
	for points := MachineCheckMinPoints; points <= MaxScalePoints; points++ {
		for n := MachineCheckMinScreens; n <= 60; n++ {
			for s := range 5 {
				checkBatch(t, DrawTraps(key, fmt.Sprint("session", s)), n, points)
			}
		}
	}
	tr := DrawTraps(key, "x")
	for _, c := range [][3]int{{-1, 30, 7}, {30, 30, 7}, {0, 0, 7}, {0, 2, 7}, {5, 30, 1}} {
		if p := tr.InstructionPoint(c[0], c[1], c[2]); p != 0 {
			t.Errorf("InstructionPoint%v = %d, want 0", c, p)
		}
	}
	// Two participants of the same batch meet the instruction on different
	// screens (with 30 screens, the same five in 1 of 142,506 pairs).
	screens := func(t Traps) string {
		var out []int
		for j := range 30 {
			if t.InstructionPoint(j, 30, 7) != 0 {
				out = append(out, j)
			}
		}
		return fmt.Sprint(out)
	}
	seen := map[string]bool{}
	for s := range 20 {
		seen[screens(DrawTraps(key, fmt.Sprint("p", s)))] = true
	}
	if len(seen) < 19 {
		t.Errorf("20 participants met the instruction on only %d different sets of screens", len(seen))
	}
}

// checkBatch checks a participant's instructions in a batch of n ordinary
// screens on a scale of points.
func checkBatch(t *testing.T, tr Traps, n, points int) {
	t.Helper()
	var asked []int
	for j := 0; j < n; j++ {
		p := tr.InstructionPoint(j, n, points)
		if p == 0 {
			continue
		}
		if p < 1 || p > points || 2*p == points+1 {
			t.Fatalf("%d points, %d screens: screen %d asks %d", points, n, j, p)
		}
		asked = append(asked, p)
	}
	if len(asked) != InstructionScreens(n) {
		t.Fatalf("%d points, %d screens: %d instructed screens %v", points, n, len(asked), asked)
	}
	distinct := map[int]bool{}
	for _, p := range asked {
		distinct[p] = true
	}
	if want := min(len(asked), points-points%2); len(distinct) != want {
		t.Errorf("%d points, %d screens: the points asked %v, want %d distinct", points, n, asked, want)
	}
}

// TestMachineObeyed: nothing without an instruction, 1 for the point asked, 0 otherwise.
func TestMachineObeyed(t *testing.T) {
	if v := MachineObeyed(0, 6); v != nil {
		t.Errorf("no instruction recorded %d", *v)
	}
	if v := MachineObeyed(6, 6); v == nil || *v != 1 {
		t.Errorf("obeyed recorded %v", v)
	}
	if v := MachineObeyed(6, 5); v == nil || *v != 0 {
		t.Errorf("not obeyed recorded %v", v)
	}
}

// TestObeyedMachineInstruction: flagged when most instructions were obeyed
// (at least three, at least three quarters): 3 of 3, 4 of 5, not 3 of 5.
// A person answering at random on 7 points is flagged with probability
// 5·(1/7)^4·(6/7) + (1/7)^5 ≈ 0.18 %; a person with any distribution of
// answers of their own, independent of the instruction, at most ≈ 0.67 %
// (docs/studies.md#machine-instruction).
func TestObeyedMachineInstruction(t *testing.T) {
	for _, c := range []struct {
		instructed, obeyed int
		want               bool
	}{{3, 3, true}, {3, 2, false}, {3, 0, false}, {2, 2, false}, {0, 0, false},
		{5, 5, true}, {5, 4, true}, {5, 3, false}, {4, 3, true}, {6, 4, false}, {6, 5, true}} {
		if got := ObeyedMachineInstruction(c.instructed, c.obeyed); got != c.want {
			t.Errorf("ObeyedMachineInstruction(%d, %d) = %v, want %v", c.instructed, c.obeyed, got, c.want)
		}
	}
	tr := DrawTraps([]byte("k"), "random rater")
	var asked []int
	for j := 0; j < 30; j++ {
		if p := tr.InstructionPoint(j, 30, 7); p != 0 {
			asked = append(asked, p)
		}
	}
	// flagRate is the chance of the flag for a person answering each
	// screen independently with the distribution q over the 7 points.
	flagRate := func(q [8]float64) float64 {
		total := 0.0
		for mask := range 1 << len(asked) {
			pr, obeyed := 1.0, 0
			for i, a := range asked {
				if mask&(1<<i) != 0 {
					pr *= q[a]
					obeyed++
				} else {
					pr *= 1 - q[a]
				}
			}
			if ObeyedMachineInstruction(len(asked), obeyed) {
				total += pr
			}
		}
		return total
	}
	uniform := [8]float64{0, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7}
	if got, want := flagRate(uniform), 5*math.Pow(1.0/7, 4)*6/7+math.Pow(1.0/7, 5); math.Abs(got-want) > 1e-12 {
		t.Errorf("random answers flagged at %.6f, want %.6f", got, want)
	}
	// Any distribution at all: never above 0.68 % (the worst puts 1/5 on
	// each point asked: 5·0.2^4·0.8 + 0.2^5 = 0.672 %).
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for range 20000 {
		var q [8]float64
		sum := 0.0
		for p := 1; p <= 7; p++ {
			q[p] = r.ExpFloat64()
			if r.IntN(3) == 0 {
				q[p] = 0
			}
			sum += q[p]
		}
		if sum == 0 {
			continue
		}
		for p := 1; p <= 7; p++ {
			q[p] /= sum
		}
		worst = max(worst, flagRate(q))
	}
	var even [8]float64
	for _, a := range asked {
		even[a] = 0.2
	}
	if e := flagRate(even); math.Abs(e-0.00672) > 1e-9 || worst > e+1e-12 {
		t.Errorf("the worst honest distribution is flagged at %.6f (searched %.6f), want 0.672 %% at most", e, worst)
	}
}

// TestMachineCheckValidate: the setting needs 3 scale points and batches
// of 3; off, it needs nothing.
func TestMachineCheckValidate(t *testing.T) {
	s := DefaultCrowdSettings()
	s.MachineCheck = true
	if err := s.Validate(); err != nil {
		t.Fatalf("default settings with machine_check: %v", err)
	}
	s.ScalePoints, s.CheckHighMin, s.CheckLowMax = 2, 2, 1
	s.ScaleLabels = map[string]string{"1": "no", "2": "yes"}
	if err := s.Validate(); err == nil || ErrorMessage(err) != "machine check: needs a scale of at least 3 points, got 2" {
		t.Errorf("2 points: %v", err)
	}
	s.MachineCheck = false
	if err := s.Validate(); err != nil {
		t.Errorf("2 points without machine_check: %v", err)
	}
	s = DefaultCrowdSettings()
	s.MachineCheck, s.BatchSize = true, 2
	if err := s.Validate(); err == nil || ErrorMessage(err) != "machine check: needs a batch size of at least 3 (the screens carrying the instruction), got 2" {
		t.Errorf("batch of 2: %v", err)
	}
}
