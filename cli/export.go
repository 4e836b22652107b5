package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"pragmalab/domain"
	"pragmalab/studies"
)

const exportUsage = `Usage: pragmalab export --study ID --what WHAT [--out FILE] [--db FILE]

WHAT is one of:
  judgements   the expert judgements file, for analyze agreement
  ratings      the crowd ratings file, for analyze toplines
  participants the crowd participants (Prolific ids, times, status, failed checks)
  items        the cleaned data set as CSV (items-jsonl: as JSON Lines)
  context-answers      the context answers file, for analyze context
  explanation-ratings  the explanation ratings file, for analyze explanations

The columns of each file are in docs/formats.md#exports.

`

// runExport is `pragmalab export`.
func runExport(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("export", exportUsage, env)
	studyID := fs.Int64("study", 0, "the study to export")
	what := fs.String("what", "", "what to export")
	out := fs.String("out", "", "output file (default: standard output)")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *studyID <= 0 || *what == "" {
		return usagef("export: --study and --what are required")
	}
	svc, err := studies.Open(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	if _, err := svc.Study(ctx, *studyID); err != nil {
		return usagef("export: %s", domain.ErrorMessage(err))
	}
	var write func(io.Writer) error
	switch *what {
	case "judgements":
		write = func(w io.Writer) error { return svc.ExportJudgements(ctx, *studyID, w) }
	case "ratings":
		write = func(w io.Writer) error { return svc.ExportCrowdRatings(ctx, *studyID, w, false) }
	case "participants":
		write = func(w io.Writer) error { return svc.ExportCrowdParticipants(ctx, *studyID, w) }
	case "context-answers":
		write = func(w io.Writer) error { return svc.ExportContextAnswers(ctx, *studyID, w) }
	case "explanation-ratings":
		write = func(w io.Writer) error { return svc.ExportExplanationRatings(ctx, *studyID, w) }
	case "items", "items-jsonl":
		items, err := svc.CleanedItems(ctx, *studyID)
		if err != nil {
			return err
		}
		write = func(w io.Writer) error {
			if *what == "items" {
				return studies.WriteItemsCSV(w, items)
			}
			return studies.WriteItemsJSONL(w, items)
		}
	default:
		return usagef("export: unknown --what %q", *what)
	}
	w := env.stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		defer bw.Flush()
		w = bw
	}
	if err := write(w); err != nil {
		return err
	}
	if *what != "items" && *what != "items-jsonl" {
		// The study's answers up to now are in a file: deleting the study
		// no longer asks twice for them.
		return svc.MarkExported(ctx, *studyID)
	}
	return nil
}
