package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/google/pprof/profile"
)

// The simulated participants run in the benchmark's own process, beside
// the server they load. Their goroutines carry the label bench=participants
// (set in runAll, inherited by every goroutine they start, the HTTP
// client's connections included), so a profile can leave them out and show
// the server alone (docs/performance.md).
const (
	benchLabel        = "bench"
	participantsLabel = "participants"
)

// participantsLabels are the labels of the participants' goroutines.
var participantsLabels = pprof.Labels(benchLabel, participantsLabel)

// participantFrames are the frames found only on the participants' stacks:
// the heap profile has no labels, so their allocations are told apart by
// where they were made.
var participantFrames = regexp.MustCompile(`^pragmalab/cli\.\(\*(loadRun|loadParticipant)\)|^net/http\.\(\*(persistConn|Transport|Client)\)|^net/http\.(send|setRequestCancel)$`)

// serverProfile records the CPU profile (--cpuprofile) and the allocations
// (--memprofile) of a load run, keeping the server's side only.
type serverProfile struct {
	cpuFile, memFile string
	cpu              bytes.Buffer
	allocsBefore     *profile.Profile
	// CPU and allocations of the run, server side (after stop).
	serverCPU, participantsCPU time.Duration
	allocObjects, allocBytes   int64
}

// startProfile starts what --cpuprofile and --memprofile ask for; stop
// ends it and writes the files.
func (f loadFlags) startProfile() (*serverProfile, error) {
	p := &serverProfile{cpuFile: *f.cpuprofile, memFile: *f.memprofile}
	if p.memFile != "" {
		runtime.GC()
		before, err := allocsProfile()
		if err != nil {
			return nil, err
		}
		p.allocsBefore = before
	}
	if p.cpuFile != "" {
		if err := pprof.StartCPUProfile(&p.cpu); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// allocsProfile reads the process's allocations so far.
func allocsProfile() (*profile.Profile, error) {
	var b bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&b, 0); err != nil {
		return nil, err
	}
	return profile.Parse(&b)
}

// stop ends the profiles and writes the server's side of each.
func (p *serverProfile) stop() error {
	if p.cpuFile != "" {
		pprof.StopCPUProfile()
		prof, err := profile.Parse(&p.cpu)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		all := sampleTotal(prof, 1)
		dropParticipantsCPU(prof)
		p.serverCPU = time.Duration(sampleTotal(prof, 1))
		p.participantsCPU = time.Duration(all) - p.serverCPU
		if err := writeProfile(p.cpuFile, prof); err != nil {
			return err
		}
	}
	if p.memFile != "" {
		after, err := allocsProfile()
		if err != nil {
			return err
		}
		// The run's allocations: after minus before, as pprof -diff_base.
		p.allocsBefore.Scale(-1)
		run, err := profile.Merge([]*profile.Profile{after, p.allocsBefore})
		if err != nil {
			return fmt.Errorf("memory profile: %w", err)
		}
		run = dropParticipantsAllocs(run)
		p.allocObjects, p.allocBytes = sampleTotal(run, 0), sampleTotal(run, 1)
		if err := writeProfile(p.memFile, run); err != nil {
			return err
		}
	}
	return nil
}

// dropParticipantsCPU leaves out of a CPU profile the samples of the
// participants' goroutines.
func dropParticipantsCPU(p *profile.Profile) {
	p.FilterSamplesByTag(nil, func(s *profile.Sample) bool {
		return slicesContain(s.Label[benchLabel], participantsLabel)
	})
}

// dropParticipantsAllocs leaves out of a heap profile the allocations
// made on the participants' stacks.
func dropParticipantsAllocs(p *profile.Profile) *profile.Profile {
	p.FilterSamplesByName(nil, participantFrames, nil, nil)
	return p.Compact()
}

// sampleTotal sums value i of every sample.
func sampleTotal(p *profile.Profile, i int) int64 {
	var n int64
	for _, s := range p.Sample {
		if i < len(s.Value) {
			n += s.Value[i]
		}
	}
	return n
}

func slicesContain(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

func writeProfile(file string, p *profile.Profile) error {
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := p.Write(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// report prints the server's CPU and allocations per answer.
func (p *serverProfile) report(w io.Writer, answers int) {
	if answers == 0 {
		return
	}
	if p.cpuFile != "" {
		fmt.Fprintf(w, "CPU profile (server side, participants left out) in %s: server %.2f s of CPU, %.0f µs an answer; the participants %.2f s, %.0f µs an answer\n",
			p.cpuFile, p.serverCPU.Seconds(), float64(p.serverCPU.Microseconds())/float64(answers),
			p.participantsCPU.Seconds(), float64(p.participantsCPU.Microseconds())/float64(answers))
	}
	if p.memFile != "" {
		fmt.Fprintf(w, "allocations (server side, from the sampled heap profile in %s): %.0f objects and %.1f KiB an answer (its screen GET, and the arrivals' share, included)\n",
			p.memFile, float64(p.allocObjects)/float64(answers), float64(p.allocBytes)/1024/float64(answers))
	}
}

// withParticipantsLabels runs fn with the participants' labels, so every
// goroutine it starts carries them.
func withParticipantsLabels(ctx context.Context, fn func()) {
	pprof.Do(ctx, participantsLabels, func(context.Context) { fn() })
}
