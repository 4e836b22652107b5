// Package web wires pragmalab's HTTP server: router, middleware, sessions,
// static files and graceful shutdown.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"pragmalab/comparisons"
	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/recruit"
	"pragmalab/signin"
	"time"

	"github.com/gorilla/sessions"

	"pragmalab/handlers"
	"pragmalab/runner"
	"pragmalab/store"
	"pragmalab/studies"
)

// Config is what the server needs from its caller.
type Config struct {
	DB  *store.DB
	Log *slog.Logger
	// SecureCookies marks cookies Secure; set it behind TLS.
	SecureCookies bool
	// TrustedProxyHeader names the header a trusted proxy sets to the
	// client's address (Fly-Client-IP on Fly.io); empty: none is believed.
	TrustedProxyHeader string
	// Getenv reads the API keys of scoring jobs (default os.Getenv).
	Getenv func(string) string
	// EntryLimit is how many new arrivals one client address may make at a
	// crowd study's entry URL per 10 minutes (0: 30; negative: no limit).
	EntryLimit int
	// PublicEndpointsOnly refuses scoring endpoints on loopback or private
	// addresses (link-local and metadata ones are refused always).
	PublicEndpointsOnly bool
	// Replication reports the state of the database's replica (serve
	// --replica); nil: none.
	Replication func() domain.Replication
	// RCompanion writes a study's R companion as a zip for the Analysis
	// page (cli.RCompanionZip); nil: the page does not offer it.
	RCompanion func(ctx context.Context, s *domain.Study, w io.Writer) error
	// DataPackage writes a crowd study's data package as a zip for the
	// crowd study page (cli.PackageZip); nil: the page does not offer it.
	DataPackage func(ctx context.Context, s *domain.Study, w io.Writer) error
}

// Server is pragmalab's HTTP server.
type Server struct {
	cfg     Config
	Handler *handlers.Handler
	// Jobs runs model-scoring jobs in the background while Serve runs.
	Jobs   *runner.Runner
	router http.Handler
}

// New builds the server: session keys come from the database, created on
// first start, so logins survive restarts and no key sits in a file.
func New(ctx context.Context, cfg Config) (*Server, error) {
	hashKey, err := cfg.DB.SecretKey(ctx, "session_hash_key", 64)
	if err != nil {
		return nil, err
	}
	blockKey, err := cfg.DB.SecretKey(ctx, "session_block_key", 32)
	if err != nil {
		return nil, err
	}
	cs := sessions.NewCookieStore(hashKey, blockKey)
	cs.Options = &sessions.Options{
		Path:     "/",
		MaxAge:   12 * 3600,
		HttpOnly: true,
		Secure:   cfg.SecureCookies,
		SameSite: http.SameSiteLaxMode,
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	// No secret reaches the log, whoever logs (docs/deploy.md#security).
	cfg.Log = slog.New(maskSecrets(cfg.Log.Handler(), cfg.Getenv, secretEnvNames()))
	svc := studies.New(cfg.DB, nil)
	svc.WatchReplication(cfg.Replication)
	cmp := comparisons.New(cfg.DB, svc)
	svc.SetLLMEcho(cmp.LLMEcho)
	h := handlers.New(svc, cs, cfg.Log)
	h.Comparisons = cmp
	h.SecureCookies = cfg.SecureCookies
	h.RCompanion = cfg.RCompanion
	h.DataPackage = cfg.DataPackage
	h.SetEntryLimit(cfg.EntryLimit)
	h.TrustedProxyHeader = cfg.TrustedProxyHeader
	if h.DeviceKey, err = cfg.DB.SecretKey(ctx, "device_cookie_key", 32); err != nil {
		return nil, err
	}
	if h.ScreenKey, err = cfg.DB.SecretKey(ctx, "screen_nonce_key", 32); err != nil {
		return nil, err
	}
	if h.TrapKey, err = cfg.DB.TrapKey(ctx); err != nil {
		return nil, err
	}
	oidc, err := signin.OIDCConfigFromEnv(cfg.Getenv)
	if err != nil {
		return nil, err
	}
	h.SignIn = signin.New(cfg.DB, nil)
	if oidc != nil {
		h.OIDC = h.SignIn.NewOIDC(*oidc, nil)
	}
	jobs := runner.New(cfg.DB, cfg.Log, cfg.Getenv, nil)
	jobs.PublicEndpointsOnly = cfg.PublicEndpointsOnly
	h.Jobs, h.Getenv, h.PublicEndpointsOnly = jobs, cfg.Getenv, cfg.PublicEndpointsOnly
	h.Store, h.Recruit = cfg.DB, recruit.New(cfg.DB, cfg.Getenv)
	if h.StudyTokens, err = prolific.NewTokenVerifier(cfg.Getenv, nil); err != nil {
		return nil, err
	}
	h.Recruit.SetLLMEcho(cmp.LLMEcho)
	s := &Server{cfg: cfg, Handler: h, Jobs: jobs}
	s.router = s.routes()
	return s, nil
}

// prolificActive reports whether a linked study is being run — open, or
// paused while those under way finish — so its Prolific submissions are
// worth syncing (docs/prolific.md#sync).
func (s *Server) prolificActive(ctx context.Context, studyID int64) bool {
	st, err := s.cfg.DB.Study(ctx, studyID)
	return err == nil && domain.IsCrowdKind(st.Kind) && (st.State == domain.StateOpen || st.State == domain.StatePaused)
}

// ServeHTTP lets tests drive the server with httptest.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// Serve answers on ln until ctx ends, then shuts down gracefully: requests
// under way (an answer being saved) get up to 15 s to finish.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.router,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute, // uploads of large files
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// The job runner resumes unfinished jobs now and stops with the server;
	// jobs it leaves unfinished resume at the next start.
	jobsCtx, stopJobs := context.WithCancel(context.WithoutCancel(ctx))
	jobsDone := make(chan struct{})
	go func() { s.Jobs.Run(jobsCtx); close(jobsDone) }()
	defer func() { stopJobs(); <-jobsDone }()
	// Linked Prolific studies are synced every minute while they run, so a
	// returned submission frees its slot within a minute (docs/prolific.md).
	if p := s.Handler.Recruit; p.Connection().Connected {
		syncDone := make(chan struct{})
		go func() { p.SyncLoop(jobsCtx, s.cfg.Log, time.Minute, s.prolificActive); close(syncDone) }()
		defer func() { stopJobs(); <-syncDone }()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.cfg.Log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
