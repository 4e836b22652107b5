package studies

import (
	"context"
	"strings"

	"pragmalab/domain"
	"pragmalab/store"
)

// The admin accounts (docs/deploy.md#admin-accounts): who may log in, with which role, and
// their sessions.

// NewPassword makes a random password for a new or reset account.
func NewPassword() string { return strings.ToLower(store.RandomToken()[:20]) }

// Accounts lists every admin account by username.
func (v *Service) Accounts(ctx context.Context) ([]domain.Admin, error) {
	return v.db.Admins(ctx)
}

// Account returns the account with the given id.
func (v *Service) Account(ctx context.Context, id int64) (*domain.Admin, error) {
	return v.db.AdminByID(ctx, id)
}

// CreateAccount adds an admin with a role and a password.
func (v *Service) CreateAccount(ctx context.Context, username, password, role string) (*domain.Admin, error) {
	return v.db.CreateAdminWithRole(ctx, username, password, role)
}

// SetRole changes an account's role; the last owner stays an owner.
func (v *Service) SetRole(ctx context.Context, username, role string) error {
	return v.db.SetRole(ctx, username, role)
}

// SetPassword gives an account a new password and ends its sessions.
func (v *Service) SetPassword(ctx context.Context, username, password string) error {
	return v.db.SetPassword(ctx, username, password)
}

// EndSessions logs an account out in every browser.
func (v *Service) EndSessions(ctx context.Context, adminID int64) error {
	return v.db.EndSessions(ctx, adminID)
}

// Authenticate returns the account whose username and password match. A
// wrong pair is EINVALID, the same for an unknown username as for a wrong
// password, and costs the same time.
func (v *Service) Authenticate(ctx context.Context, username, password string) (*domain.Admin, error) {
	return v.db.Authenticate(ctx, username, password)
}

// StartSession opens a session for an authenticated account and returns
// its token, for the session cookie.
func (v *Service) StartSession(ctx context.Context, adminID int64) (string, error) {
	return v.db.CreateSession(ctx, adminID)
}

// SessionAdmin is the account of a live session; ENOTFOUND when the token
// names none (ended, expired, or never issued).
func (v *Service) SessionAdmin(ctx context.Context, token string) (*domain.Admin, error) {
	return v.db.SessionAdmin(ctx, token)
}

// Logout ends the session of token on the server.
func (v *Service) Logout(ctx context.Context, token string) error {
	return v.db.EndSession(ctx, token)
}
