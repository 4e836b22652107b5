package signin

import (
	"context"
	"fmt"
	"time"
)

// The login lock (docs/deploy.md#security): the server counts failed
// logins in memory; these are the parts that outlive it — the audit
// entries of a lock and of its clearing, and the time of the last
// clearing, which `pragmalab admin unlock` writes and the server reads.

// Audit actions of the login lock.
const (
	ActionLoginLockout = "login lockout"
	ActionLoginUnlock  = "login unlock"
)

// AuditLoginLockout records that an account's logins are refused for a
// while after too many failed attempts; client is the address of the
// attempt that hit the limit.
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it owns the audit entry's wording.
func (s *Service) AuditLoginLockout(ctx context.Context, username, client string, wait time.Duration) error {
	return s.db.Audit(ctx, username, 0, ActionLoginLockout,
		fmt.Sprintf("too many failed logins for %s; logins without a trusted device refused for %d minutes (last attempt from %s)", username, int(wait.Minutes())+1, client))
}

// UnlockLogin clears the login lock of an account: the failed attempts
// made before now no longer count, on the server too.
//
// A deliberate single call of the store (docs/architecture.md#dependencies): it owns the audit entry's wording.
func (s *Service) UnlockLogin(ctx context.Context, actor, username string) error {
	return s.db.UnlockLogin(ctx, username, actor, ActionLoginUnlock, "login lock of "+username+" cleared")
}
