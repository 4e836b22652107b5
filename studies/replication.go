package studies

import (
	"context"

	"pragmalab/domain"
	"pragmalab/store"
)

// WatchReplication gives the Service the state of the database's replica
// (replica.Replicator.Status), for the metrics page and /healthz.
func (s *Service) WatchReplication(fn func() domain.Replication) { s.replication = fn }

// Replication is the state of the database's replica; zero (On false)
// when the server runs without one.
func (s *Service) Replication() domain.Replication {
	if s.replication == nil {
		return domain.Replication{}
	}
	return s.replication()
}

// CheckDatabase checks a database file from elsewhere — a restored replica
// or a backup — without changing it: quick_check, the foreign keys and its
// migrations against this binary's (store.Verify).
func CheckDatabase(ctx context.Context, file string) (domain.DatabaseCheck, error) {
	return store.Verify(ctx, file)
}
