package signin

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"pragmalab/domain"
	"pragmalab/store"
)

// Institutional sign-in with OpenID Connect
// (docs/deploy.md#institutional-sign-in-openid-connect): the
// authorization-code flow with state, nonce and PKCE against one identity
// provider configured from the environment, and the rules of who may sign
// in with which role.

// The environment variables of the identity provider. The secret is read
// from the environment only: never a flag, a file or the database.
const (
	EnvOIDCIssuer       = "PRAGMALAB_OIDC_ISSUER"
	EnvOIDCClientID     = "PRAGMALAB_OIDC_CLIENT_ID"
	EnvOIDCClientSecret = "PRAGMALAB_OIDC_CLIENT_SECRET"
	EnvOIDCName         = "PRAGMALAB_OIDC_NAME"
	EnvOIDCRedirectURL  = "PRAGMALAB_OIDC_REDIRECT_URL"
	EnvOIDCScopes       = "PRAGMALAB_OIDC_SCOPES"
)

// OIDCCallbackPath is where the provider sends the browser back; register
// <site>/admin/oidc/callback with it.
const OIDCCallbackPath = "/admin/oidc/callback"

// OIDCFlowMaxAge bounds a sign-in under way: the browser has this long at
// the provider before its state is forgotten.
const OIDCFlowMaxAge = 10 * time.Minute

// OIDCConfig is the identity provider's configuration.
type OIDCConfig struct {
	Issuer, ClientID, ClientSecret string
	// Name is shown on the login page: "Sign in with <Name>".
	Name string
	// RedirectURL is the callback registered with the provider; "" builds
	// it from the request's scheme and host.
	RedirectURL string
	Scopes      []string
}

