// Package storetest opens the fresh databases the tests of every package
// above the store work on, one way.
package storetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"pragmalab/store"
)

// Clock is the fixed time Open's databases read, so tests that record
// times compare them exactly.
var Clock = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// Open opens a fresh database in the test's temporary folder, with the
// fixed clock, closed when the test ends.
func Open(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Now = func() time.Time { return Clock }
	t.Cleanup(func() { db.Close() })
	return db
}
