package main

import "context"

// runImport is a placeholder until cmd_import.go is written; delete this file then.
func runImport(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
