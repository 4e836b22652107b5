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
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(env.stderr, adminUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usagef("admin: say create, reset-password, set-role, unlock or list")
	}
	action := args[0]
	switch action {
	case "create", "reset-password", "set-role", "unlock", "list":
	default:
		return usagef("admin: unknown action %q (create, reset-password, set-role, unlock, list)", action)
	}
	fs := newFlagSet("admin "+action, adminUsage, env)
	username := fs.String("username", "", "the admin's username")
	generate := fs.Bool("generate", false, "generate a random password and print it")
	role := fs.String("role", "", "owner or viewer")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *username == "" && action != "list" {
		return usagef("admin %s: --username is required", action)
	}
	if action == "set-role" && *role == "" {
		return usagef("admin set-role: --role is required (owner or viewer)")
	}
	var password string
	if action == "create" || action == "reset-password" {
		var err error
		if password, err = readPassword(env, *generate); err != nil {
			return usagef("admin %s: %v", action, err)
		}
	}
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	switch action {
	case "list":
		as, err := svc.store.Admins(ctx)
		if err != nil {
			return err
		}
		for _, a := range as {
			fmt.Fprintf(env.stdout, "%s\t%s\t%s\n", domain.TerminalSafe(a.Username), a.Role, a.CreatedAt.Format("2006-01-02"))
		}
		return nil
	case "create":
		err = svc.signin().CreateAdminAccount(ctx, cliActor, *username, password, *role)
	case "reset-password":
		err = svc.signin().ResetAdminPassword(ctx, cliActor, *username, password)
	case "set-role":
		err = svc.signin().SetAdminRole(ctx, cliActor, *username, *role)
	case "unlock":
		err = svc.signin().UnlockLogin(ctx, cliActor, *username)
	}
	if err != nil {
		if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ENOTFOUND || code == domain.ECONFLICT {
			return usagef("admin %s: %s", action, domain.ErrorMessage(err))
		}
		return err
	}
	if *generate {
		fmt.Fprintf(env.stdout, "username: %s\npassword: %s\n", *username, password)
	} else {
		fmt.Fprintf(env.stdout, "done: %s\n", *username)
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
