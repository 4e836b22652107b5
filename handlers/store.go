package handlers

import "pragmalab/domain"

// Store is what the pages read and write directly, with no use case
// between them and the database: domain's small store interfaces, which
// the store satisfies as it is, and web.New hands over
// (docs/architecture.md#rules). Whatever decides something goes through
// Service, Recruit or SignIn instead.
type Store interface {
	domain.Stores
	domain.HealthStore
}
