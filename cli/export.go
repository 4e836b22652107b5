package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/studies"
)

const exportUsage = `Usage: pragmalab export --study ID --what WHAT [--out FILE [--force]] [--db FILE]

WHAT is one of:
  judgements   the expert judgements file, for analyze agreement
  ratings      the crowd ratings file, for analyze toplines
  participants the crowd participants (Prolific ids, times, status, failed checks)
  items        the cleaned data set as CSV (items-jsonl: as JSON Lines)
  context-answers      the context answers file, for analyze context
  explanation-ratings  the explanation ratings file, for analyze explanations

--out creates FILE readable by its owner only (mode 0600: the files hold
participants' answers and ids) and refuses to replace an existing file
unless --force is given.

The columns of each file are in docs/formats.md#exports.

`

// runExport is `pragmalab export`.
func runExport(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("export", exportUsage, env)
	studyID := fs.Int64("study", 0, "the study to export")
	what := fs.String("what", "", "what to export")
	out := fs.String("out", "", "output file (default: standard output); created readable by its owner only (0600)")
	force := fs.Bool("force", false, "replace --out if it exists")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *studyID <= 0 || *what == "" {
		return usagef("export: --study and --what are required")
	}
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	if _, err := svc.store.Study(ctx, *studyID); err != nil {
		return usagef("export: %s", domain.ErrorMessage(err))
	}
	var write func(io.Writer) error
	switch *what {
	case "judgements":
		write = func(w io.Writer) error { return svc.store.ExportJudgements(ctx, *studyID, w) }
	case "ratings":
		write = func(w io.Writer) error { return svc.store.ExportCrowdRatings(ctx, *studyID, w, false) }
	case "participants":
		write = func(w io.Writer) error { return svc.store.ExportCrowdParticipants(ctx, *studyID, w) }
	case "context-answers":
		write = func(w io.Writer) error { return svc.store.ExportContextAnswers(ctx, *studyID, w) }
	case "explanation-ratings":
		write = func(w io.Writer) error { return svc.store.ExportExplanationRatings(ctx, *studyID, w) }
	case "items", "items-jsonl":
		items, err := svc.store.CleanedItems(ctx, *studyID)
		if err != nil {
			return err
		}
		write = func(w io.Writer) error {
			if *what == "items" {
				return itemfiles.WriteItemsCSV(w, items)
			}
			return itemfiles.WriteItemsJSONL(w, items)
		}
	default:
		return usagef("export: unknown --what %q", *what)
	}
	if *out == "" {
		if err := write(env.stdout); err != nil {
			return err
		}
	} else if err := writeOutFile(*out, *force, write); err != nil {
		return err
	}
	if *what != "items" && *what != "items-jsonl" {
		// The study's answers up to now are in a file: deleting the study
		// no longer asks twice for them.
		return svc.store.MarkExported(ctx, *studyID)
	}
	return nil
}

// writeOutFile writes an export to path, created with mode 0600 since it
// holds participants' data. An existing file is refused unless force is
// set; then it is replaced, and its mode narrowed to 0600 too. A failed
// write is reported, and a file this call created is removed, so no half
// export is left behind under the name asked for.
func writeOutFile(path string, force bool, write func(io.Writer) error) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("export: %s already exists; give --force to replace it", path)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	return nil
}
