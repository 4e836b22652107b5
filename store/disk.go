package store

import (
	"sync/atomic"
	"time"

	"pragmalab/domain"
)

// diskState remembers how the last writes ended, for /healthz
// (docs/deploy.md#monitoring): a server whose writes find the disk full
// still answers its pages, so only the writes can tell.
type diskState struct {
	seq    atomic.Int64 // orders the outcomes below
	fullN  atomic.Int64 // seq of the last write refused for lack of space
	okN    atomic.Int64 // seq of the last write committed
	fullAt atomic.Int64 // when the last refusal happened (Unix ns)
}

// noteWrite records a write's outcome and returns err unchanged.
func (db *DB) noteWrite(err error) error {
	switch {
	case err == nil:
		db.disk.okN.Store(db.disk.seq.Add(1))
	case domain.ErrorCode(err) == domain.EFULL:
		db.disk.fullAt.Store(db.Now().UnixNano())
		db.disk.fullN.Store(db.disk.seq.Add(1))
	}
	return err
}

// DiskFull reports whether the last write that ended either way was
// refused because the disk (or the database's page limit) is full, and
// when; the first committed write clears it.
func (db *DB) DiskFull() (since time.Time, full bool) {
	if db.disk.fullN.Load() <= db.disk.okN.Load() {
		return time.Time{}, false
	}
	return time.Unix(0, db.disk.fullAt.Load()).UTC(), true
}
