package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"pragmalab/domain"
	"pragmalab/studies"
)

const importUsage = `Usage: pragmalab import --study ID --file FILE [--format csv|jsonl|impaqts|outputs] [--db FILE]
       pragmalab import --study ID --file FILE --update [--clear-missing] [--dry-run] [--note TEXT] [--db FILE]

Imports implicature items (CSV or JSON Lines) into a study, all or nothing:
one bad row rejects the file with a message naming its line and field. A
judgement study takes its own items file, one row per item and condition
(item, condition, sentence, and optionally context, check, training;
docs/formats.md#judgement-items-csv), held to the study's conditions and
scale.
Context and explain studies take the IMPAQTS-PID TSV as published
(--format impaqts, their default) and explain studies also model outputs
(--format outputs: CSV with item_id, strategy, model, output).

With --update the file corrects an expert or crowd study's items instead: items matched
by id get a new version, new ids are added, items left out stay; the
optional fields the file leaves out (context, negation, strengthening,
neutral, check, training) keep their text unless --clear-missing is given.
It prints every change and every kept or cleared field, then applies all
of it in one transaction, or nothing with --dry-run.

`

// runImport is `pragmalab import`.
func runImport(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("import", importUsage, env)
	studyID := fs.Int64("study", 0, "the study to import into")
	file := fs.String("file", "", "the file to import")
	format := fs.String("format", "", "csv, jsonl, impaqts or outputs (default: impaqts for context and explain studies, else from the file name)")
	update := fs.Bool("update", false, "correct the study's items with the file (matched by id) instead of importing new ones")
	clear := fs.Bool("clear-missing", false, "with --update: empty the optional fields the file leaves out instead of keeping them")
	dryRun := fs.Bool("dry-run", false, "with --update: print the changes, apply nothing")
	note := fs.String("note", "", "with --update: why, kept with each new version")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *studyID <= 0 || *file == "" {
		return usagef("import: --study and --file are required")
	}
	if !*update && (*clear || *dryRun || *note != "") {
		return usagef("import: --clear-missing, --dry-run and --note go with --update")
	}
	f, err := os.Open(*file)
	if err != nil {
		return usagef("import: %v", err)
	}
	defer f.Close()
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	s, err := svc.store.Study(ctx, *studyID)
	if err != nil {
		return usagef("import: %s", domain.ErrorMessage(err))
	}
	if importsPassages(*format, s.Kind) {
		return importImpaqts(ctx, svc, s, *format, *file, f, env)
	}
	if *update {
		return updateItems(ctx, svc, s, filepath.Base(*file), *format, f, *clear, *dryRun, *note, env)
	}
	return importItems(ctx, svc, s, *format, *file, f, env)
}

// importsPassages reports whether the file holds passages or model
// outputs rather than items: said by --format, or by default for context
// and explain studies.
func importsPassages(format, kind string) bool {
	return format == "impaqts" || format == "outputs" || (format == "" && (kind == domain.KindContext || kind == domain.KindExplain))
}

// importItems adds the items of a CSV or JSONL file to the study, their
// format given by --format or else by the file name.
func importItems(ctx context.Context, svc *app, s *domain.Study, format, file string, f io.Reader, env *Env) error {
	name := filepath.Base(file)
	switch format {
	case "":
	case "csv", "jsonl":
		name = "file." + format
	default:
		return usagef("import: unknown --format %q", format)
	}
	n, err := svc.ImportItemFileAs(ctx, cliActor, s, name, file, f)
	if err != nil {
		if domain.ErrorCode(err) == domain.EINTERNAL {
			return err
		}
		return usagef("import %s: nothing was imported: %s", file, domain.ErrorMessage(err))
	}
	fmt.Fprintf(env.stdout, "imported %d items into study %d (%s)\n", n, s.ID, domain.TerminalSafe(s.Name))
	return nil
}
