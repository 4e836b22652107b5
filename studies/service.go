package studies

import (
	"time"

	"pragmalab/domain"
	"pragmalab/store"
)

// Service is the one way in to pragmalab's use cases for the web pages
// and the command line (docs/architecture.md#studies): handlers and
// commands parse their input, call one method of a Service and render or
// print what it returns; they never call the store themselves. Each area
// keeps its methods in a file of its own (crowd_session.go, expert_session.go,
// admin_study.go, jobs.go, …), so each rule lives in one place.
type Service struct {
	db  *store.DB
	now func() time.Time
	// analyses keeps the studies' analyses (analysis_cache.go).
	analyses *analysisCache
	// comparisons keeps the human-task jobs' comparisons with the humans
	// (jobs_human_measures.go).
	comparisons *keptCache[comparisonKey, JobHumanComparison]
	// echoes keeps the studies' LLM-echo outcomes (llm_echo.go).
	echoes *keptCache[echoKey, echoVerdicts]
	// replication reports the replica's state (replication.go); nil: none.
	replication func() domain.Replication
}

// comparisonCacheJobs is how many jobs' comparisons with the humans a
// Service keeps: a study's Analysis page shows every finished human-task
// job's, so a study with more jobs than the cache holds computed them all
// again at each view.
const comparisonCacheJobs = 64

// New returns the Service over db; now is the clock (UTC), so tests can
// control it (nil: time.Now).
func New(db *store.DB, now func() time.Time) *Service {
	if now == nil {
		now = func() time.Time { return time.Now().UTC() }
	}
	return &Service{db: db, now: now, analyses: newAnalysisCache(analysisCacheStudies),
		comparisons: newKeptCache[comparisonKey, JobHumanComparison](comparisonCacheJobs),
		echoes:      newKeptCache[echoKey, echoVerdicts](analysisCacheStudies)}
}

// Restarted returns a Service over the same database with nothing kept in
// memory (no analysis computed yet), as a server that has just started:
// for benchmarks that time a first request.
func (s *Service) Restarted() *Service { return New(s.db, s.now) }
