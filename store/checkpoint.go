package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// The log's checkpoints — copying the pages of the write-ahead log back
// into the database file, with an fsync of each — ran inside whichever
// COMMIT pushed the log past 1,000 pages (SQLite's wal_autocheckpoint),
// and so inside the one writer's group: at 2,000 participants a commit
// took about twice as long as with the checkpoints beside it (the figures:
// docs/performance.md#the-third-pass). The writer's connection now has
// wal_autocheckpoint(0), and a goroutine of its own, on a connection of
// its own, runs a PASSIVE checkpoint after commits, at most every
// checkpointEvery. PASSIVE neither waits for nor blocks the writer or the
// readers; the writer starts the log afresh once a checkpoint has copied
// all of it, as before. With Options.Replicated, Litestream owns the
// checkpoints and none of this runs.

// checkpointEvery is the least time between two checkpoints.
const checkpointEvery = 50 * time.Millisecond

// checkpointer is the goroutine that checkpoints the log.
type checkpointer struct {
	conn      *sql.DB
	committed chan struct{} // a commit happened (capacity 1)
	stop      chan struct{}
	ended     chan struct{}
	once      sync.Once
}

// startCheckpointer opens the checkpointer's connection and starts it.
func (db *DB) startCheckpointer(file, synchronous string) error {
	c, err := sql.Open("sqlite", DSN(file, false, synchronous))
	if err != nil {
		return err
	}
	c.SetMaxOpenConns(1)
	c.SetMaxIdleConns(1)
	cp := &checkpointer{conn: c, committed: make(chan struct{}, 1), stop: make(chan struct{}), ended: make(chan struct{})}
	db.checkpoints = cp
	go cp.run()
	return nil
}

// noteCommit tells the checkpointer the log grew; it never waits.
func (db *DB) noteCommit() {
	if cp := db.checkpoints; cp != nil {
		select {
		case cp.committed <- struct{}{}:
		default:
		}
	}
}

func (cp *checkpointer) run() {
	defer close(cp.ended)
	for {
		select {
		case <-cp.stop:
			return
		case <-cp.committed:
		}
		// A failed checkpoint (a full disk, say) leaves the log as it is;
		// the next commit tries again, and the data is safe in the log.
		cp.conn.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
		select {
		case <-cp.stop:
			return
		case <-time.After(checkpointEvery):
		}
	}
}

// stopCheckpointer ends the checkpointer and closes its connection.
func (db *DB) stopCheckpointer() {
	cp := db.checkpoints
	if cp == nil {
		return
	}
	cp.once.Do(func() {
		close(cp.stop)
		<-cp.ended
		cp.conn.Close()
	})
}
