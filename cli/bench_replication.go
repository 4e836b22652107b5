package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"pragmalab/replica"
	"pragmalab/studies"
	"pragmalab/web"
)

const benchReplicationUsage = `Usage: pragmalab bench replication [options]

bench load's participants (a crowd study served on 127.0.0.1, every answer
a POST) against a server that replicates its database with Litestream to a
file:// replica, as serve --replica does. Reports the replication lag — the
time from an answer's acknowledgement until the replica is known to hold
it — at p50, p99 and max, and the answers at risk: acknowledged but not yet
in the replica, as many as a loss of the machine at that moment would take.
Needs litestream on PATH (or PRAGMALAB_LITESTREAM).

`

// replPoll is one answered poll of the replica's position.
type replPoll struct {
	sent, answered    time.Time
	local, replicated uint64
}

// benchReplication is `pragmalab bench replication`.
func benchReplication(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench replication", benchReplicationUsage, env)
	n := fs.Int("participants", 500, "simulated participants, all concurrent")
	think := fs.Duration("think", 200*time.Millisecond, "a participant's pause before each answer (±50 %, random)")
	ramp := fs.Duration("ramp", time.Second, "participants arrive at random moments within this time")
	poll := fs.Duration("poll", replica.Poll, "how often the server asks Litestream for the replica's position (serve: "+replica.Poll.String()+"); the lags are measured to this resolution")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkReplicationBench(*n, *poll, env); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "pragmalab-bench-replication-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "load.db")
	target, err := replica.Parse("file://"+filepath.Join(dir, "replica"), env.getenv)
	if err != nil {
		return err
	}
	svc, newServer, err := openService(ctx, file, studies.OpenOptions{Replicated: true})
	if err != nil {
		return err
	}
	study, err := setupLoadStudy(ctx, svc, *n)
	if err != nil {
		svc.Close()
		return err
	}
	var polls replPolls
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	rep, err := replica.Start(ctx, replica.Options{Target: target, DB: file, Getenv: env.getenv, Log: discard, Poll: *poll,
		OnPoll: polls.add})
	if err != nil {
		svc.Close()
		return err
	}
	defer func() { svc.Close(); rep.Stop(30 * time.Second) }()
	srv, err := newServer(ctx, web.Config{Log: discard, EntryLimit: -1, Replication: rep.Status})
	if err != nil {
		return err
	}
	addr, shutdown, err := serveLoopback(ctx, srv)
	if err != nil {
		return err
	}
	defer shutdown()

	fmt.Fprintf(env.stdout, "bench replication: %d participants, %s think time, arrivals over %s; Litestream %s to %s (monitor %s, sync %s), position asked every %s\n",
		*n, *think, *ramp, replica.Version, target.Display, replica.MonitorInterval, replica.SyncInterval, *poll)
	run := newLoadRun("http://"+addr, study, *n)
	run.think, run.ramp = *think, *ramp
	start := time.Now()
	run.runAll(ctx, false)
	wall := time.Since(start)
	// Wait until the replica holds the last answer, so every answer's lag
	// is known.
	if err := polls.waitCaughtUp(ctx, time.Now(), *poll, rep); err != nil {
		return err
	}
	repResult, err := run.verifyStudy(ctx, svc, study.ID)
	if err != nil {
		return err
	}
	run.report(env.stdout, wall, repResult)
	return reportReplication(env, *poll, run, repResult, polls.snapshot())
}

// checkReplicationBench refuses flags out of range, and a machine without
// Litestream.
func checkReplicationBench(n int, poll time.Duration, env *Env) error {
	if n < 1 || n > 100000 {
		return usagef("bench replication: --participants must be 1–100000")
	}
	if poll < 50*time.Millisecond {
		return usagef("bench replication: --poll must be at least 50ms")
	}
	_, err := replica.Find(env.getenv)
	return err
}

// replPolls are the replica's positions as the server's polls saw them,
// gathered while the participants answer.
type replPolls struct {
	mu    sync.Mutex
	polls []replPoll
}

// add is replica.Options.OnPoll.
func (r *replPolls) add(sent, answered time.Time, local, replicated uint64) {
	r.mu.Lock()
	r.polls = append(r.polls, replPoll{sent, answered, local, replicated})
	r.mu.Unlock()
}

// caughtUp reports whether a poll sent after end found the replica
// holding everything the database held.
func (r *replPolls) caughtUp(end time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.polls) > 0 && r.polls[len(r.polls)-1].sent.After(end) && r.polls[len(r.polls)-1].replicated >= r.polls[len(r.polls)-1].local
}

// waitCaughtUp waits, for at most 2 minutes, until the replica holds what
// the database held at end.
func (r *replPolls) waitCaughtUp(ctx context.Context, end time.Time, poll time.Duration, rep *replica.Replicator) error {
	for deadline := end.Add(2 * time.Minute); !r.caughtUp(end); {
		if time.Now().After(deadline) {
			return fmt.Errorf("bench replication: the replica did not catch up within 2 minutes of the last answer: %+v", rep.Status())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll / 4):
		}
	}
	return nil
}

