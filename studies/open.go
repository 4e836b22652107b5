package studies

import (
	"context"
	"time"

	"pragmalab/store"
)

// OpenOptions say how Open opens the database.
type OpenOptions struct {
	// Synchronous is how a participant's write is made durable: "FULL"
	// (the default, ""), "PIPELINED" or "NORMAL" (only for measuring what
	// durability costs); docs/architecture.md#write-queue.
	Synchronous string
	// Now is the clock (UTC); nil: time.Now.
	Now func() time.Time
	// Replicated: Litestream replicates the file and owns its checkpoints
	// (store.Options.Replicated).
	Replicated bool
}

// Open opens (creating and migrating it if need be) the database file at
// path and returns the Service over it, for a command that needs nothing
// else; Close closes it. The web server, which takes the store itself, is
// given one by the command line's composition root instead (cli/open.go).
func Open(ctx context.Context, path string, o OpenOptions) (*Service, error) {
	db, err := store.OpenWith(ctx, path, store.Options{Synchronous: o.Synchronous})
	if err != nil {
		return nil, err
	}
	return New(db, o.Now), nil
}

// Close closes the database under the Service; nothing may use it after.
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it the database's lifecycle, owned by Open.
func (s *Service) Close() error { return s.db.Close() }

// DSN is the connection string Open gives SQLite for the file (readOnly:
// the read pool's), with its pragmas; synchronous is "FULL" or "NORMAL".
// The load benchmark's ceiling opens its own file with it, so it measures
// SQLite configured exactly as pragmalab's database is.
func DSN(file string, readOnly bool, synchronous string) string {
	return store.DSN(file, readOnly, synchronous)
}
