package cli

import (
	"context"

	"pragmalab/store"
	"pragmalab/studies"
)

// This file is the command line's composition root, the one cli file that
// imports store (docs/architecture.md#cli): every command reaches the
// database through a studies.Service (studies.Open, or openService here),
// and only the web server, which is built over the store itself (its
// sessions, metrics and background job runner), is handed it, from here.

// openService opens the database at path for a command that also starts
// the web server: the Service, and the store to give web.Config and
// nothing else. Closing the Service closes the store.
func openService(ctx context.Context, path string, o studies.OpenOptions) (*studies.Service, *store.DB, error) {
	db, err := store.OpenWith(ctx, path, store.Options{Synchronous: o.Synchronous})
	if err != nil {
		return nil, nil, err
	}
	return studies.New(db, o.Now), db, nil
}
