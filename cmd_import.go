package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"pragmalab/handlers"
	"pragmalab/store"
)

const importUsage = `Usage: pragmalab import --study ID --file FILE [--format csv|jsonl] [--db FILE]

Imports implicature items (CSV or JSON Lines) into a study, all or nothing:
one bad row rejects the file with a message naming its line and field.

`

// runImport is `pragmalab import`.
func runImport(ctx context.Context, args []string, env *cli) error {
	fs := newFlagSet("import", importUsage, env)
	studyID := fs.Int64("study", 0, "the study to import into")
	file := fs.String("file", "", "the file to import")
	format := fs.String("format", "", "csv or jsonl (default: from the file name)")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *studyID <= 0 || *file == "" {
		return usagef("import: --study and --file are required")
	}
	f, err := os.Open(*file)
	if err != nil {
		return usagef("import: %v", err)
	}
	defer f.Close()
	db, err := store.Open(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := db.Study(ctx, *studyID)
	if err != nil {
		return usagef("import: %s", store.ErrorMessage(err))
	}
	name := filepath.Base(*file)
	switch *format {
	case "":
	case "csv", "jsonl":
		name = "file." + *format
	default:
		return usagef("import: unknown --format %q", *format)
	}
	items, err := handlers.ParseItemFile(name, f)
	if err == nil {
		err = db.ImportItems(ctx, s.ID, items)
	}
	if err != nil {
		if store.ErrorCode(err) == store.EINTERNAL {
			return err
		}
		return usagef("import %s: nothing was imported: %s", *file, store.ErrorMessage(err))
	}
	fmt.Fprintf(env.stdout, "imported %d items into study %d (%s)\n", len(items), s.ID, s.Name)
	return nil
}
