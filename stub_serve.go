package main

import "context"

// runServe is a placeholder until cmd_serve.go is written; delete this file then.
func runServe(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
