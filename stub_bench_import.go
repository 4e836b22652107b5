package main

import "context"

// benchImport is a placeholder until bench_import.go is written; delete this file then.
func benchImport(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
