package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"pragmalab/domain"

	"pragmalab/store"
	"pragmalab/studies"
)

// importImpaqts is `pragmalab import` for the IMPAQTS studies: passages
// (the IMPAQTS-PID TSV) or, with --format outputs, model outputs to rate.
func importImpaqts(ctx context.Context, db *store.DB, s *domain.Study, format, file string, r io.Reader, env *Env) error {
	fail := func(err error) error {
		if domain.ErrorCode(err) == domain.EINTERNAL && !isImportError(err) {
			return err
		}
		return usagef("import %s: nothing was imported: %v", file, err)
	}
	if format == "outputs" {
		outs, err := studies.ParseOutputsCSV(r)
		if err == nil {
			err = db.ImportOutputs(ctx, s.ID, outs)
		}
		if err != nil {
			return fail(err)
		}
		if err := db.Audit(ctx, cliActor, s.ID, "import model outputs", fmt.Sprintf("%d model outputs from %s", len(outs), filepath.Base(file))); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "imported %d model outputs into study %d (%s)\n", len(outs), s.ID, s.Name)
		return nil
	}
	ps, err := studies.ParsePassagesTSV(r)
	if err == nil {
		err = db.ImportPassages(ctx, s.ID, ps)
	}
	if err != nil {
		return fail(err)
	}
	if err := db.Audit(ctx, cliActor, s.ID, "import items", fmt.Sprintf("%d passages from %s", len(ps), filepath.Base(file))); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "imported %d passages into study %d (%s)\n", len(ps), s.ID, s.Name)
	return nil
}

// isImportError reports whether err names a bad row of an import file.
func isImportError(err error) bool {
	var ie *studies.ImportError
	return errors.As(err, &ie)
}
