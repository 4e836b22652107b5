package handlers_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"pragmalab/domain"
)

// participantFlags are the integrity flags of each participant by
// PROLIFIC_PID, as the participants table has them.
func participantFlags(t *testing.T, e *crowdEnv) map[string][]domain.IntegrityFlag {
	t.Helper()
	_, set, err := e.db.CrowdStudy(context.Background(), e.study)
	if err != nil {
		t.Fatal(err)
	}
	reps, err := e.db.CrowdParticipants(context.Background(), e.study, set)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]domain.IntegrityFlag{}
	for _, r := range reps {
		out[r.PID] = r.Flags
	}
	return out
}

func hasFlag(fs []domain.IntegrityFlag, name string) (string, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f.Evidence, true
		}
	}
	return "", false
}

// TestCrowdMachineInstructionFlag: a participant who obeys most of the
// five hidden instructions (four, missing one) gets machine_instruction
// with its evidence, on the participants table and in the export; one who
// obeys three of five does not, and never one of a study with the setting
// off (#32 §5, #44 §3). The flag excludes nobody.
func TestCrowdMachineInstructionFlag(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) { s.MachineCheck = true })
	// The first obeys every instruction but one (an agent whose reading
	// of the page missed one of them).
	missed := false
	walkMachine(t, e, pidN(1), func(asked int) int {
		if asked > 0 && !missed {
			missed = true
			return 4 // never a point asked
		}
		if asked > 0 {
			return asked
		}
		return 3
	})
	obeyed := 0
	walkMachine(t, e, pidN(2), func(asked int) int {
		if asked > 0 && obeyed < 3 {
			obeyed++
			return asked
		}
		if asked > 0 {
			return 4 // never the point asked
		}
		return 3
	})
	flags := participantFlags(t, e)
	if ev, ok := hasFlag(flags[pidN(1)], domain.FlagMachineInstruction); !ok || ev != "obeyed 4 of 5 hidden instructions" {
		t.Errorf("the obeyer's flags %+v, want machine_instruction \"obeyed 4 of 5 hidden instructions\"", flags[pidN(1)])
	}
	if _, ok := hasFlag(flags[pidN(2)], domain.FlagMachineInstruction); ok {
		t.Errorf("flagged after obeying 3 of 5: %+v", flags[pidN(2)])
	}
	var buf bytes.Buffer
	if err := e.db.ExportCrowdParticipants(context.Background(), e.study, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := len(recs[0]) - 1
	for _, r := range recs[1:] {
		want := r[0] == pidN(1)
		if got := strings.Contains(r[last], "machine_instruction"); got != want {
			t.Errorf("%s: integrity_flags %q", r[0], r[last])
		}
		if r[15] != "no" { // excluded
			t.Errorf("%s excluded (%q) on an integrity flag", r[0], r[15])
		}
	}

	off := newCrowdEnv(t, 40, 10, nil)
	walkMachine(t, off, pidN(3), func(int) int { return 6 })
	if _, ok := hasFlag(participantFlags(t, off)[pidN(3)], domain.FlagMachineInstruction); ok {
		t.Error("machine_instruction raised with the setting off")
	}
}
