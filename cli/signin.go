package cli

import (
	"context"
	"fmt"
	"strings"

	"pragmalab/domain"
	"pragmalab/signin"
	"pragmalab/studies"
)

const signInUsage = `Usage: pragmalab sign-in list|allow|remove|check [options] [--db FILE]

Institutional sign-in through an OpenID Connect provider
(docs/deploy.md#institutional-sign-in-openid-connect): who may sign in, with
which role for a new account. The same rules as the page Accounts ›
Institutional sign-in.

  list                                          every rule
  allow --email ADDRESS|--domain DOMAIN|--subject ID --role owner|viewer
                                                admit one verified address,
                                                every verified address of a
                                                domain, or one subject (an
                                                ORCID iD)
  remove --id N                                 delete a rule (see list)
  check                                         read the provider's discovery
                                                document with the PRAGMALAB_OIDC_*
                                                variables, as serve would

Every change is written to the audit log as done by "command line".

`

// runSignIn is `pragmalab sign-in`.
func runSignIn(ctx context.Context, args []string, env *Env) error {
	action, help, err := signInAction(args, env)
	if help || err != nil {
		return err
	}
	fs := newFlagSet("sign-in "+action, signInUsage, env)
	email := fs.String("email", "", "one e-mail address")
	dom := fs.String("domain", "", "every address of one domain")
	subject := fs.String("subject", "", "one subject (the provider's id of a person)")
	role := fs.String("role", "", "owner or viewer: the role of an account made at the first sign-in")
	id := fs.Int64("id", 0, "the rule to remove (see list)")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if action == "check" {
		return signInCheck(ctx, env)
	}
	var rule domain.OIDCRule
	if action == "allow" {
		if rule, err = allowRule(*email, *dom, *subject, *role); err != nil {
			return err
		}
	}
	if action == "remove" && *id <= 0 {
		return usagef("sign-in remove: --id is required (see pragmalab sign-in list)")
	}
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	switch action {
	case "list":
		return listSignInRules(ctx, svc, env)
	case "allow":
		return signInAllow(ctx, svc, env, rule)
	case "remove":
		return signInRemove(ctx, svc, env, *id)
	}
	return nil
}

// signInAction is the action args start with; help is true when they ask
// for the usage only, which is then printed.
func signInAction(args []string, env *Env) (action string, help bool, err error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(env.stderr, signInUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return "", true, nil
		}
		return "", false, usagef("sign-in: say list, allow, remove or check")
	}
	switch args[0] {
	case "list", "allow", "remove", "check":
		return args[0], false, nil
	}
	return "", false, usagef("sign-in: unknown action %q (list, allow, remove, check)", args[0])
}

// allowRule is the rule `sign-in allow` adds: exactly one of the e-mail
// address, the domain and the subject, and the role.
func allowRule(email, dom, subject, role string) (domain.OIDCRule, error) {
	var rule domain.OIDCRule
	n := 0
	for _, f := range []struct{ kind, value string }{{domain.OIDCEmail, email}, {domain.OIDCDomain, dom}, {domain.OIDCSubject, subject}} {
		if f.value != "" {
			rule.Kind, rule.Value = f.kind, f.value
			n++
		}
	}
	if n != 1 {
		return rule, usagef("sign-in allow: give one of --email, --domain or --subject")
	}
	if role == "" {
		return rule, usagef("sign-in allow: --role is required (owner or viewer)")
	}
	rule.Role = role
	return rule, nil
}

// listSignInRules prints the sign-in rules, one a line.
func listSignInRules(ctx context.Context, svc *app, env *Env) error {
	rules, err := svc.store.OIDCRules(ctx)
	if err != nil {
		return err
	}
	for _, r := range rules {
		fmt.Fprintf(env.stdout, "%d\t%s\t%s\t%s\t%s by %s\n", r.ID, r.Kind, domain.TerminalSafe(r.Value), r.Role, r.CreatedAt.Format("2006-01-02"), domain.TerminalSafe(r.CreatedBy))
	}
	return nil
}

// signInAllow adds the rule and audits it.
func signInAllow(ctx context.Context, svc *app, env *Env, rule domain.OIDCRule) error {
	got, err := svc.signin().AddOIDCRule(ctx, rule, cliActor)
	if err != nil {
		return signInFailed("allow", err)
	}
	if err := svc.store.Audit(ctx, cliActor, 0, studies.ActionAllowSignIn, signin.AuditOIDCRule(true, *got)); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "rule %d: the %s %s may sign in (new accounts: %s)\n", got.ID, got.Kind, got.Value, got.Role)
	return nil
}

// signInRemove removes the rule id and audits it.
func signInRemove(ctx context.Context, svc *app, env *Env, id int64) error {
	got, err := svc.store.DeleteOIDCRule(ctx, id)
	if err != nil {
		return signInFailed("remove", err)
	}
	if err := svc.store.Audit(ctx, cliActor, 0, studies.ActionRemoveSignIn, signin.AuditOIDCRule(false, *got)); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "removed rule %d (the %s %s)\n", got.ID, got.Kind, got.Value)
	return nil
}

func signInFailed(action string, err error) error {
	if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ENOTFOUND || code == domain.ECONFLICT {
		return usagef("sign-in %s: %s", action, domain.ErrorMessage(err))
	}
	return err
}

// signInCheck reads the provider's configuration from the environment and
// its discovery document, and says what to register with it.
func signInCheck(ctx context.Context, env *Env) error {
	cfg, err := signin.OIDCConfigFromEnv(env.getenv)
	if err != nil {
		return usagef("sign-in check: %v", err)
	}
	if cfg == nil {
		return usagef("sign-in check: institutional sign-in is not configured (set %s, %s and %s)", signin.EnvOIDCIssuer, signin.EnvOIDCClientID, signin.EnvOIDCClientSecret)
	}
	// No database is needed to read the provider's document.
	auth, err := signin.New(nil, nil).NewOIDC(*cfg, nil).Check(ctx)
	if err != nil {
		return fmt.Errorf("sign-in check: %w", err)
	}
	callback := cfg.RedirectURL
	if callback == "" {
		callback = "https://YOUR-SITE" + signin.OIDCCallbackPath
	}
	fmt.Fprintf(env.stdout, "%s answers as an OpenID Connect provider (sign-in at %s).\nLogin page: \"Sign in with %s\". Register the callback address %s with it.\n", cfg.Issuer, auth, cfg.Name, callback)
	return nil
}
