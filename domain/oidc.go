package domain

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Institutional sign-in with OpenID Connect
// (docs/deploy.md#institutional-sign-in-openid-connect): the rules saying
// who may sign in through the identity provider, and the person a verified
// ID token names.

// The kinds of sign-in rule.
const (
	// OIDCEmail allows one verified e-mail address.
	OIDCEmail = "email"
	// OIDCDomain allows every verified e-mail address of one domain.
	OIDCDomain = "domain"
	// OIDCSubject allows one subject: the provider's own id of a person
	// (an ORCID iD), for providers that give no verified e-mail address.
	OIDCSubject = "subject"
)

// OIDCRuleKinds lists the kinds in the order the pages offer them.
var OIDCRuleKinds = []string{OIDCEmail, OIDCDomain, OIDCSubject}

// OIDCRule lets the people it matches sign in; a first sign-in creates an
// account with Role (or links the account named by the e-mail address).
type OIDCRule struct {
	ID        int64
	Kind      string
	Value     string
	Role      string
	CreatedAt time.Time
	CreatedBy string
}

// Normalize trims the rule's value and lower-cases e-mail addresses and
// domains (a leading "@" of a domain is dropped), so that "@Uni.EDU" and
// "uni.edu" are one rule.
func (r *OIDCRule) Normalize() {
	r.Value = strings.TrimSpace(r.Value)
	if r.Kind == OIDCEmail || r.Kind == OIDCDomain {
		r.Value = strings.ToLower(r.Value)
	}
	if r.Kind == OIDCDomain {
		r.Value = strings.TrimPrefix(r.Value, "@")
	}
}

// Validate checks a normalized rule, naming the field at fault.
func (r *OIDCRule) Validate() error {
	switch r.Kind {
	case OIDCEmail, OIDCDomain, OIDCSubject:
	default:
		return Errorf(EINVALID, "kind must be email, domain or subject, not %q", r.Kind)
	}
	if r.Role != RoleOwner && r.Role != RoleViewer {
		return Errorf(EINVALID, "role must be %s or %s, not %q", RoleOwner, RoleViewer, r.Role)
	}
	v := r.Value
	if v == "" {
		return Errorf(EINVALID, "the %s is empty", r.Kind)
	}
	if !utf8.ValidString(v) || len(v) > 254 || strings.IndexFunc(v, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) >= 0 {
		return Errorf(EINVALID, "the %s must be at most 254 characters, without spaces or control characters", r.Kind)
	}
	return r.validateForm()
}

// validateForm checks that an e-mail rule's value reads name@domain and a
// domain rule's value uni.edu; a subject is opaque.
func (r *OIDCRule) validateForm() error {
	v := r.Value
	switch r.Kind {
	case OIDCEmail:
		at := strings.LastIndexByte(v, '@')
		if at <= 0 || at == len(v)-1 {
			return Errorf(EINVALID, "the e-mail address %q is not of the form name@domain", v)
		}
	case OIDCDomain:
		if strings.Contains(v, "@") || !strings.Contains(v, ".") || strings.HasPrefix(v, ".") || strings.HasSuffix(v, ".") {
			return Errorf(EINVALID, "the domain %q is not of the form uni.edu (no @, no leading or trailing dot)", v)
		}
	}
	return nil
}

// OIDCPerson is who a verified ID token names.
type OIDCPerson struct {
	Issuer, Subject string
	// Email is lower-cased; EmailVerified is the provider's
	// email_verified claim. An unverified address matches no rule.
	Email         string
	EmailVerified bool
	Name          string
}

// Domain is the domain of the person's e-mail address ("" without one).
func (p OIDCPerson) Domain() string {
	if at := strings.LastIndexByte(p.Email, '@'); at >= 0 {
		return p.Email[at+1:]
	}
	return ""
}

// MatchOIDCRule returns the rule that lets p sign in, or nil. The most
// specific rule wins: the subject, then the exact e-mail address, then
// its domain (exactly: "uni.edu" does not admit "lab.uni.edu"). E-mail
// rules match only a verified address.
func MatchOIDCRule(rules []OIDCRule, p OIDCPerson) *OIDCRule {
	var byEmail, byDomain *OIDCRule
	for i := range rules {
		r := &rules[i]
		switch {
		case r.Kind == OIDCSubject && r.Value == p.Subject && p.Subject != "":
			return r
		case !p.EmailVerified || p.Email == "":
		case r.Kind == OIDCEmail && r.Value == p.Email:
			byEmail = r
		case r.Kind == OIDCDomain && r.Value == p.Domain():
			byDomain = r
		}
	}
	if byEmail != nil {
		return byEmail
	}
	return byDomain
}
