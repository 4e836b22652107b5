package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// Priorities of participants' writes (docs/architecture.md#write-queue).
const (
	// prioAnswer: a participant under way answers (crowd ratings, expert
	// judgements, context answers, explanation ratings).
	prioAnswer = iota
	// prioArrival: entry, consent, training, time-out checks — work of
	// crowd participants who have not started their batch yet.
	prioArrival
)

// A group holds at most groupMax writes. When both kinds wait, each gets
// at least groupShare places (its oldest writes) and a kind with fewer
// waiting leaves the rest of its share to the other: so a write waits for
// the group in progress and at most ⌈k / groupShare⌉ more groups, k being
// its place among the waiting writes of its kind, and a group holds the
// writer for at most groupMax writes and one fsync.
const (
	groupMax   = 128
	groupShare = groupMax / 2
)

// ErrClosed is returned for a participant write after the database closed.
var ErrClosed = errors.New("the database is closed")

// pendingWrite is one participant write waiting for, or in, a group.
type pendingWrite struct {
	ctx    context.Context
	prio   int
	fn     func(context.Context, *sql.Tx) error
	seq    uint64
	queued time.Time
	err    error
	done   chan struct{}
	// record marks a write a page makes in passing (queueWrite): it is not
	// an answer, and nobody waits for it.
	record bool
	// fx is what the write did to crowd sessions (crowd_screens.go).
	fx sessionEffect
}

// writeQueue is the queue of participants' writes and the state of the one
// goroutine that commits them in groups.
type writeQueue struct {
	mu      sync.Mutex
	waiting [2][]*pendingWrite
	seq     uint64
	closed  bool
	wake    chan struct{} // a write was queued (capacity 1)
	stop    chan struct{} // Close: drain and end
	ended   chan struct{} // the writer goroutine has returned
	groups  uint64        // groups run so far
	// dataVersion is the writer connection's last PRAGMA data_version
	// (checkDataVersion); the writer goroutine alone uses it.
	dataVersion int64
	stats       writeStats
	// With Options.Synchronous PIPELINED: committed groups on their way to
	// the syncer, which acknowledges them once the log is synced.
	toSync chan committedGroup
	synced chan struct{} // the syncer has returned
}

// committedGroup is a group committed but not yet synced to the disk.
type committedGroup struct {
	writes  []*pendingWrite
	started time.Time
}

func (q *writeQueue) init() {
	q.wake = make(chan struct{}, 1)
	q.stop = make(chan struct{})
	q.ended = make(chan struct{})
}

// groupTx runs fn as one write of the next group the writer commits, and
// returns once that group's transaction is durable (or fn failed). fn runs
// inside its own SAVEPOINT: if it returns an error, what it wrote is rolled
// back and the error comes back here, while the other writes of the group
// commit. fn gets a context that is not cancelled with the caller's: an
// interrupted statement would roll back the whole group. A caller whose
// context ends while its write still waits leaves the queue with ctx.Err();
// once the write is in a group the caller gets its real outcome.
//
// A groupTx write may change any crowd session: its commit empties the
// cache of sessions' screens (crowd_screens.go). A write that names every
// crowd session it changes goes through sessionTx instead.
func (db *DB) groupTx(ctx context.Context, prio int, fn func(context.Context, *sql.Tx) error) error {
	return db.enqueue(ctx, prio, fn, false, false)
}

// sessionTx is groupTx for a write that reports, through its context,
// every crowd session it changes (changedSessions and the like); a write
// that changes none reports nothing.
func (db *DB) sessionTx(ctx context.Context, prio int, fn func(context.Context, *sql.Tx) error) error {
	return db.enqueue(ctx, prio, fn, false, true)
}

// enqueue queues one write and waits for its outcome, as groupTx; record
// marks a write a page makes in passing, which the metrics do not count
// as a participant's write.
// named says the write reports the crowd sessions it changes (sessionTx).
func (db *DB) enqueue(ctx context.Context, prio int, fn func(context.Context, *sql.Tx) error, record, named bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q := &db.hot.writes
	w := &pendingWrite{ctx: ctx, prio: prio, fn: fn, queued: time.Now(), done: make(chan struct{}), record: record}
	w.fx.named = named
	if !q.push(w) {
		return ErrClosed
	}
	select {
	case <-w.done:
		return db.noteWrite(classify(w.err))
	case <-ctx.Done():
		if q.remove(w) {
			return ctx.Err()
		}
		<-w.done
		return db.noteWrite(classify(w.err))
	}
}

