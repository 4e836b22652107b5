package studies

import "context"

// Backup writes a consistent copy of the live database to file, which must
// not exist, while the server keeps running (SQLite's online backup: a few
// pages at a time, so writers are never held up for long). The copy is
// readable by its owner only: it holds the session keys too.
func (s *Service) Backup(ctx context.Context, file string) error {
	return s.db.Backup(ctx, file)
}
