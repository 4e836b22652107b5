package signin

import (
	"strings"
	"time"

	"pragmalab/store"
)

// The admin accounts (docs/deploy.md#admin-accounts): who may log in, with which role, and
// their sessions.

// NewPassword makes a random password for a new or reset account.
func NewPassword() string { return strings.ToLower(store.RandomToken()[:20]) }

// Service is the sign-in's use cases over the database: the audit entries
// of the login lock, and institutional sign-in (oidc.go). The plain reads
// and writes of accounts and sessions are domain.AccountStore's, which the
// pages and commands call directly.
type Service struct {
	db  *store.DB
	now func() time.Time
}

// New returns the sign-in over db; now is the clock (nil: time.Now), which
// ID tokens' times are checked against.
func New(db *store.DB, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{db: db, now: now}
}
