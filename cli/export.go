package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/studies"
)

const exportUsage = `Usage: pragmalab export --study ID --what WHAT [--with-texts] [--out FILE [--force]] [--db FILE]
       pragmalab export --study ID --what package --out DIR [--with-prolific-ids] [--db FILE]

WHAT is one of:
  judgements   the expert judgements file, for analyze agreement
  ratings      the crowd ratings file, for analyze toplines (--with-texts:
               with the item texts each rating was given on); a judgement
               study's, for analyze conditions (--with-texts: the context
               and sentence of each rating's condition)
  participants the crowd participants (Prolific ids, times, status, failed checks)
  items        the cleaned data set as CSV (items-jsonl: as JSON Lines); a
               judgement study's in its items file's columns
  context-answers      the context answers file, for analyze context
  explanation-ratings  the explanation ratings file, for analyze explanations
  package      a crowd or judgement study's data package, ready to deposit: into the new
               directory --out DIR, datapackage.json (Frictionless Data
               Package, a Table Schema per CSV), ratings.csv,
               participants.csv, items.csv, design.json, codebook.md,
               methods.md and the R companion in r/. The participants are
               pseudonyms (p001, …) unless --with-prolific-ids is given
               (docs/formats.md#data-package)

--out creates FILE readable by its owner only (mode 0600: the files hold
participants' answers and ids) and refuses to replace an existing file
(a symbolic link too) unless --force is given; --force replaces FILE
itself, never the file a link points at.

The columns of each file are in docs/formats.md#exports.

--prolific-demographics (with --what participants) joins Prolific's
demographic export of the linked study as columns prefixed prolific_
(docs/prolific.md#demographics): without --yes it shows the call it would
make and writes nothing; if Prolific fails, nothing is written.

`

// runExport is `pragmalab export`.
func runExport(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("export", exportUsage, env)
	studyID := fs.Int64("study", 0, "the study to export")
	what := fs.String("what", "", "what to export")
	out := fs.String("out", "", "output file (default: standard output); created readable by its owner only (0600)")
	force := fs.Bool("force", false, "replace --out if it exists")
	demographics := fs.Bool("prolific-demographics", false, "participants: join Prolific's demographic export (prolific_ columns)")
	yes := fs.Bool("yes", false, "with --prolific-demographics: make the call to Prolific (without: show it)")
	withTexts := fs.Bool("with-texts", false, "with --what ratings: add the item texts each rating was given on (context, utterance, follow_up, implicature; a judgement study's: context, sentence)")
	withIDs := fs.Bool("with-prolific-ids", false, "with --what package: keep the participants' Prolific ids (default: pseudonyms p001, …)")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *studyID <= 0 || *what == "" {
		return usagef("export: --study and --what are required")
	}
	if *what == "package" {
		return exportPackage(ctx, env, *dbPath, *studyID, *out, *force, *withIDs)
	}
	if *withIDs {
		return usagef("export: --with-prolific-ids goes with --what package only (the other exports always hold the ids)")
	}
	if *withTexts && *what != "ratings" {
		return usagef("export: --with-texts goes with --what ratings only")
	}
	if err := demographicsFlag(*demographics, *what); err != nil {
		return err
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
	if *demographics {
		if write = demographicsExport(ctx, svc, *studyID, *yes, env); write == nil {
			return nil
		}
	} else if write, err = exportWriter(ctx, svc, *studyID, *what, *withTexts); err != nil {
		return err
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

// exportPackage is `pragmalab export --what package`.
func exportPackage(ctx context.Context, env *Env, dbPath string, studyID int64, out string, force, withIDs bool) error {
	if out == "" {
		return usagef("export: --what package needs --out DIR, a new directory for the package's files")
	}
	if force {
		return usagef("export: --what package does not replace a directory (no --force): give a new one")
	}
	svc, err := openApp(ctx, dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	st, err := svc.store.Study(ctx, studyID)
	if err != nil {
		return usagef("export: %s", domain.ErrorMessage(err))
	}
	if !domain.IsCrowdKind(st.Kind) {
		return usagef("export: %s", packageKindRefusal(st))
	}
	res, err := crowdPackage(ctx, svc.Service, svc.store, st, withIDs, time.Now())
	if err != nil {
		return err
	}
	if err := writePackageDir(out, res); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Wrote the data package of study %d to %s (%d files; datapackage.json describes them, codebook.md explains them).\n", studyID, out, len(res))
	return svc.store.MarkExported(ctx, studyID)
}

// exportWriter is what `pragmalab export --what` writes.
func exportWriter(ctx context.Context, svc *app, studyID int64, what string, withTexts bool) (func(io.Writer) error, error) {
	st := svc.store
	switch what {
	case "judgements":
		return func(w io.Writer) error { return st.ExportJudgements(ctx, studyID, w) }, nil
	case "ratings":
		if withTexts {
			return func(w io.Writer) error { return st.ExportCrowdRatingsWithTexts(ctx, studyID, w, false) }, nil
		}
		return func(w io.Writer) error { return st.ExportCrowdRatings(ctx, studyID, w, false) }, nil
	case "participants":
		return func(w io.Writer) error { return svc.Service.ExportCrowdParticipants(ctx, studyID, w) }, nil
	case "context-answers":
		return func(w io.Writer) error { return st.ExportContextAnswers(ctx, studyID, w) }, nil
	case "explanation-ratings":
		return func(w io.Writer) error { return st.ExportExplanationRatings(ctx, studyID, w) }, nil
	case "items", "items-jsonl":
		items, err := st.CleanedItems(ctx, studyID)
		if err != nil {
			return nil, err
		}
		// A judgement study's items in its own file's columns, one row per
		// item and condition (docs/formats.md#judgement-items-csv).
		s, err := st.Study(ctx, studyID)
		if err != nil {
			return nil, err
		}
		if s.Kind == domain.KindJudgement {
			set, err := studies.CrowdSettings(s)
			if err != nil {
				return nil, err
			}
			return func(w io.Writer) error {
				if what == "items" {
					return itemfiles.WriteJudgementItemsCSV(w, items, set.Conditions)
				}
				return itemfiles.WriteJudgementItemsJSONL(w, items, set.Conditions)
			}, nil
		}
		return func(w io.Writer) error {
			if what == "items" {
				return itemfiles.WriteItemsCSV(w, items)
			}
			return itemfiles.WriteItemsJSONL(w, items)
		}, nil
	}
	return nil, usagef("export: unknown --what %q", what)
}

// writeOutFile writes an export to path, created with mode 0600 since it
// holds participants' data. An existing file is refused unless force is
// set — a symbolic link, even a dangling one, is an existing file. The
// export is written to a temporary file beside path, then moved into
// place: with force it replaces path itself (a link is replaced, never
// written through, so the file it pointed at keeps its content and mode),
// and a failed write leaves no half export and the old file whole.
func writeOutFile(path string, force bool, write func(io.Writer) error) error {
	if _, err := os.Lstat(path); err == nil && !force {
		return fmt.Errorf("export: %s already exists; give --force to replace it", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pragmalab-export-*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriter(tmp)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if force {
		if err := os.Rename(tmp.Name(), path); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	}
	// Without force, a hard link (not a rename) puts the file in place
	// only if nothing took the name meanwhile; where the file system has
	// no hard links, the name is checked again and the file renamed.
	err = os.Link(tmp.Name(), path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		if _, lerr := os.Lstat(path); lerr != nil {
			err = os.Rename(tmp.Name(), path)
		} else {
			err = fs.ErrExist
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("export: %s already exists; give --force to replace it", path)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
