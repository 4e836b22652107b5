package signin

import (
	"context"
	"pragmalab/domain"
	"pragmalab/studies"
)

// The admin accounts as the command line manages them (pragmalab admin,
// docs/cli.md#admin, and the first start of pragmalab serve). Every change
// is written to the audit log in the actor's name, worded as the admin
// pages word it.

// FirstAdmin creates the owner account username with a generated password
// when the database has no admin yet, and returns that password; with an
// admin already there it changes nothing and returns "".
func (s *Service) FirstAdmin(ctx context.Context, username string) (string, error) {
	n, err := s.db.CountAdmins(ctx)
	if err != nil || n > 0 {
		return "", err
	}
	password := NewPassword()
	if _, err := s.db.CreateAdmin(ctx, username, password); err != nil {
		return "", err
	}
	return password, nil
}

// CreateAdminAccount adds an admin account with the role (owner or viewer;
// "" is owner).
func (s *Service) CreateAdminAccount(ctx context.Context, actor, username, password, role string) error {
	if role == "" {
		role = domain.RoleOwner
	}
	if _, err := s.db.CreateAdminWithRole(ctx, username, password, role); err != nil {
		return err
	}
	return s.db.Audit(ctx, actor, 0, studies.ActionCreateAccount, studies.AuditAccountCreated(username, role))
}

// ResetAdminPassword gives the account a new password; its sessions all
// end.
func (s *Service) ResetAdminPassword(ctx context.Context, actor, username, password string) error {
	if err := s.db.SetPassword(ctx, username, password); err != nil {
		return err
	}
	return s.db.Audit(ctx, actor, 0, studies.ActionResetPassword, studies.AuditPasswordReset(username))
}

// SetAdminRole changes the account's role (owner or viewer).
func (s *Service) SetAdminRole(ctx context.Context, actor, username, role string) error {
	if err := s.db.SetRole(ctx, username, role); err != nil {
		return err
	}
	return s.db.Audit(ctx, actor, 0, studies.ActionChangeRole, studies.AuditRoleChanged(username, "", role))
}