// queueWrite queues fn as one write of a coming group, like groupTx, and
// returns at once: for what a page records in passing, where the page must
// not wait for the disk (the first showing of a screen). Writes of one
// priority commit in the order they were queued, so an answer given after
// the screen was shown commits after its screen's record, or in the same
// group. fn's error is dropped; the write is lost if the server stops
// before its group commits.
// The write reports the crowd sessions it changes, as with sessionTx.
func (db *DB) queueWrite(prio int, fn func(context.Context, *sql.Tx) error) {
	w := &pendingWrite{ctx: context.Background(), prio: prio, fn: fn, queued: time.Now(), done: make(chan struct{}), record: true}
	w.fx.named = true
	db.hot.writes.push(w)
}

// push queues a write and wakes the writer; false once the queue is closed.
func (q *writeQueue) push(w *pendingWrite) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.seq++
	w.seq = q.seq
	q.waiting[w.prio] = append(q.waiting[w.prio], w)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// remove takes a waiting write out of the queue; false if a group has it.
func (q *writeQueue) remove(w *pendingWrite) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	ws := q.waiting[w.prio]
	if i := slices.Index(ws, w); i >= 0 {
		q.waiting[w.prio] = slices.Delete(ws, i, i+1)
		return true
	}
	return false
}

// take forms the next group by the rule of groupMax and groupShare, in the
// order the writes were queued.
func (q *writeQueue) take() []*pendingWrite {
	q.mu.Lock()
	defer q.mu.Unlock()
	a, b := len(q.waiting[prioAnswer]), len(q.waiting[prioArrival])
	if a+b == 0 {
		return nil
	}
	na := min(a, max(groupShare, groupMax-b))
	nb := min(b, groupMax-na)
	group := make([]*pendingWrite, 0, na+nb)
	group = append(group, q.waiting[prioAnswer][:na]...)
	group = append(group, q.waiting[prioArrival][:nb]...)
	q.waiting[prioAnswer] = shift(q.waiting[prioAnswer], na)
	q.waiting[prioArrival] = shift(q.waiting[prioArrival], nb)
	slices.SortFunc(group, func(x, y *pendingWrite) int { return int(x.seq - y.seq) })
	q.groups++
	return group
}

// few tells whether a handful of writes wait, not none.
func (q *writeQueue) few() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.waiting[prioAnswer]) + len(q.waiting[prioArrival])
	return n > 0 && n < 16
}

// shift drops the first n writes, letting go of their pointers.
func shift(ws []*pendingWrite, n int) []*pendingWrite {
	clear(ws[:n])
	if n == len(ws) {
		return ws[:0]
	}
	return ws[n:]
}

// startWriter starts the goroutine that commits participants' writes and,
// pipelined, the one that syncs the log after them.
func (db *DB) startWriter(pipelined bool) {
	q := &db.hot.writes
	q.init()
	if pipelined {
		q.toSync, q.synced = make(chan committedGroup, 64), make(chan struct{})
		go db.runSyncer()
	}
	go db.runWriter()
}

// stopWriter lets the writer commit what is queued, then ends it; later
// writes get ErrClosed.
func (db *DB) stopWriter() {
	q := &db.hot.writes
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	q.mu.Unlock()
	close(q.stop)
	<-q.ended
	if q.toSync != nil {
		close(q.toSync)
		<-q.synced
	}
}

func (db *DB) runWriter() {
	q := &db.hot.writes
	defer close(q.ended)
	idle := time.NewTicker(otherWritesEvery)
	defer idle.Stop()
	for {
		if q.few() {
			// Let the requests on their way join: a group costs one
			// commit whatever its size, so when few writes wait the CPU
			// is better spent on the handlers for a moment.
			runtime.Gosched()
		}
		if group := q.take(); len(group) > 0 {
			db.commitGroup(group)
			continue
		}
		select {
		case <-idle.C:
			db.checkDataVersion(context.Background(), db.write)
		case <-q.wake:
		case <-q.stop:
			for group := q.take(); len(group) > 0; group = q.take() {
				db.commitGroup(group)
			}
			return
		}
	}
}

// commitGroup runs a group's writes in one transaction, each in its own
// savepoint, commits, and only then tells every caller its outcome. A
// failure that ends the transaction itself (a full disk, an I/O error)
// fails the writes already run in it; the rest go on in a new one.
func (db *DB) commitGroup(group []*pendingWrite) {
	ctx := context.Background()
	db.preparePending(ctx)
	for len(group) > 0 {
		group = db.commitSome(ctx, group)
	}
}

