// Package seed fills a database the way participants and researchers
// would, without the web: the demo of the first start (pragmalab serve on
// a new database) and the studies the benchmarks time, and the read-back
// that checks no acknowledged answer was lost (docs/cli.md#bench). It
// writes through the store directly, as a fixture does, and makes each
// study through the same use cases the pages call (studies), ending with
// the go-live checklist, so the demo proves it passes.
package seed

import "pragmalab/store"

// Seeder seeds the database db.
type Seeder struct {
	db *store.DB
}

// New returns a Seeder over db.
func New(db *store.DB) *Seeder { return &Seeder{db: db} }
