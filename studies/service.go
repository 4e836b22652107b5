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
	// echo runs the LLM-echo check on a crowd study's participants for its
	// admin page and participants export (SetLLMEcho); nil: not run.
	echo LLMEchoFunc
	// replication reports the replica's state (replication.go); nil: none.
	replication func() domain.Replication
}

// New returns the Service over db; now is the clock (UTC), so tests can
// control it (nil: time.Now).
func New(db *store.DB, now func() time.Time) *Service {
	if now == nil {
		now = func() time.Time { return time.Now().UTC() }
	}
	return &Service{db: db, now: now, analyses: newAnalysisCache(analysisCacheStudies)}
}

// SetLLMEcho has the crowd admin page and the participants export run the
// LLM-echo check with echo: the server and the CLI give
// comparisons.Service's, whose outcome is kept. The check compares the
// participants with the study's scoring jobs, so it lives with the other
// comparisons of models and humans (docs/architecture.md#comparisons),
// above this package.
func (s *Service) SetLLMEcho(echo LLMEchoFunc) { s.echo = echo }

// Restarted returns a Service over the same database with nothing kept in
// memory (no analysis computed yet), as a server that has just started:
// for benchmarks that time a first request.
func (s *Service) Restarted() *Service {
	r := New(s.db, s.now)
	r.echo = s.echo
	return r
}
