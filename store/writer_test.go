package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitQueued waits until the queue holds n waiting writes in all.
func waitQueued(t *testing.T, q *writeQueue, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		q.mu.Lock()
		got := len(q.waiting[0]) + len(q.waiting[1])
		q.mu.Unlock()
		if got == n {
			return
		}
	}
	t.Fatalf("the queue never held %d waiting writes", n)
}

// TestGroupShares: a group takes at most groupMax writes; when both kinds
// wait each gets at least half, a kind with fewer waiting leaves its share
// to the other, and the group runs in queue order.
func TestGroupShares(t *testing.T) {
	for _, tc := range []struct{ answers, arrivals, wantAnswers, wantArrivals int }{
		{200, 10, 118, 10},
		{10, 200, 10, 118},
		{200, 200, 64, 64},
		{5, 3, 5, 3},
		{0, 300, 0, 128},
		{300, 0, 128, 0},
	} {
		var q writeQueue
		q.init()
		// Answers and arrivals queued in turn while both remain.
		na, nb := tc.answers, tc.arrivals
		for na+nb > 0 {
			prio := prioAnswer
			if nb > 0 && (na == 0 || (na+nb)%2 == 1) {
				prio, nb = prioArrival, nb-1
			} else {
				na--
			}
			q.seq++
			q.waiting[prio] = append(q.waiting[prio], &pendingWrite{prio: prio, seq: q.seq})
		}
		g := q.take()
		got := [2]int{}
		for i, w := range g {
			got[w.prio]++
			if i > 0 && g[i-1].seq > w.seq {
				t.Errorf("%+v: group out of queue order at %d", tc, i)
			}
		}
		if got[prioAnswer] != tc.wantAnswers || got[prioArrival] != tc.wantArrivals {
			t.Errorf("%d answers and %d arrivals waiting: group took %d and %d, want %d and %d",
				tc.answers, tc.arrivals, got[prioAnswer], got[prioArrival], tc.wantAnswers, tc.wantArrivals)
		}
		// Every waiting write is served, oldest first, in a bounded number of groups.
		left := tc.answers + tc.arrivals - len(g)
		groups := 1
		for ; left > 0; groups++ {
			n := len(q.take())
			if n == 0 {
				t.Fatalf("%+v: %d writes left and an empty group", tc, left)
			}
			left -= n
		}
		if want := (tc.answers + tc.arrivals + groupMax - 1) / groupMax; groups != want {
			t.Errorf("%+v: %d groups, want %d", tc, groups, want)
		}
	}
}

// holdWriter makes the writer run a write that blocks until the returned
// function is called, so that the writes queued meanwhile form one group.
func holdWriter(t *testing.T, db *DB) func() {
	t.Helper()
	held, release := make(chan struct{}), make(chan struct{})
	go db.groupTx(context.Background(), prioAnswer, func(context.Context, *sql.Tx) error {
		close(held)
		<-release
		return nil
	})
	<-held
	return func() { close(release) }
}

