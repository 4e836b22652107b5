package domain

import (
	"errors"
	"fmt"
)

// Error codes, mapped to HTTP statuses by handlers.Error
// (docs/architecture.md#errors).
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

// DiskFullMessage is what a researcher or participant sees when a write
// failed for want of space: the transaction was rolled back.
const DiskFullMessage = "The disk is full — nothing was saved. Please try again later."

// Error is a domain error whose Message is safe to show to the user; Err,
// when set, is the cause, for the log only.
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// ErrorCode is the code of err's *Error, or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage is the user-facing message of err's *Error, or a generic one.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}
