package store

import (
	"context"
	"fmt"
	"os"
	"pragmalab/domain"
	"slices"
	"sync"
	"time"
)

// writeStats keeps what the operator's metrics page shows of the write
// queue: committed answers per second over the last minute, and the waits
// of the latest writes.
type writeStats struct {
	mu sync.Mutex
	// perSecond[t % 60] counts the answers committed in second t.
	perSecond [60]struct {
		sec   int64
		count int
	}
	samples [4096]waitSample // a ring of the latest writes
	next    int
	filled  bool
	// Since the start: transactions committed and writes run in them, and
	// the time the writer spent in them.
	groups, writes     int64
	busy, commit, sync time.Duration
}

// addSync counts the time a sync of the log took (PIPELINED).
func (s *writeStats) addSync(d time.Duration) {
	s.mu.Lock()
	s.sync += d
	s.mu.Unlock()
}

// addGroup counts the writer's time in a group's transaction and, of
// that, in its COMMIT (the fsync, with FULL).
func (s *writeStats) addGroup(busy, commit time.Duration) {
	s.mu.Lock()
	s.busy += busy
	s.commit += commit
	s.mu.Unlock()
}

type waitSample struct {
	at    time.Time     // acknowledged
	queue time.Duration // queued → its group began
	total time.Duration // queued → acknowledged
}

// finish gives each write of a group its outcome — its own error, or
// failed when the group could not commit — records it and wakes its caller.
func (s *writeStats) finish(ws []*pendingWrite, started time.Time, failed error) {
	now := time.Now()
	sec := now.Unix()
	s.mu.Lock()
	s.groups++
	for _, w := range ws {
		if !w.record {
			s.writes++
		}
	}
	b := &s.perSecond[sec%60]
	if b.sec != sec {
		b.sec, b.count = sec, 0
	}
	for _, w := range ws {
		if failed != nil && (w.err == nil || w.err == errTxLost) {
			w.err = failed
		}
		if w.record {
			continue
		}
		if w.err == nil && w.prio == prioAnswer {
			b.count++
		}
		s.samples[s.next] = waitSample{at: now, queue: started.Sub(w.queued), total: now.Sub(w.queued)}
		s.next = (s.next + 1) % len(s.samples)
		s.filled = s.filled || s.next == 0
	}
	s.mu.Unlock()
	for _, w := range ws {
		close(w.done)
	}
}

// domain.Metrics is domain.Metrics (docs/architecture.md#domain), named here for the
// store's callers.

// domain.Metrics reports the figures of the metrics page.
func (db *DB) Metrics(ctx context.Context) (domain.Metrics, error) {
	var m domain.Metrics
	now := time.Now()
	s := &db.hot.writes.stats
	s.mu.Lock()
	answers := 0
	for _, b := range s.perSecond {
		if d := now.Unix() - b.sec; d >= 0 && d < 60 {
			answers += b.count
		}
	}
	m.Groups, m.GroupedWrites, m.WriterBusy, m.WriterCommit, m.LogSyncs = s.groups, s.writes, s.busy, s.commit, s.sync
	n := s.next
	if s.filled {
		n = len(s.samples)
	}
	var queue, total []time.Duration
	for _, x := range s.samples[:n] {
		if now.Sub(x.at) <= time.Minute {
			queue, total = append(queue, x.queue), append(total, x.total)
		}
	}
	s.mu.Unlock()
	m.AnswersLastMinute, m.AnswersPerSecond = answers, float64(answers)/60
	m.Writes = len(queue)
	m.QueueP50, m.QueueP99 = quantile(queue, .5), quantile(queue, .99)
	m.AckP50, m.AckP99 = quantile(total, .5), quantile(total, .99)
	for _, f := range []string{db.path, db.path + "-wal"} {
		if fi, err := os.Stat(f); err == nil {
			m.DatabaseBytes += fi.Size()
		}
	}
	recent := now.Add(-5 * time.Minute).UTC().Format(time.RFC3339Nano)
	if err := db.read.QueryRowContext(ctx, `
		SELECT COUNT(*), COALESCE(SUM(last_seen_at >= ?), 0) FROM crowd_participants WHERE status = 'active'`,
		recent).Scan(&m.OpenParticipants, &m.SeenRecently); err != nil {
		return m, fmt.Errorf("metrics: %w", err)
	}
	return m, nil
}

// quantile is the q-quantile of d (nearest rank), 0 for none.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(q*float64(len(d))))]
}
