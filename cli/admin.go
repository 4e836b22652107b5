package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"pragmalab/store"
)

const adminUsage = `Usage: pragmalab admin create|reset-password --username NAME [--db FILE]

Creates an admin account or sets a new password. The password is read from
standard input (one line); with --generate a random one is made and printed.

`

// runAdmin is `pragmalab admin`.
func runAdmin(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(env.stderr, adminUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usagef("admin: say create or reset-password")
	}
	action := args[0]
	if action != "create" && action != "reset-password" {
		return usagef("admin: unknown action %q (create, reset-password)", action)
	}
	fs := newFlagSet("admin "+action, adminUsage, env)
	username := fs.String("username", "", "the admin's username")
	generate := fs.Bool("generate", false, "generate a random password and print it")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *username == "" {
		return usagef("admin %s: --username is required", action)
	}
	var password string
	if *generate {
		password = strings.ToLower(store.RandomToken()[:20])
	} else {
		line, err := bufio.NewReader(env.stdin).ReadString('\n')
		if err != nil && line == "" {
			return usagef("admin %s: give the password on standard input, or use --generate", action)
		}
		password = strings.TrimRight(line, "\r\n")
	}
	db, err := store.Open(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if action == "create" {
		_, err = db.CreateAdmin(ctx, *username, password)
	} else {
		err = db.SetPassword(ctx, *username, password)
	}
	if err != nil {
		if store.ErrorCode(err) != store.EINTERNAL {
			return usagef("admin %s: %s", action, store.ErrorMessage(err))
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
