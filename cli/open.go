package cli

import (
	"context"

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

// newServerFunc builds the web server over the store openService opened;
// the Config's DB is filled in.
type newServerFunc func(ctx context.Context, cfg web.Config) (*web.Server, error)

// openService opens the database at path for a command that also starts
// the web server: the Service, and newServer to build the server over the
// same store when the command is ready to. Closing the Service closes the
// store.
func openService(ctx context.Context, path string, o studies.OpenOptions) (*studies.Service, newServerFunc, error) {
	db, err := store.OpenWith(ctx, path, store.Options{Synchronous: o.Synchronous, Replicated: o.Replicated})
	if err != nil {
		return nil, nil, err
	}
	newServer := func(ctx context.Context, cfg web.Config) (*web.Server, error) {
		cfg.DB = db
		return web.New(ctx, cfg)
	}
	return studies.New(db, o.Now), newServer, nil
}