// snapshot is a copy of the polls so far.
func (r *replPolls) snapshot() []replPoll {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.polls)
}

// reportReplication prints the answers' replication lags, the answers at
// risk at each poll, and whether every lag is within the documented
// recovery point; it fails if an answer was lost or duplicated, or a
// participant failed.
func reportReplication(env *Env, poll time.Duration, run *loadRun, repResult loadReport, ps []replPoll) error {
	var acks []time.Time
	run.mu.Lock()
	for _, m := range run.ackAt {
		for _, at := range m {
			acks = append(acks, at)
		}
	}
	run.mu.Unlock()
	lags, risk := replicationFigures(acks, ps, run.firstAns, run.lastAns)
	if len(lags) == 0 {
		return fmt.Errorf("bench replication: no answer's replication was seen")
	}
	rate := float64(len(acks)) / run.lastAns.Sub(run.firstAns).Seconds()
	fmt.Fprintf(env.stdout, "replication lag, acknowledgement → known in the replica (to %s): p50 %s, p99 %s, max %s over %d answers (%.0f answers/s)\n",
		poll, secs(percentile(lags, .5)), secs(percentile(lags, .99)), secs(percentile(lags, 1)), len(lags), rate)
	slices.Sort(risk)
	if len(risk) == 0 {
		// The answers came and went between two polls: nothing was
		// sampled while they came, which is not a count of zero.
		fmt.Fprintf(env.stdout, "answers at risk at a loss: not sampled, the run ended before the first poll while answers came (poll every %s)\n", poll)
	} else {
		fmt.Fprintf(env.stdout, "answers at risk at a loss (acknowledged, not yet in the replica), sampled at each of %d polls while answers came: p50 %d, p99 %d, max %d\n",
			len(risk), risk[len(risk)/2], risk[min(len(risk)-1, len(risk)*99/100)], risk[len(risk)-1])
	}
	verdict := "within"
	if percentile(lags, 1) > replica.DefaultMaxLag {
		verdict = "NOT within"
	}
	fmt.Fprintf(env.stdout, "every answer reached the replica %s the documented recovery point of %s\n", verdict, replica.DefaultMaxLag)
	if repResult.lost > 0 || repResult.duplicated > 0 || run.failed.Load() > 0 {
		return fmt.Errorf("bench replication: %d answers lost, %d duplicated, %d participants failed", repResult.lost, repResult.duplicated, run.failed.Load())
	}
	return nil
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// replicationFigures computes, from the answers' acknowledgement times and
// the polls (in order), each answer's lag — from its acknowledgement to
// the answer of the first poll showing the replica holds the transactions
// a poll sent after the acknowledgement reported (the answer is in them) —
// and, at each poll answered between first and last, how many answers
// were acknowledged and not yet known to be in the replica.
func replicationFigures(acks []time.Time, polls []replPoll, first, last time.Time) (lags []time.Duration, atRisk []int) {
	sort.Slice(acks, func(i, j int) bool { return acks[i].Before(acks[j]) })
	safeAt := replicaSafeTimes(polls)
	replicatedAt, lags := replicationLags(acks, polls, safeAt)
	return lags, answersAtRisk(acks, replicatedAt, polls, first, last)
}

// replicaSafeTimes are, for each poll k, when the replica was first seen
// holding poll k's local transactions (zero: never).
func replicaSafeTimes(polls []replPoll) []time.Time {
	safeAt := make([]time.Time, len(polls))
	j := 0
	for k := range polls {
		if j < k {
			j = k
		}
		for j < len(polls) && polls[j].replicated < polls[k].local {
			j++
		}
		if j < len(polls) {
			safeAt[k] = polls[j].answered
		}
	}
	return safeAt
}

// replicationLags are when each acknowledged answer (acks, sorted) was
// known to be in the replica (zero: never), and the lags of those known.
func replicationLags(acks []time.Time, polls []replPoll, safeAt []time.Time) (replicatedAt []time.Time, lags []time.Duration) {
	replicatedAt = make([]time.Time, len(acks))
	k := 0
	for i, a := range acks {
		for k < len(polls) && polls[k].sent.Before(a) {
			k++
		}
		if k < len(polls) && !safeAt[k].IsZero() {
			replicatedAt[i] = safeAt[k]
			lags = append(lags, safeAt[k].Sub(a))
		}
	}
	return replicatedAt, lags
}

// answersAtRisk counts, at each poll answered between first and last, the
// answers acknowledged and not yet known to be in the replica.
func answersAtRisk(acks, replicatedAt []time.Time, polls []replPoll, first, last time.Time) []int {
	var atRisk []int
	for _, p := range polls {
		t := p.answered
		if t.Before(first) || t.After(last) {
			continue
		}
		n := 0
		for i, a := range acks {
			if a.After(t) {
				break
			}
			if replicatedAt[i].IsZero() || replicatedAt[i].After(t) {
				n++
			}
		}
		atRisk = append(atRisk, n)
	}
	return atRisk
}
