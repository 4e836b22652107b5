package main

import "context"

// runAnalyze is a placeholder until cmd_analyze.go is written; delete this file then.
func runAnalyze(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
