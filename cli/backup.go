package cli

import (
	"context"
	"fmt"
	"os"

	"pragmalab/studies"
)

// runBackup is `pragmalab backup`: a consistent copy of the live database,
// taken while the server keeps running.
func runBackup(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("backup", "Usage: pragmalab backup --out FILE [--db FILE]\n\nWrites a consistent copy of the database while the server runs.\n\n", env)
	out := fs.String("out", "", "file to write the backup to (must not exist)")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("backup: --out is required")
	}
	if _, err := os.Stat(*out); err == nil {
		return usagef("backup: %s already exists", *out)
	}
	if _, err := os.Stat(*dbPath); err != nil {
		return usagef("backup: no database at %s", *dbPath)
	}
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.store.Backup(ctx, *out); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "backup written to %s\n", *out)
	return nil
}
