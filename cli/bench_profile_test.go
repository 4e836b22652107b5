package cli

import (
	"testing"

	"github.com/google/pprof/profile"
)

// TestProfileLeavesParticipantsOut checks that the server's profile keeps
// the server's samples and none of the simulated participants': by their
// label in a CPU profile, by their frames in a heap profile.
func TestProfileLeavesParticipantsOut(t *testing.T) {
	fn := func(id uint64, name string) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: &profile.Function{ID: id, Name: name}}}}
	}
	server := fn(1, "pragmalab/handlers.(*Handler).CrowdScreen")
	client := fn(2, "pragmalab/cli.(*loadParticipant).step")
	transport := fn(3, "net/http.(*persistConn).readLoop")
	malloc := fn(4, "runtime.mallocgc")
	newProfile := func() *profile.Profile {
		return &profile.Profile{
			SampleType: []*profile.ValueType{{Type: "a"}, {Type: "b"}},
			Location:   []*profile.Location{server, client, transport, malloc},
			Function:   []*profile.Function{server.Line[0].Function, client.Line[0].Function, transport.Line[0].Function, malloc.Line[0].Function},
			Sample: []*profile.Sample{
				{Location: []*profile.Location{malloc, server}, Value: []int64{1, 10}},
				{Location: []*profile.Location{malloc, client}, Value: []int64{2, 20}, Label: map[string][]string{benchLabel: {participantsLabel}}},
				{Location: []*profile.Location{transport}, Value: []int64{4, 40}, Label: map[string][]string{benchLabel: {participantsLabel}}},
			},
		}
	}

	cpu := newProfile()
	dropParticipantsCPU(cpu)
	if got := sampleTotal(cpu, 1); got != 10 {
		t.Errorf("CPU profile: server's total %d, want 10 (the labelled samples left out)", got)
	}

	heap := newProfile()
	for _, s := range heap.Sample {
		s.Label = nil // a heap profile has no labels
	}
	heap = dropParticipantsAllocs(heap)
	if got := sampleTotal(heap, 0); got != 1 {
		t.Errorf("heap profile: server's allocations %d, want 1 (the participants' and the HTTP client's stacks left out)", got)
	}
}
