package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pragmalab/signin"
	"pragmalab/signin/oidctest"
	"pragmalab/studies"
)

// TestSignInCLI: the rules of institutional sign-in from the command line,
// audited, with clear refusals, and the provider checked as serve would.
func TestSignInCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	run := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, "", nil, append(append([]string{"sign-in"}, args...), "--db", db)...)
	}
	if code, out, errOut := run("allow", "--domain", "@Uni.EDU", "--role", "viewer"); code != 0 || !strings.Contains(out, "the domain uni.edu may sign in (new accounts: viewer)") {
		t.Fatalf("allow: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run("allow", "--email", "pi@uni.edu", "--domain", "uni.edu", "--role", "owner"); code != 2 || !strings.Contains(errOut, "one of --email, --domain or --subject") {
		t.Errorf("two kinds at once: %d %q", code, errOut)
	}
	if code, _, errOut := run("allow", "--email", "not-an-address", "--role", "owner"); code != 2 || !strings.Contains(errOut, "not of the form name@domain") {
		t.Errorf("bad address: %d %q", code, errOut)
	}
	if code, _, errOut := run("allow", "--domain", "uni.edu", "--role", "owner"); code != 2 || !strings.Contains(errOut, "already a rule") {
		t.Errorf("duplicate: %d %q", code, errOut)
	}
	if code, out, _ := run("list"); code != 0 || !strings.HasPrefix(out, "1\tdomain\tuni.edu\tviewer\t") || !strings.Contains(out, "by command line") {
		t.Errorf("list: %d %q", code, out)
	}
	if code, out, errOut := run("remove", "--id", "1"); code != 0 || !strings.Contains(out, "removed rule 1") {
		t.Errorf("remove: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run("remove", "--id", "1"); code != 2 || !strings.Contains(errOut, "no such sign-in rule") {
		t.Errorf("remove again: %d %q", code, errOut)
	}
	svc, err := openApp(t.Context(), db, studies.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log, _ := svc.store.AuditLog(t.Context(), 0, 0)
	svc.Close()
	if len(log) != 2 || log[1].Action != studies.ActionAllowSignIn || log[0].Action != studies.ActionRemoveSignIn || log[0].Actor != studies.CLIActor {
		t.Errorf("audit log: %+v", log)
	}

	idp := oidctest.New("pragmalab", "secret")
	defer idp.Close()
	env := map[string]string{signin.EnvOIDCIssuer: idp.URL, signin.EnvOIDCClientID: "pragmalab", signin.EnvOIDCClientSecret: "secret", signin.EnvOIDCName: "Uni"}
	code, out, errOut := runCLI(t, "", env, "sign-in", "check")
	if code != 0 || !strings.Contains(out, idp.URL+"/authorize") || !strings.Contains(out, "/admin/oidc/callback") {
		t.Errorf("check: %d %q %q", code, out, errOut)
	}
	if strings.Contains(out+errOut, "secret") {
		t.Errorf("check shows the secret: %q %q", out, errOut)
	}
	code, _, errOut = runCLI(t, "", map[string]string{signin.EnvOIDCIssuer: idp.URL}, "sign-in", "check")
	if code != 2 || !strings.Contains(errOut, signin.EnvOIDCClientSecret) {
		t.Errorf("check half-configured: %d %q", code, errOut)
	}
}

// TestServeRefusesBadOIDCBeforeFirstStart (docs/deploy.md#institutional-sign-in-openid-connect):
// a half-set OpenID Connect configuration stops serve before the database
// is created or the first admin's password printed, naming the variable.
func TestServeRefusesBadOIDCBeforeFirstStart(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "first.db")
	env := map[string]string{"PRAGMALAB_OIDC_ISSUER": "https://login.uni.example/realms/staff", "PRAGMALAB_OIDC_CLIENT_ID": "pragmalab"}
	code, out, errOut := runCLI(t, "", env, "serve", "--db", dbPath, "--addr", "127.0.0.1:0", "--demo=false")
	if code == 0 || !strings.Contains(errOut, "PRAGMALAB_OIDC_CLIENT_SECRET") {
		t.Fatalf("serve with a half-set OIDC configuration: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "password") {
		t.Fatalf("a password was printed before the refusal:\n%s", out)
	}
	if _, err := os.Stat(dbPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the database was created before the refusal: %v", err)
	}
}
