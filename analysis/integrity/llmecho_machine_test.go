package integrity

import (
	"fmt"
	"pragmalab/domain"
	"slices"
	"strings"
	"testing"
)

// A ratings export's machine_instruction column raises the
// machine_instruction flag only for a participant who obeyed every hidden
// instruction (docs/studies.md#machine-instruction); 2 of 3 is chance
// enough to say nothing, and a file without the column says nothing.
func TestIntegrityMachineInstructionFromFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check,machine_instruction\n")
	obey := map[string][]string{"agent": {"1", "1", "1"}, "person": {"1", "0", "1"}}
	for _, p := range []string{"agent", "person"} {
		for i := range 9 {
			m := ""
			if i%3 == 1 {
				m = obey[p][i/3]
			}
			fmt.Fprintf(&b, "%s,1,it%d,scalar,trigger,%d,,%s\n", p, i, 1+i%7, m)
		}
	}
	rows, err := ReadIntegrityRatings(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range Integrity(rows, nil, IntegrityOptions{Echo: DefaultEchoOptions()}) {
		got[p.Participant] = p.Flags
		if p.Participant == "agent" && !strings.Contains(p.Evidence[domain.FlagMachineInstruction], "obeyed 3 of 3") {
			t.Errorf("agent's evidence %q", p.Evidence[domain.FlagMachineInstruction])
		}
	}
	if !slices.Contains(got["agent"], domain.FlagMachineInstruction) || slices.Contains(got["person"], domain.FlagMachineInstruction) {
		t.Fatalf("flags %v", got)
	}
	if _, err := ReadIntegrityRatings(strings.NewReader(strings.Replace(b.String(), ",,1\n", ",,2\n", 1))); err == nil || !strings.Contains(err.Error(), "machine_instruction") {
		t.Fatalf("a machine_instruction of 2: %v", err)
	}
}
