package signin

import (
	"context"
	"pragmalab/domain"
	"strings"
	"testing"
)

// A login opens a session the server can end; a wrong password opens none.
func TestLoginSessionLogout(t *testing.T) {
	ctx := context.Background()
	v := New(mustOpenDB(t), nil)
	pw := NewPassword()
	if _, err := v.db.CreateAdminWithRole(ctx, "ada", pw, domain.RoleViewer); err != nil {
		t.Fatal(err)
	}
	if _, err := v.db.Authenticate(ctx, "ada", pw+"x"); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("wrong password: got %v, want EINVALID", err)
	}
	a, err := v.db.Authenticate(ctx, "ada", pw)
	if err != nil {
		t.Fatal(err)
	}
	token, err := v.db.CreateSession(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.CanChange() {
		t.Error("a viewer may change things")
	}
	if got, err := v.db.SessionAdmin(ctx, token); err != nil || got.Username != "ada" {
		t.Fatalf("session: %v, %v", got, err)
	}
	if err := v.db.EndSession(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, err := v.db.SessionAdmin(ctx, token); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("after logout: got %v, want ENOTFOUND", err)
	}
}

// TestFirstAdminOnlyOnce: the first start creates the owner "admin" with a
// generated password; a later start creates nothing.
func TestFirstAdminOnlyOnce(t *testing.T) {
	ctx := context.Background()
	svc := New(mustOpenDB(t), nil)
	pw, err := svc.FirstAdmin(ctx, "admin")
	if err != nil || len(pw) != 20 || strings.ToLower(pw) != pw {
		t.Fatalf("first admin's password %q, %v; want 20 lower-case characters", pw, err)
	}
	if again, err := svc.FirstAdmin(ctx, "admin"); err != nil || again != "" {
		t.Fatalf("second start: %q, %v; want nothing created", again, err)
	}
	as, err := svc.db.Admins(ctx)
	if err != nil || len(as) != 1 || as[0].Username != "admin" || as[0].Role != "owner" {
		t.Fatalf("accounts %+v, %v; want the one owner admin", as, err)
	}
}

// TestAdminAccountChangesAreAudited: each account change is in the audit
// log under the actor, worded as the admin pages word it, and a refused
// change writes nothing.
func TestAdminAccountChangesAreAudited(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	svc := New(db, nil)
	for _, name := range []string{"root", "ada"} {
		if err := svc.CreateAdminAccount(ctx, "command line", name, "a long password", ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.SetAdminRole(ctx, "command line", "ada", "viewer"); err != nil {
		t.Fatal(err)
	}
	if err := svc.ResetAdminPassword(ctx, "command line", "ada", "another long one"); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetAdminRole(ctx, "command line", "nobody", "viewer"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("role of an unknown account: %v, want ENOTFOUND", err)
	}
	log, err := db.AuditLog(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Actor+": "+e.Action+": "+e.Detail)
	}
	want := []string{
		"command line: reset password: new password for ada; its sessions ended",
		"command line: change role: ada is now viewer",
		"command line: create account: created ada as owner",
		"command line: create account: created root as owner",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
