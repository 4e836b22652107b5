package seed

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"pragmalab/store"
)

// mustOpenDB is a new database in the test's folder, with a fixed clock.
func mustOpenDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Now = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { db.Close() })
	return db
}
