package main

import "context"

// benchScoring is a placeholder until bench_scoring.go is written; delete this file then.
func benchScoring(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
