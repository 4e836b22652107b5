package studies

import (
	"context"
	"io"
	"path/filepath"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// The command line's imports (pragmalab import, docs/cli.md#import): each
// reads a whole file, imports it all or nothing, and records it in the
// audit log in the actor's name, with the same wording as the admin
// pages. Errors come back as the parser or the store made them — a bad
// row is an *itemfiles.ImportError or an EINVALID/ECONFLICT error — so the command
// can word them itself.

// ImportItemFileAs imports implicature items from a CSV or JSON Lines file
// as ImportItemFile does (name decides the format), then writes the audit
// entry in actor's name, naming file; it returns how many items.
func (s *Service) ImportItemFileAs(ctx context.Context, actor string, st *domain.Study, name, file string, r io.Reader) (int, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	n, err := s.ImportItemFile(ctx, st.ID, name, data)
	if err != nil {
		return 0, err
	}
	return n, s.db.Audit(ctx, actor, st.ID, "import items", AuditItemsImported(n, filepath.Base(file)))
}

// ImportPassageFile imports the passages of an IMPAQTS-PID TSV file
// (itemfiles.ParsePassagesTSV) and returns how many.
func (s *Service) ImportPassageFile(ctx context.Context, actor string, st *domain.Study, file string, r io.Reader) (int, error) {
	ps, err := itemfiles.ParsePassagesTSV(r)
	if err == nil {
		err = s.db.ImportPassages(ctx, st.ID, ps)
	}
	if err != nil {
		return 0, err
	}
	return len(ps), s.db.Audit(ctx, actor, st.ID, "import items", AuditPassagesImported(len(ps), filepath.Base(file)))
}

// ImportOutputFile imports the model outputs of a CSV file
// (itemfiles.ParseOutputsCSV) to rate, and returns how many.
func (s *Service) ImportOutputFile(ctx context.Context, actor string, st *domain.Study, file string, r io.Reader) (int, error) {
	outs, err := itemfiles.ParseOutputsCSV(r)
	if err == nil {
		err = s.db.ImportOutputs(ctx, st.ID, outs)
	}
	if err != nil {
		return 0, err
	}
	return len(outs), s.db.Audit(ctx, actor, st.ID, "import model outputs", AuditOutputsImported(len(outs), filepath.Base(file)))
}
