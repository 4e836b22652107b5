package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"pragmalab/domain"
	"pragmalab/signin"
	"pragmalab/studies"
)

const adminUsage = `Usage: pragmalab admin create|reset-password|set-role|unlock|list [options] [--db FILE]

  create --username NAME [--role owner|viewer]   a new account (owner by default)
  reset-password --username NAME                 a new password; the account's
                                                 sessions all end
  set-role --username NAME --role owner|viewer   an owner changes everything and
                                                 manages accounts; a viewer reads
                                                 everything and changes nothing
  unlock --username NAME                         clear the account's login lock
                                                 (too many failed logins); a
                                                 running server honours it at
                                                 the next attempt
  list                                           every account with its role

The password is read from standard input (one line); typed on a terminal it
is not echoed and is asked twice. With --generate a random one is made and
printed. Every change is written to the audit log as done by "command line".

`

// cliActor is the actor the audit log names for changes made here.
const cliActor = studies.CLIActor

// runAdmin is `pragmalab admin`.
func runAdmin(ctx context.Context, args []string, env *Env) error {
	action, help, err := adminAction(args, env)
	if help || err != nil {
		return err
	}
	fs := newFlagSet("admin "+action, adminUsage, env)
	username := fs.String("username", "", "the admin's username")
	generate := fs.Bool("generate", false, "generate a random password and print it")
	role := fs.String("role", "", "owner or viewer")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	req := adminRequest{action: action, username: *username, role: *role, generate: *generate}
	if err := req.check(); err != nil {
		return err
	}
	if action == "create" || action == "reset-password" {
		var err error
		if req.password, err = readPassword(env, *generate); err != nil {
			return usagef("admin %s: %v", action, err)
		}
	}
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	if action == "list" {
		return listAdmins(ctx, svc, env)
	}
	if err := req.do(ctx, svc); err != nil {
		if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ENOTFOUND || code == domain.ECONFLICT {
			return usagef("admin %s: %s", action, domain.ErrorMessage(err))
		}
		return err
	}
	if *generate {
		fmt.Fprintf(env.stdout, "username: %s\npassword: %s\n", *username, req.password)
	} else {
		fmt.Fprintf(env.stdout, "done: %s\n", *username)
	}
	return nil
}

// adminAction is the action args start with; help is true when they ask
// for the usage only, which is then printed.
func adminAction(args []string, env *Env) (action string, help bool, err error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(env.stderr, adminUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return "", true, nil
		}
		return "", false, usagef("admin: say create, reset-password, set-role, unlock or list")
	}
	switch args[0] {
	case "create", "reset-password", "set-role", "unlock", "list":
		return args[0], false, nil
	}
	return "", false, usagef("admin: unknown action %q (create, reset-password, set-role, unlock, list)", args[0])
}

// adminRequest is one `pragmalab admin` action on an account.
type adminRequest struct {
	action, username, role, password string
	generate                         bool
}

// check asks for the flags the action needs.
func (r adminRequest) check() error {
	if r.username == "" && r.action != "list" {
		return usagef("admin %s: --username is required", r.action)
	}
	if r.action == "set-role" && r.role == "" {
		return usagef("admin set-role: --role is required (owner or viewer)")
	}
	return nil
}

// do runs an action on an account through the sign-in service.
func (r adminRequest) do(ctx context.Context, svc *app) error {
	switch r.action {
	case "create":
		return svc.signin().CreateAdminAccount(ctx, cliActor, r.username, r.password, r.role)
	case "reset-password":
		return svc.signin().ResetAdminPassword(ctx, cliActor, r.username, r.password)
	case "set-role":
		return svc.signin().SetAdminRole(ctx, cliActor, r.username, r.role)
	case "unlock":
		return svc.signin().UnlockLogin(ctx, cliActor, r.username)
	}
	return nil
}

// listAdmins prints the accounts, one a line.
func listAdmins(ctx context.Context, svc *app, env *Env) error {
	as, err := svc.store.Admins(ctx)
	if err != nil {
		return err
	}
	for _, a := range as {
		fmt.Fprintf(env.stdout, "%s\t%s\t%s\n", domain.TerminalSafe(a.Username), a.Role, a.CreatedAt.Format("2006-01-02"))
	}
	return nil
}

// readPassword generates a password, or reads one: from a terminal without
// echo and twice, else as the first line of standard input.
func readPassword(env *Env, generate bool) (string, error) {
	if generate {
		return signin.NewPassword(), nil
	}
	if f, ok := env.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return readTerminalPassword(int(f.Fd()), env.stderr)
	}
	line, err := bufio.NewReader(env.stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("give the password on standard input, or use --generate")
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func readTerminalPassword(fd int, prompt io.Writer) (string, error) {
	fmt.Fprint(prompt, "New password (10–72 bytes, not shown): ")
	first, err := term.ReadPassword(fd)
	fmt.Fprintln(prompt)
	if err != nil {
		return "", fmt.Errorf("reading the password: %v", err)
	}
	fmt.Fprint(prompt, "The same password again: ")
	second, err := term.ReadPassword(fd)
	fmt.Fprintln(prompt)
	if err != nil {
		return "", fmt.Errorf("reading the password: %v", err)
	}
	if string(first) != string(second) {
		return "", fmt.Errorf("the two passwords differ; nothing was changed")
	}
	return string(first), nil
}
