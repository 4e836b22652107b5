package store

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"pragmalab/domain"
)

// classify turns SQLite's "database or disk is full" into the domain's
// domain.EFULL error, keeping the cause for the log; every write helper returns
// its error through it, so callers see one vocabulary of errors.
func classify(err error) error {
	if err == nil || !diskFull(err) {
		return err
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return &domain.Error{Code: domain.EFULL, Message: domain.DiskFullMessage, Err: err}
}

// diskFull reports whether err is SQLITE_FULL (a disk without space, or a
// database at its max_page_count); the primary code is the low byte.
func diskFull(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}
