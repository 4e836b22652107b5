// Package comparisons holds the use cases that set a study's models beside
// its humans (docs/architecture.md#comparisons): a human-task scoring
// job's comparison with the study's own answers (the alt-test, the
// distributions against the human ceiling, the correlation, calibration
// and expert replacement), the Analysis page's models beside the humans,
// and the LLM-echo check of a crowd study's participants against its
// models. It builds on the studies' readers and the runner's results, and
// keeps what it computed until the answers or the jobs change.
package comparisons

import (
	"pragmalab/kept"
	"pragmalab/store"
	"pragmalab/studies"
)

// Service is the comparisons' way in, over the same database as the
// studies.Service it reads through.
type Service struct {
	db      *store.DB
	studies *studies.Service
	// comparisons keeps the human-task jobs' comparisons with the humans
	// (measures.go).
	comparisons *kept.Cache[comparisonKey, JobHumanComparison]
	// echoes keeps the studies' LLM-echo outcomes (llm_echo.go).
	echoes *kept.Cache[echoKey, echoVerdicts]
}

// comparisonCacheJobs is how many jobs' comparisons with the humans a
// Service keeps: a study's Analysis page shows every finished human-task
// job's, so a study with more jobs than the cache holds computed them all
// again at each view.
const comparisonCacheJobs = 64

// echoCacheStudies is how many studies' LLM-echo outcomes a Service keeps,
// as many as the studies' analyses kept.
const echoCacheStudies = 8

// New returns the comparisons over db, reading the studies through svc.
func New(db *store.DB, svc *studies.Service) *Service {
	return &Service{db: db, studies: svc,
		comparisons: kept.New[comparisonKey, JobHumanComparison](comparisonCacheJobs),
		echoes:      kept.New[echoKey, echoVerdicts](echoCacheStudies)}
}

// Restarted returns a Service over the same database with nothing kept in
// memory, as a server that has just started: for tests and benchmarks
// that look at a first request.
func (c *Service) Restarted() *Service { return New(c.db, c.studies.Restarted()) }
