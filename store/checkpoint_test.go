package store

import (
	"context"
	"os"
	"testing"
	"time"
)

// The writer's connection never checkpoints (wal_autocheckpoint(0)): the
// checkpointer must copy the log into the database file, or the log would
// grow without end and the file would hold nothing written since it
// opened.
func TestCheckpointsBesideTheWriter(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	size := func() int64 {
		fi, err := os.Stat(db.Path())
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	if _, err := db.exec(ctx, `CREATE TABLE zz_pages (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := db.exec(ctx, `INSERT INTO zz_pages (b) VALUES (randomblob(1 << 20))`); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for size() < before+4<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("the database file stayed at %d bytes after 4 MiB were committed: no checkpoint ran", size())
		}
		time.Sleep(10 * time.Millisecond)
	}
	var mode int
	if err := db.write.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&mode); err != nil || mode != 0 {
		t.Fatalf("the writer's wal_autocheckpoint is %d (%v), want 0: its commits would checkpoint", mode, err)
	}
}

// With Litestream replicating, it owns the checkpoints: no checkpointer,
// and the writer's safety net stays.
func TestNoCheckpointerWhenReplicated(t *testing.T) {
	ctx := context.Background()
	db, err := OpenWith(ctx, t.TempDir()+"/r.db", Options{Replicated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pages int
	if err := db.write.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil || pages != ReplicatedCheckpointPages || db.checkpoints != nil {
		t.Fatalf("replicated: wal_autocheckpoint %d (%v), checkpointer %v", pages, err, db.checkpoints != nil)
	}
}
