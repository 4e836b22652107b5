package main

import "context"

// runExport is a placeholder until cmd_export.go is written; delete this file then.
func runExport(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
