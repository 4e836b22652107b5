package cli

import (
	"context"
	"time"

	"pragmalab/cli/seed"
	"pragmalab/comparisons"
	"pragmalab/recruit"
	"pragmalab/signin"
	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/web"
)

// This file is the command line's composition root, the one cli file that
// imports store (docs/architecture.md#cli): every command reaches the
// database through a studies.Service (studies.Open, or openService here),
// and only the web server, which is built over the store itself (its
// sessions, metrics and background job runner), is handed it, here: no
// other cli file holds the store.

// app is what a command works with: the use cases (studies.Service, whose
// Close closes the database), the plain reads and writes the command line
// declares in store.go, which the store answers itself, and Prolific.
type app struct {
	*studies.Service
	// comparisons sets the models beside the humans (score's comparison,
	// the LLM-echo check of analyze integrity and the exports).
	comparisons *comparisons.Service
	store       cliStore
	db          *store.DB
}

// openApp opens (creating and migrating it if need be) the database file
// at path for a command that does not start the web server.
func openApp(ctx context.Context, path string, o studies.OpenOptions) (*app, error) {
	db, err := store.OpenWith(ctx, path, store.Options{Synchronous: o.Synchronous, Replicated: o.Replicated})
	if err != nil {
		return nil, err
	}
	return newApp(db, o.Now), nil
}

// newApp is the app over an open store (tests and benchmarks that open
// the store themselves).
func newApp(db *store.DB, now func() time.Time) *app {
	svc := studies.New(db, now)
	cmp := comparisons.New(db, svc)
	svc.SetLLMEcho(cmp.LLMEcho)
	return &app{Service: svc, comparisons: cmp, store: db, db: db}
}

// signin is the accounts' and sign-in's use cases.
func (a *app) signin() *signin.Service { return signin.New(a.db, nil) }

// seed fills the database as participants and researchers would (the demo
// and the benchmarks' studies).
func (a *app) seed() *seed.Seeder { return seed.New(a.db) }

// recruit is the Prolific use cases, with the token read by getenv.
func (a *app) recruit(getenv func(string) string) *recruit.Service {
	r := recruit.New(a.db, getenv)
	r.SetLLMEcho(a.comparisons.LLMEcho)
	return r
}

// newServerFunc builds the web server over the store openService opened;
// the Config's DB is filled in.
type newServerFunc func(ctx context.Context, cfg web.Config) (*web.Server, error)

// openService opens the database at path for a command that also starts
// the web server: the Service, and newServer to build the server over the
// same store when the command is ready to. Closing the Service closes the
// store.
func openService(ctx context.Context, path string, o studies.OpenOptions) (*app, newServerFunc, error) {
	db, err := store.OpenWith(ctx, path, store.Options{Synchronous: o.Synchronous, Replicated: o.Replicated})
	if err != nil {
		return nil, nil, err
	}
	a := newApp(db, o.Now)
	newServer := func(ctx context.Context, cfg web.Config) (*web.Server, error) {
		cfg.DB = db
		if cfg.RCompanion == nil {
			cfg.RCompanion = RCompanionZip(a.Service)
		}
		if cfg.DataPackage == nil {
			cfg.DataPackage = PackageZip(a.Service, a.store)
		}
		return web.New(ctx, cfg)
	}
	return a, newServer, nil
}
