package main

import (
	"context"
	"errors"
)

// Placeholders replaced by each area's own cmd_*.go file.
var errNotBuilt = errors.New("not built yet")

func runServe(ctx context.Context, args []string, env *cli) error   { return errNotBuilt }
func runAnalyze(ctx context.Context, args []string, env *cli) error { return errNotBuilt }
func runScore(ctx context.Context, args []string, env *cli) error   { return errNotBuilt }
func runImport(ctx context.Context, args []string, env *cli) error  { return errNotBuilt }
func runExport(ctx context.Context, args []string, env *cli) error  { return errNotBuilt }
func runAdmin(ctx context.Context, args []string, env *cli) error   { return errNotBuilt }
func runBackup(ctx context.Context, args []string, env *cli) error  { return errNotBuilt }
func runBench(ctx context.Context, args []string, env *cli) error   { return errNotBuilt }
