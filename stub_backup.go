package main

import "context"

// runBackup is a placeholder until cmd_backup.go is written; delete this file then.
func runBackup(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
