package handlers

import "pragmalab/domain"

// Store is what the pages read and write directly, with no use case
// between them and the database: the store satisfies it as it is, and
// web.New hands it over (docs/architecture.md#rules). Whatever decides
// something goes through Service, Recruit or the sign-in instead.
type Store interface {
	domain.AccountStore
	domain.StudyStore
	domain.ItemStore
	domain.AnnotatorStore
	domain.ExportStore
	domain.AuditStore
	domain.JobStore
	domain.HealthStore
}
