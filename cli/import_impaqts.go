package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// importImpaqts is `pragmalab import` for the IMPAQTS studies: passages
// (the IMPAQTS-PID TSV) or, with --format outputs, model outputs to rate.
func importImpaqts(ctx context.Context, svc *app, s *domain.Study, format, file string, r io.Reader, env *Env) error {
	fail := func(err error) error {
		if domain.ErrorCode(err) == domain.EINTERNAL && !isImportError(err) {
			return err
		}
		return usagef("import %s: nothing was imported: %v", file, err)
	}
	if format == "outputs" {
		n, err := svc.ImportOutputFile(ctx, cliActor, s, file, r)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(env.stdout, "imported %d model outputs into study %d (%s)\n", n, s.ID, domain.TerminalSafe(s.Name))
		return nil
	}
	n, err := svc.ImportPassageFile(ctx, cliActor, s, file, r)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(env.stdout, "imported %d passages into study %d (%s)\n", n, s.ID, domain.TerminalSafe(s.Name))
	return nil
}

// isImportError reports whether err names a bad row of an import file.
func isImportError(err error) bool {
	var ie *itemfiles.ImportError
	return errors.As(err, &ie)
}
