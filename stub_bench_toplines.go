package main

import "context"

// benchToplines is a placeholder until bench_toplines.go is written; delete this file then.
func benchToplines(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