// OIDCConfigFromEnv reads the provider's configuration: nil when no
// variable is set (sign-in with passwords only), an error naming what is
// missing or wrong when some are.
func OIDCConfigFromEnv(getenv func(string) string) (*OIDCConfig, error) {
	c := &OIDCConfig{
		Issuer:       strings.TrimSpace(getenv(EnvOIDCIssuer)),
		ClientID:     strings.TrimSpace(getenv(EnvOIDCClientID)),
		ClientSecret: getenv(EnvOIDCClientSecret),
		Name:         strings.TrimSpace(getenv(EnvOIDCName)),
		RedirectURL:  strings.TrimSpace(getenv(EnvOIDCRedirectURL)),
		Scopes:       strings.Fields(getenv(EnvOIDCScopes)),
	}
	if c.Issuer == "" && c.ClientID == "" && c.ClientSecret == "" {
		return nil, nil
	}
	var missing []string
	for _, v := range []struct{ name, value string }{{EnvOIDCIssuer, c.Issuer}, {EnvOIDCClientID, c.ClientID}, {EnvOIDCClientSecret, c.ClientSecret}} {
		if v.value == "" {
			missing = append(missing, v.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("institutional sign-in: %s not set (set all of %s, %s and %s, or none)", strings.Join(missing, " and "), EnvOIDCIssuer, EnvOIDCClientID, EnvOIDCClientSecret)
	}
	u, err := url.Parse(c.Issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !isLoopback(u.Hostname())) {
		return nil, fmt.Errorf("institutional sign-in: %s=%q must be an https:// URL (http only on this machine)", EnvOIDCIssuer, c.Issuer)
	}
	if c.RedirectURL != "" {
		r, err := url.Parse(c.RedirectURL)
		if err != nil || r.Host == "" || (r.Scheme != "https" && r.Scheme != "http") || r.Path != OIDCCallbackPath {
			return nil, fmt.Errorf("institutional sign-in: %s=%q must be this site's address followed by %s", EnvOIDCRedirectURL, c.RedirectURL, OIDCCallbackPath)
		}
	}
	if c.Name == "" {
		c.Name = u.Hostname()
	}
	if len(c.Scopes) == 0 {
		c.Scopes = []string{oidc.ScopeOpenID, "email", "profile"}
	} else if !contains(c.Scopes, oidc.ScopeOpenID) {
		c.Scopes = append([]string{oidc.ScopeOpenID}, c.Scopes...)
	}
	return c, nil
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// OIDC signs admins in through the configured identity provider.
type OIDC struct {
	svc    *Service
	cfg    OIDCConfig
	client *http.Client

	// discoverTimeout bounds one reading of the discovery document.
	discoverTimeout time.Duration

	// The provider, discovered on first use, so a provider down at
	// start-up does not stop the server. mu guards these fields only; it
	// is never held across the network call.
	mu        sync.Mutex
	provider  *oidc.Provider
	discovery chan struct{} // closed when the discovery under way ends; nil: none
	failedAt  time.Time     // the last discovery failed then …
	failure   error         // … with this error
}

// Discovery's bounds (docs/deploy.md#institutional-sign-in): one reading of
// the discovery document waits at most oidcDiscoverTimeout, and a failure
// is answered from memory for oidcFailureTTL, so anonymous visitors to the
// login page cannot queue on a hanging issuer or send it a request each.
const (
	oidcDiscoverTimeout = 5 * time.Second
	oidcFailureTTL      = 30 * time.Second
)

// NewOIDC returns the sign-in use cases for cfg; client makes the calls to
// the provider (nil: a client with a 15-second time-out that honours the
// proxy variables).
func (s *Service) NewOIDC(cfg OIDCConfig, client *http.Client) *OIDC {
	if client == nil {
		client = &http.Client{Timeout: 15 * time.Second, Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return &OIDC{svc: s, cfg: cfg, client: client, discoverTimeout: oidcDiscoverTimeout}
}

// Name is the provider's name for the login page.
func (o *OIDC) Name() string { return o.cfg.Name }

// Issuer is the provider's address.
func (o *OIDC) Issuer() string { return o.cfg.Issuer }

// RedirectURL is the callback address: the configured one, or this site's
// (base: scheme and host the browser used) followed by OIDCCallbackPath.
func (o *OIDC) RedirectURL(base string) string {
	if o.cfg.RedirectURL != "" {
		return o.cfg.RedirectURL
	}
	return base + OIDCCallbackPath
}

func (o *OIDC) ctx(ctx context.Context) context.Context {
	return oidc.ClientContext(context.WithValue(ctx, oauth2.HTTPClient, o.client), o.client)
}

// discover returns the provider, reading its discovery document the first
// time it is needed (and again once a failure is oidcFailureTTL old). One
// reading at a time: callers arriving meanwhile wait for its outcome (at
// most discoverTimeout) instead of each asking the issuer in turn.
func (o *OIDC) discover(ctx context.Context) (*oidc.Provider, error) {
	for {
		o.mu.Lock()
		switch {
		case o.provider != nil:
			p := o.provider
			o.mu.Unlock()
			return p, nil
		case o.failure != nil && time.Since(o.failedAt) < oidcFailureTTL:
			err := o.failure
			o.mu.Unlock()
			return nil, err
		case o.discovery != nil:
			wait := o.discovery
			o.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, o.unreachable(ctx.Err())
			}
		}
		done := make(chan struct{})
		o.discovery = done
		o.mu.Unlock()

		// Not the caller's context: its end must not fail the others.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.discoverTimeout)
		p, err := oidc.NewProvider(o.ctx(dctx), o.cfg.Issuer)
		cancel()
		if err != nil {
			err = o.unreachable(err)
		}
		o.mu.Lock()
		o.discovery = nil
		if err != nil {
			o.failure, o.failedAt = err, time.Now()
		} else {
			o.provider, o.failure = p, nil
		}
		close(done)
		o.mu.Unlock()
		return p, err
	}
}

// unreachable is the error of a sign-in whose provider could not be read.
func (o *OIDC) unreachable(err error) error {
	return &domain.Error{Code: domain.EINTERNAL, Err: err,
		Message: fmt.Sprintf("%s could not be reached to sign you in. Try again later, or log in with your password.", o.cfg.Name)}
}

func (o *OIDC) oauth2(p *oidc.Provider, redirectURL string) *oauth2.Config {
	return &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, Endpoint: p.Endpoint(), RedirectURL: redirectURL, Scopes: o.cfg.Scopes}
}

// OIDCFlow is one sign-in under way: what the browser keeps (in a
// short-lived, encrypted cookie) between leaving for the provider and
// coming back, so that only the browser that started it can finish it.
type OIDCFlow struct {
	State, Nonce, Verifier string
	RedirectURL            string
}

// Begin starts a sign-in: the flow for the browser to keep and the
// provider's address to send it to, asking for a code bound to the
// flow's state, nonce and PKCE verifier.
func (o *OIDC) Begin(ctx context.Context, redirectURL string) (OIDCFlow, string, error) {
	p, err := o.discover(ctx)
	if err != nil {
		return OIDCFlow{}, "", err
	}
	f := OIDCFlow{State: rand.Text(), Nonce: rand.Text(), Verifier: oauth2.GenerateVerifier(), RedirectURL: redirectURL}
	u := o.oauth2(p, redirectURL).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	return f, u, nil
}

// Matches reports whether the state the provider sent back is the flow's.
func (f OIDCFlow) Matches(state string) bool {
	return f.State != "" && subtle.ConstantTimeCompare([]byte(f.State), []byte(state)) == 1
}

func errNotThisBrowser() error {
	return refused(nil, "This sign-in was not started in this browser, or it took longer than %d minutes. Start again from the login page.", int(OIDCFlowMaxAge.Minutes()))
}

// ProviderError is the refusal of a provider that sent the browser back
// with an error instead of a code. Its description is shown only when the
// state is the browser's own, so a link made by someone else cannot put
// their words on this site's page.
func (o *OIDC) ProviderError(f OIDCFlow, state, code, description string) error {
	if !f.Matches(state) {
		return errNotThisBrowser()
	}
	if description == "" || len(description) > 300 || !utf8.ValidString(description) {
		description = code
	}
	return refused(nil, "%s did not sign you in: %s", o.cfg.Name, strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, description))
}

// refused is a sign-in refused: 403 with a message for the person, the
// cause for the log.
func refused(err error, format string, a ...any) error {
	return &domain.Error{Code: domain.EFORBIDDEN, Message: fmt.Sprintf(format, a...), Err: err}
}

// Finish completes a sign-in the browser's flow f started: the state the
// provider sent back must be f's, the code is exchanged (with f's PKCE
// verifier) for an ID token, which must be signed by the provider's keys
// (JWKS), issued by the issuer, for this client, unexpired and carry f's
// nonce; then a rule must admit the person it names. The account is
// found, linked or created (docs/deploy.md#institutional-sign-in-openid-connect).
// Every refusal is EFORBIDDEN, and nothing is stored.
func (o *OIDC) Finish(ctx context.Context, f OIDCFlow, state, code string) (*domain.Admin, error) {
	if !f.Matches(state) {
		return nil, errNotThisBrowser()
	}
	if code == "" {
		return nil, refused(nil, "%s sent no sign-in code. Start again from the login page.", o.cfg.Name)
	}
	p, err := o.discover(ctx)
	if err != nil {
		return nil, err
	}
	tok, err := o.oauth2(p, f.RedirectURL).Exchange(o.ctx(ctx), code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return nil, refused(err, "%s did not accept the sign-in code (%s). Start again from the login page.", o.cfg.Name, re.ErrorCode)
		}
		return nil, &domain.Error{Code: domain.EINTERNAL, Err: err,
			Message: fmt.Sprintf("%s could not be reached to finish the sign-in. Try again later, or log in with your password.", o.cfg.Name)}
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, refused(nil, "%s sent no ID token. Its client must be set up for OpenID Connect (scope openid).", o.cfg.Name)
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID, Now: o.svc.now}).Verify(o.ctx(ctx), raw)
	if err != nil {
		var expired *oidc.TokenExpiredError
		if errors.As(err, &expired) {
			return nil, refused(err, "The ID token from %s has expired. Start again from the login page (and check this server's clock).", o.cfg.Name)
		}
		return nil, refused(err, "The ID token from %s was refused: %v.", o.cfg.Name, err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return nil, refused(nil, "The ID token from %s was not issued for this sign-in (its nonce differs). Start again from the login page.", o.cfg.Name)
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
		Name          string `json:"name"`
	}
	if err := idt.Claims(&claims); err != nil {
		return nil, refused(err, "The ID token from %s could not be read.", o.cfg.Name)
	}
	person := domain.OIDCPerson{Issuer: idt.Issuer, Subject: idt.Subject, Email: strings.ToLower(strings.TrimSpace(claims.Email)),
		EmailVerified: claims.EmailVerified == true || claims.EmailVerified == "true", Name: claims.Name}
	return o.svc.oidcSignIn(ctx, person, o.cfg.Name)
}

// oidcSignIn lets a verified person in if a rule admits them.
func (s *Service) oidcSignIn(ctx context.Context, p domain.OIDCPerson, provider string) (*domain.Admin, error) {
	rules, err := s.db.OIDCRules(ctx)
	if err != nil {
		return nil, err
	}
	rule := domain.MatchOIDCRule(rules, p)
	if rule == nil {
		return nil, refused(nil, "%s may not sign in here. Ask an owner of this pragmalab to allow your address or domain, or to give you an account with a password.", oidcWho(p))
	}
	a, _, err := s.db.OIDCSignIn(ctx, p, rule.Role, func(a *domain.Admin, how string) (string, string) {
		return ActionOIDCFirstSignIn, AuditOIDCFirstSignIn(a.Username, a.Role, how, provider, p.Subject, *rule)
	})
	return a, err
}

// oidcWho names the person a refusal is about, as the provider knows them.
func oidcWho(p domain.OIDCPerson) string {
	switch {
	case p.Email != "" && p.EmailVerified:
		return p.Email
	case p.Email != "":
		return p.Email + " (an address the provider has not verified)"
	}
	return "The account " + p.Subject
}

// ActionOIDCFirstSignIn is the audit log's action for a first sign-in
// through the identity provider.
const ActionOIDCFirstSignIn = "first institutional sign-in"

// AuditOIDCFirstSignIn is the entry's detail for a first sign-in: how
// (store.OIDCCreated or store.OIDCLinked) the identity got its account,
// and the rule that admitted it.
func AuditOIDCFirstSignIn(username, role, how, provider, subject string, rule domain.OIDCRule) string {
	verb := "created " + username + " as " + role
	if how == store.OIDCLinked {
		verb = "linked the existing account " + username + " (" + role + ")"
	}
	return fmt.Sprintf("%s for %s subject %s, admitted by the %s rule %s (%s)", verb, provider, subject, rule.Kind, rule.Value, rule.Role)
}

// The sign-in rules (owners manage them on the accounts' sign-in page).

// AddOIDCRule stores a rule made by the admin named by.
func (s *Service) AddOIDCRule(ctx context.Context, r domain.OIDCRule, by string) (*domain.OIDCRule, error) {
	r.CreatedBy = by
	return s.db.AddOIDCRule(ctx, r)
}

// Check reads the provider's discovery document (and so its keys' address)
// and returns its authorization endpoint: that the issuer answers as an
// OpenID Connect provider.
func (o *OIDC) Check(ctx context.Context) (string, error) {
	p, err := o.discover(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: %w", o.cfg.Issuer, errors.Unwrap(err))
	}
	return p.Endpoint().AuthURL, nil
}

// AuditOIDCRule is the entry's detail for a rule added or deleted.
func AuditOIDCRule(added bool, r domain.OIDCRule) string {
	if added {
		return fmt.Sprintf("allowed the %s %s to sign in as %s", r.Kind, r.Value, r.Role)
	}
	return fmt.Sprintf("removed the %s %s (%s) from institutional sign-in", r.Kind, r.Value, r.Role)
}
