package domain

import (
	"math"
	"testing"
)

// TestMachineInstruction: on every batch length and scale the setting
// allows, exactly MachineCheckScreens screens carry the instruction, never
// the first or last when the batch has room, asking points that are
// never the midpoint and not all the same, so a straight-liner does not
// obey them all (#32 §5).
func TestMachineInstruction(t *testing.T) {
	for points := MachineCheckMinPoints; points <= MaxScalePoints; points++ {
		for n := MachineCheckScreens; n <= 60; n++ {
			checkBatch(t, n, points)
		}
	}
	if p := MachineInstruction(5, 30, 7); p != 6 {
		t.Errorf("the first instruction of 30 screens on 7 points asks %d, want 6 (\"answer 6\")", p)
	}
	for _, c := range [][3]int{{-1, 30, 7}, {30, 30, 7}, {0, 0, 7}, {5, 30, 1}} {
		if p := MachineInstruction(c[0], c[1], c[2]); p != 0 {
			t.Errorf("MachineInstruction%v = %d, want 0", c, p)
		}
	}
}

// checkBatch checks the instructions of a batch of n ordinary screens on
// a scale of points.
func checkBatch(t *testing.T, n, points int) {
	t.Helper()
	var asked []int
	for j := 0; j < n; j++ {
		p := MachineInstruction(j, n, points)
		if p == 0 {
			continue
		}
		if p < 1 || p > points || 2*p == points+1 {
			t.Fatalf("%d points, %d screens: screen %d asks %d", points, n, j, p)
		}
		if n > 2*MachineCheckScreens && (j == 0 || j == n-1) {
			t.Errorf("%d points, %d screens: the instruction is on screen %d", points, n, j)
		}
		asked = append(asked, p)
	}
	if len(asked) != MachineCheckScreens {
		t.Fatalf("%d points, %d screens: %d instructed screens %v", points, n, len(asked), asked)
	}
	same := true
	for _, p := range asked {
		same = same && p == asked[0]
	}
	if same {
		t.Errorf("%d points, %d screens: every instruction asks %d", points, n, asked[0])
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

// TestObeyedMachineInstruction: flagged only when every one of the
// instructions was obeyed; a person answering at random on 7 points is
// flagged with probability (1/7)^3, under 0.3 %.
func TestObeyedMachineInstruction(t *testing.T) {
	for _, c := range []struct {
		instructed, obeyed int
		want               bool
	}{{3, 3, true}, {3, 2, false}, {3, 0, false}, {2, 2, false}, {0, 0, false}, {4, 4, true}} {
		if got := ObeyedMachineInstruction(c.instructed, c.obeyed); got != c.want {
			t.Errorf("ObeyedMachineInstruction(%d, %d) = %v, want %v", c.instructed, c.obeyed, got, c.want)
		}
	}
	// Every way to answer the three instructed screens of a 30-screen batch
	// on 7 points: only the one that gives each point asked is flagged.
	var asked []int
	for j := 0; j < 30; j++ {
		if p := MachineInstruction(j, 30, 7); p != 0 {
			asked = append(asked, p)
		}
	}
	flagged, all := 0, 0
	for a := 1; a <= 7; a++ {
		for b := 1; b <= 7; b++ {
			for c := 1; c <= 7; c++ {
				obeyed := 0
				for i, r := range []int{a, b, c} {
					if v := MachineObeyed(asked[i], r); *v == 1 {
						obeyed++
					}
				}
				all++
				if ObeyedMachineInstruction(3, obeyed) {
					flagged++
				}
			}
		}
	}
	if share := float64(flagged) / float64(all); math.Abs(share-math.Pow(1.0/7, 3)) > 1e-12 {
		t.Errorf("random answers flagged at %.5f, want (1/7)^3", share)
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