// TestGroupWritesIsolated: one write of a group fails — by its own error
// after writing, or by a constraint — and gets its own error back with
// nothing of it kept, while the other writes of the same group commit.
func TestGroupWritesIsolated(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	if _, err := db.write.ExecContext(ctx, `INSERT INTO kv (key, value) VALUES ('taken', 'x')`); err != nil {
		t.Fatal(err)
	}
	release := holdWriter(t, db)
	insert := func(key string, then error) func(context.Context, *sql.Tx) error {
		return func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO kv (key, value) VALUES (?, 'v')`, key); err != nil {
				return fmt.Errorf("insert %s: %w", key, err)
			}
			return then
		}
	}
	refused := domain.Errorf(domain.ECONFLICT, "refused after writing")
	writes := []struct {
		key  string
		fn   func(context.Context, *sql.Tx) error
		want string // "" = committed
	}{
		{"a", insert("a", nil), ""},
		{"b", insert("b", refused), "refused after writing"},
		{"c", insert("c", nil), ""},
		{"taken", insert("taken", nil), "insert taken: constraint failed"},
		{"d", func(ctx context.Context, tx *sql.Tx) error {
			insert("d", nil)(ctx, tx)
			panic("a bug in one write")
		}, "write panicked: a bug in one write"},
		{"e", insert("e", nil), ""},
	}
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Go(func() { errs[i] = db.groupTx(ctx, prioAnswer, w.fn) })
		waitQueued(t, &db.hot.writes, i+1)
	}
	release()
	wg.Wait()
	rows, _ := db.read.QueryContext(ctx, `SELECT key FROM kv WHERE key IN ('a', 'b', 'c', 'd', 'e', 'taken') ORDER BY key`)
	var kept []string
	for rows.Next() {
		var k string
		rows.Scan(&k)
		kept = append(kept, k)
	}
	rows.Close()
	if got := strings.Join(kept, " "); got != "a c e taken" {
		t.Fatalf("rows kept: %q, want a c e taken", got)
	}
	for i, w := range writes {
		switch {
		case w.want == "" && errs[i] != nil:
			t.Errorf("write %s: %v, want committed", w.key, errs[i])
		case w.want != "" && (errs[i] == nil || !strings.Contains(errs[i].Error(), w.want)):
			t.Errorf("write %s: error %v, want %q", w.key, errs[i], w.want)
		}
	}
	if !errors.Is(errs[1], refused) {
		t.Errorf("the refused write got %v, not its own error", errs[1])
	}
	// They were one group: the writer ran two groups in all (the held
	// write's, then these six).
	if g := db.hot.writes.groups; g != 2 {
		t.Fatalf("%d groups ran, want 2 (the writes were not grouped)", g)
	}
}

// TestWriterSynchronousFull: the writer connection syncs every commit, so
// an acknowledged answer survives a power cut.
func TestWriterSynchronousFull(t *testing.T) {
	db := mustOpenDB(t)
	var sync int
	if err := db.write.QueryRowContext(context.Background(), `PRAGMA synchronous`).Scan(&sync); err != nil || sync != 2 {
		t.Fatalf("writer PRAGMA synchronous = %d, %v; want 2 (FULL)", sync, err)
	}
	// And through the write queue's own transactions.
	err := db.groupTx(context.Background(), prioAnswer, func(ctx context.Context, tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync)
	})
	if err != nil || sync != 2 {
		t.Fatalf("PRAGMA synchronous in a group = %d, %v; want 2", sync, err)
	}
}

// TestGroupCancel: a write whose caller gives up while it waits leaves the
// queue and never runs; the writes behind it still do.
func TestGroupCancel(t *testing.T) {
	db := mustOpenDB(t)
	release := holdWriter(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan string, 2)
	gaveUp := make(chan error, 1)
	go func() {
		gaveUp <- db.groupTx(ctx, prioAnswer, func(context.Context, *sql.Tx) error { ran <- "cancelled"; return nil })
	}()
	waitQueued(t, &db.hot.writes, 1)
	done := make(chan error, 1)
	go func() {
		done <- db.groupTx(context.Background(), prioArrival, func(context.Context, *sql.Tx) error { ran <- "next"; return nil })
	}()
	waitQueued(t, &db.hot.writes, 2)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled write: %v, want context.Canceled", err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := <-ran; got != "next" {
		t.Fatalf("ran %q", got)
	}
	select {
	case got := <-ran:
		t.Fatalf("the cancelled write ran too (%q)", got)
	default:
	}
}

// TestGroupAfterClose: Close commits what is queued; later writes are refused.
func TestGroupAfterClose(t *testing.T) {
	db := mustOpenDB(t)
	db.Close()
	err := db.groupTx(context.Background(), prioAnswer, func(context.Context, *sql.Tx) error { return nil })
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("write after Close: %v, want ErrClosed", err)
	}
}

// TestPipelinedSync: with the log synced beside the writer, every write is
// still committed before its caller returns, the syncer did the syncing,
// and the connection itself runs synchronous=NORMAL.
func TestPipelinedSync(t *testing.T) {
	db, err := OpenWith(context.Background(), t.TempDir()+"/p.db", Options{Synchronous: "PIPELINED"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range 50 {
		wg.Go(func() {
			errs[i] = db.groupTx(ctx, prioAnswer, func(ctx context.Context, tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO kv (key, value) VALUES (?, 'v')`, fmt.Sprint("k", i))
				return err
			})
			if errs[i] == nil {
				var n int
				db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM kv WHERE key = ?`, fmt.Sprint("k", i)).Scan(&n)
				if n != 1 {
					errs[i] = fmt.Errorf("k%d acknowledged but not readable", i)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	m, _ := db.Metrics(ctx)
	if m.LogSyncs == 0 {
		t.Fatal("no sync of the log was counted")
	}
	var s int
	db.write.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&s)
	if s != 1 {
		t.Fatalf("PRAGMA synchronous = %d, want 1 (NORMAL: the syncer does the syncing)", s)
	}
}
