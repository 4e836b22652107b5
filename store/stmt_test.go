package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// waitQueued waits until the queue holds n waiters in all.
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
	t.Fatalf("the queue never held %d waiters", n)
}

// TestWriteQueueOrder: answers pass arrivals, but at most maxPass in a row,
// and each priority keeps its arrival order.
func TestWriteQueueOrder(t *testing.T) {
	var q writeQueue
	ctx := context.Background()
	if err := q.acquire(ctx, prioAnswer); err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 20)
	enqueue := func(prio int, name string, queued int) {
		go func() {
			if err := q.acquire(ctx, prio); err != nil {
				t.Error(err)
				return
			}
			order <- name
			q.release()
		}()
		waitQueued(t, &q, queued)
	}
	n := 0
	for i := 1; i <= 3; i++ {
		n++
		enqueue(prioArrival, fmt.Sprintf("A%d", i), n)
	}
	for i := 1; i <= 10; i++ {
		n++
		enqueue(prioAnswer, fmt.Sprintf("B%d", i), n)
	}
	q.release()
	var got []string
	for range 13 {
		select {
		case s := <-order:
			got = append(got, s)
		case <-time.After(5 * time.Second):
			t.Fatalf("the queue stalled after %v", got)
		}
	}
	want := "B1 B2 B3 B4 A1 B5 B6 B7 B8 A2 B9 B10 A3"
	if strings.Join(got, " ") != want {
		t.Fatalf("grant order %v, want %s", got, want)
	}
	// The last holder releases: the queue ends free.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		q.mu.Lock()
		busy := q.busy
		q.mu.Unlock()
		if !busy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the queue is still busy with nobody holding it")
		}
	}
}

// TestWriteQueueCancel: a waiter that gives up leaves the queue, and the
// next one still gets its turn.
func TestWriteQueueCancel(t *testing.T) {
	var q writeQueue
	q.acquire(context.Background(), prioAnswer)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- q.acquire(ctx, prioAnswer) }()
	waitQueued(t, &q, 1)
	got := make(chan struct{})
	go func() {
		q.acquire(context.Background(), prioArrival)
		close(got)
	}()
	waitQueued(t, &q, 2)
	cancel()
	if err := <-gaveUp; err == nil {
		t.Fatal("a cancelled waiter got the turn")
	}
	q.release()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter after a cancelled one never got its turn")
	}
	q.release()
}