// commitSome runs writes in one transaction until they are all run or the
// transaction breaks, and returns the writes not run.
func (db *DB) commitSome(ctx context.Context, group []*pendingWrite) []*pendingWrite {
	stats := &db.hot.writes.stats
	started := time.Now()
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		stats.finish(group, started, fmt.Errorf("write: begin: %w", err))
		return nil
	}
	defer tx.Rollback()
	q := db.q(tx)
	db.checkDataVersion(ctx, q)
	for i, w := range group {
		w.err = runIsolated(ctx, q, w)
		if w.err == errTxLost {
			stats.finish(group[:i+1], started, errors.New("write: the transaction of its group failed and was rolled back"))
			return group[i+1:]
		}
	}
	committing := time.Now()
	if err := tx.Commit(); err != nil {
		stats.finish(group, started, fmt.Errorf("write: commit: %w", err))
		return nil
	}
	stats.addGroup(time.Since(started), time.Since(committing))
	db.noteCommit()
	// Readers see the group now: so does the cache of sessions' screens,
	// before anyone hears the outcome.
	for _, w := range group {
		if w.err == nil {
			db.hot.screens.apply(&w.fx)
		}
	}
	if q := &db.hot.writes; q.toSync != nil {
		q.toSync <- committedGroup{group, started}
		return nil
	}
	stats.finish(group, started, nil)
	return nil
}

// runSyncer acknowledges committed groups once the log holding them is
// synced: one fsync for every group committed before it began. A COMMIT
// with synchronous=NORMAL has written the group's frames, commit frame
// included, to the log (and SQLite syncs the log's header after each
// reset and around checkpoints), so once that file is synced the group is
// as durable as with FULL.
func (db *DB) runSyncer() {
	q := &db.hot.writes
	defer close(q.synced)
	var wal walFile
	defer wal.close()
	for g := range q.toSync {
		batch := []committedGroup{g}
	more:
		for {
			select {
			case g, ok := <-q.toSync:
				if !ok {
					break more
				}
				batch = append(batch, g)
			default:
				break more
			}
		}
		t := time.Now()
		err := wal.sync(db.path + "-wal")
		q.stats.addSync(time.Since(t))
		if err != nil {
			err = fmt.Errorf("write: sync the log: %w", err)
		}
		for _, g := range batch {
			q.stats.finish(g.writes, g.started, err)
		}
	}
}

// walFile is the write-ahead log opened for syncing, reopened if SQLite
// replaced the file.
type walFile struct {
	f *os.File
}

func (w *walFile) sync(path string) error {
	if w.f != nil {
		fi, err1 := w.f.Stat()
		cur, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(fi, cur) {
			w.close()
		}
	}
	if w.f == nil {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		w.f = f
	}
	return w.f.Sync()
}

func (w *walFile) close() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

// otherWritesEvery is how often an idle writer looks for writes by
// another process (checkDataVersion); a busy one looks at every group.
const otherWritesEvery = time.Second

// checkDataVersion reads the writer connection's PRAGMA data_version
// (through q, the connection or its transaction), which changes only when
// another connection — another process on the same file — commits: what
// this process keeps of the database is then dropped (DB.forgetKept),
// since it may predate that write. The writer goroutine alone calls it.
func (db *DB) checkDataVersion(ctx context.Context, q querier) {
	var v int64
	if err := q.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return
	}
	w := &db.hot.writes
	if w.dataVersion != 0 && v != w.dataVersion {
		db.forgetKept()
	}
	w.dataVersion = v
}

// errTxLost: a savepoint could not be released or rolled back, so the
// transaction is gone.
var errTxLost = errors.New("transaction lost")

// runIsolated runs one write inside SAVEPOINT w.
func runIsolated(ctx context.Context, q prepQ, w *pendingWrite) (err error) {
	if _, err := q.ExecContext(ctx, `SAVEPOINT w`); err != nil {
		return errTxLost
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("write panicked: %v\n%s", p, debug.Stack())
		}
		if err == nil {
			if _, rerr := q.ExecContext(ctx, `RELEASE w`); rerr != nil {
				err = errTxLost
			}
			return
		}
		if _, rerr := q.ExecContext(ctx, `ROLLBACK TO w`); rerr != nil {
			err = errTxLost
		} else if _, rerr := q.ExecContext(ctx, `RELEASE w`); rerr != nil {
			err = errTxLost
		}
	}()
	return w.fn(context.WithValue(context.WithoutCancel(w.ctx), effectKey{}, &w.fx), q.tx)
}
