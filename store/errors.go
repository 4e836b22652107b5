package store

import (
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Error codes, mapped to HTTP statuses by handlers.Error.
const (
	EINVALID  = "invalid"
	ENOTFOUND = "not_found"
	ECONFLICT = "conflict"
	// EFORBIDDEN: the admin's role does not allow the action.
	EFORBIDDEN = "forbidden"
	// EFULL: the disk (or the database's size limit) is full, so the
	// write was rolled back.
	EFULL     = "full"
	EINTERNAL = "internal"
)

// diskFullMessage is what a researcher or participant sees when a write
// failed for want of space: the transaction was rolled back.
const diskFullMessage = "The disk is full — nothing was saved. Please try again later."

// Error is a domain error whose Message is safe to show to the user.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// ErrorCode is the code of err's *Error, EFULL for SQLite's "database or
// disk is full", or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if diskFull(err) {
		return EFULL
	}
	return EINTERNAL
}

// ErrorMessage is the user-facing message of err's *Error, or a generic one.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	if diskFull(err) {
		return diskFullMessage
	}
	return "Internal error."
}

// diskFull reports whether err is SQLITE_FULL (a disk without space, or a
// database at its max_page_count); the primary code is the low byte.
func diskFull(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}
