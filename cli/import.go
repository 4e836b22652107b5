package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"pragmalab/domain"
	"pragmalab/studies"
)

const importUsage = `Usage: pragmalab import --study ID --file FILE [--format csv|jsonl|impaqts|outputs] [--db FILE]

Imports implicature items (CSV or JSON Lines) into a study, all or nothing:
one bad row rejects the file with a message naming its line and field.
Context and explain studies take the IMPAQTS-PID TSV as published
(--format impaqts, their default) and explain studies also model outputs
(--format outputs: CSV with item_id, strategy, model, output).

`

// runImport is `pragmalab import`.
func runImport(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("import", importUsage, env)
	studyID := fs.Int64("study", 0, "the study to import into")
	file := fs.String("file", "", "the file to import")
	format := fs.String("format", "", "csv, jsonl, impaqts or outputs (default: impaqts for context and explain studies, else from the file name)")
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
	svc, err := studies.Open(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	s, err := svc.Study(ctx, *studyID)
	if err != nil {
		return usagef("import: %s", domain.ErrorMessage(err))
	}
	if *format == "impaqts" || *format == "outputs" || (*format == "" && (s.Kind == domain.KindContext || s.Kind == domain.KindExplain)) {
		return importImpaqts(ctx, svc, s, *format, *file, f, env)
	}
	name := filepath.Base(*file)
	switch *format {
	case "":
	case "csv", "jsonl":
		name = "file." + *format
	default:
		return usagef("import: unknown --format %q", *format)
	}
	n, err := svc.ImportItemFileAs(ctx, cliActor, s, name, *file, f)
	if err != nil {
		if domain.ErrorCode(err) == domain.EINTERNAL {
			return err
		}
		return usagef("import %s: nothing was imported: %s", *file, domain.ErrorMessage(err))
	}
	fmt.Fprintf(env.stdout, "imported %d items into study %d (%s)\n", n, s.ID, s.Name)
	return nil
}
