package main

import "context"

// runAdmin is a placeholder until cmd_admin.go is written; delete this file then.
func runAdmin(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
