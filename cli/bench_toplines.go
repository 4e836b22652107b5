package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"pragmalab/analysis"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
)

// Targets for toplines on 1,000,000 rows (docs/cli.md#bench): without
// intervals, and with the bootstrap intervals (2,000 replicates).
const (
	toplinesWallTarget     = 2 * time.Second
	toplinesMemTarget      = 500 << 20
	toplinesBootWallTarget = 10 * time.Second
	toplinesBootMemTarget  = 1 << 30
)

// benchToplines generates a synthetic ratings file and times `pragmalab
// analyze toplines` on it. By default each run is a child process
// (this executable), timed from start to exit — reading the CSV, the
// analysis and the JSON output — with its peak memory from getrusage's
// max RSS. --in-process times the same work inside this process instead
// and reads the peak (VmHWM) from /proc/self/status after resetting it.
func benchToplines(ctx context.Context, args []string, env *Env) error {
	fs := flag.NewFlagSet("bench toplines", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	rows := fs.Int("rows", 1_000_000, "rows in the synthetic ratings file")
	participants := fs.Int("participants", 10_000, "participants in the synthetic ratings file")
	runs := fs.Int("runs", 3, "timed runs (the median wall time and the largest peak are reported)")
	seed := fs.Uint64("seed", 1, "random seed of the synthetic file")
	keep := fs.String("keep", "", "write the synthetic file here and keep it (default: a temporary file, removed)")
	inProcess := fs.Bool("in-process", false, "run the analysis in this process (peak from VmHWM) instead of a child process (peak from max RSS)")
	replicates := fs.Int("bootstrap", analysis.DefaultReplicates, "bootstrap replicates of the intervals (0: toplines without intervals, the smaller target)")
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: pragmalab bench toplines [options]\n\nTime analyze toplines on a synthetic ratings file (targets for 1,000,000 rows from\n10,000 participants on 2 cores, reading the CSV included: with 2,000 bootstrap\nreplicates under 10 s and 1 GB; with --bootstrap 0 under 2 s and 500 MB).\n\nOptions:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("bench toplines: %v", err)
	}
	if *runs < 1 {
		return usagef("bench toplines: --runs must be at least 1")
	}
	if *replicates < 0 {
		return usagef("bench toplines: --bootstrap must be 0 or more")
	}
	wallTarget, memTarget := toplinesWallTarget, int64(toplinesMemTarget)
	if *replicates > 0 {
		wallTarget, memTarget = toplinesBootWallTarget, toplinesBootMemTarget
	}
	path, size, genTime, err := generateRatings(*keep, *rows, *participants, *seed)
	if err != nil {
		return err
	}
	if *keep == "" {
		defer os.Remove(path)
	}
	fmt.Fprintf(env.stdout, "toplines benchmark: %d rows, %d participants, %.1f MB CSV (generated in %.2f s); %d CPUs; %d bootstrap replicates\n",
		*rows, *participants, float64(size)/1e6, genTime.Seconds(), runtime.NumCPU(), *replicates)
	how := fmt.Sprintf("child process `pragmalab analyze toplines --ratings FILE --json --bootstrap %d`; peak = its max RSS (getrusage)", *replicates)
	measure := func() (time.Duration, int64, int, error) { return toplinesChild(ctx, path, *replicates) }
	if *inProcess {
		how = "in process: read + toplines (with intervals) + JSON; peak = VmHWM of this process, reset after generation"
		measure = func() (time.Duration, int64, int, error) { return toplinesInProcess(path, *replicates) }
	}
	fmt.Fprintf(env.stdout, "measured: %s\n", how)
	var walls []time.Duration
	var peak int64
	for i := range *runs {
		wall, mem, total, err := measure()
		if err != nil {
			return err
		}
		if total != *participants {
			return fmt.Errorf("bench toplines: analysis saw %d participants, generated %d", total, *participants)
		}
		fmt.Fprintf(env.stdout, "  run %d: wall %.3f s, peak %.1f MB\n", i+1, wall.Seconds(), float64(mem)/(1<<20))
		walls = append(walls, wall)
		peak = max(peak, mem)
	}
	slices.Sort(walls)
	med := walls[len(walls)/2]
	verdict := "within"
	if med > wallTarget || peak > memTarget {
		verdict = "OVER"
	}
	fmt.Fprintf(env.stdout, "median wall %.3f s (target < %.0f s), peak memory %.1f MB (target < %d MB): %s target\n",
		med.Seconds(), wallTarget.Seconds(), float64(peak)/(1<<20), memTarget>>20, verdict)
	return nil
}

func generateRatings(keep string, rows, participants int, seed uint64) (string, int64, time.Duration, error) {
	start := time.Now()
	var f *os.File
	var err error
	if keep != "" {
		f, err = os.Create(keep)
	} else {
		f, err = os.CreateTemp("", "pragmalab-ratings-*.csv")
	}
	if err != nil {
		return "", 0, 0, fmt.Errorf("bench toplines: %w", err)
	}
	if err := plan.WriteSyntheticRatings(f, rows, participants, seed); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", 0, 0, usagef("bench toplines: %v", err)
	}
	st, err := f.Stat()
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return "", 0, 0, fmt.Errorf("bench toplines: %w", err)
	}
	return f.Name(), st.Size(), time.Since(start), nil
}

// toplinesChild runs this executable's analyze toplines on path.
func toplinesChild(ctx context.Context, path string, replicates int) (time.Duration, int64, int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("bench toplines: %w", err)
	}
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, exe, "analyze", "toplines", "--ratings", path, "--json", "--bootstrap", strconv.Itoa(replicates))
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("bench toplines: child %s: %v: %s", exe, err, errb.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, 0, errors.New("bench toplines: no rusage for the child on this system")
	}
	total, err := participantsTotal(out.Bytes())
	return wall, ru.Maxrss * 1024, total, err // Linux reports Maxrss in KiB
}

func participantsTotal(js []byte) (int, error) {
	var t struct {
		Participants struct {
			Total int `json:"total"`
		} `json:"participants"`
	}
	if err := json.Unmarshal(js, &t); err != nil {
		return 0, fmt.Errorf("bench toplines: output is not the toplines JSON: %w", err)
	}
	return t.Participants.Total, nil
}

// toplinesInProcess does the analyze toplines work here, peak from VmHWM.
func toplinesInProcess(path string, replicates int) (time.Duration, int64, int, error) {
	runtime.GC()
	// Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, 0, 0, fmt.Errorf("bench toplines: cannot reset the peak memory figure (%v); use the child-process mode", err)
	}
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, 0, err
	}
	rs, err := toplines.ReadRatings(f)
	f.Close()
	if err != nil {
		return 0, 0, 0, err
	}
	opt := toplines.DefaultOptions()
	opt.Bootstrap.Replicates = replicates
	t := toplines.ComputeToplines(rs, opt)
	js, err := json.Marshal(t)
	if err != nil {
		return 0, 0, 0, err
	}
	wall := time.Since(start)
	hwm, err := vmHWM()
	if err != nil {
		return 0, 0, 0, err
	}
	total, err := participantsTotal(js)
	return wall, hwm, total, err
}

// vmHWM reads this process's peak resident set size from /proc/self/status.
func vmHWM() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("bench toplines: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("bench toplines: no VmHWM in /proc/self/status")
}
