package main

import "context"

// runScore is a placeholder until cmd_score.go is written; delete this file then.
func runScore(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
