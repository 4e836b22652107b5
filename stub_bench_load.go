package main

import "context"

// benchLoad is a placeholder until bench_load.go is written; delete this file then.
func benchLoad(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
