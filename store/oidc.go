package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"pragmalab/domain"
)

// Institutional sign-in (docs/deploy.md#institutional-sign-in-openid-connect):
// the rules of who may sign in through the identity provider, and the
// identities linked to accounts.

// OIDCRules lists the sign-in rules by kind and value.
func (db *DB) OIDCRules(ctx context.Context) ([]domain.OIDCRule, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT id, kind, value, role, created_at, created_by
		FROM oidc_rules
		ORDER BY kind, value`)
	if err != nil {
		return nil, fmt.Errorf("oidc rules: %w", err)
	}
	defer rows.Close()
	var out []domain.OIDCRule
	for rows.Next() {
		var r domain.OIDCRule
		var created string
		if err := rows.Scan(&r.ID, &r.Kind, &r.Value, &r.Role, &created, &r.CreatedBy); err != nil {
			return nil, fmt.Errorf("oidc rules: %w", err)
		}
		r.CreatedAt = parseTime(created)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("oidc rules: %w", err)
	}
	return out, nil
}

// AddOIDCRule stores a rule, normalized and validated; a rule of the same
// kind and value is a conflict (change its role by deleting it first).
func (db *DB) AddOIDCRule(ctx context.Context, r domain.OIDCRule) (*domain.OIDCRule, error) {
	r.Normalize()
	if err := r.Validate(); err != nil {
		return nil, err
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM oidc_rules WHERE kind = ? AND value = ?`, r.Kind, r.Value).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return domain.Errorf(domain.ECONFLICT, "there is already a rule for the %s %s; delete it first to change its role", r.Kind, r.Value)
		}
		return tx.QueryRowContext(ctx, `
			INSERT INTO oidc_rules (kind, value, role, created_at, created_by)
			VALUES (?, ?, ?, ?, ?)
			RETURNING id`, r.Kind, r.Value, r.Role, db.now(), r.CreatedBy).Scan(&r.ID)
	})
	if err != nil {
		return nil, fmt.Errorf("add oidc rule: %w", err)
	}
	r.CreatedAt = db.Now()
	return &r, nil
}

// DeleteOIDCRule deletes a rule and returns it. Accounts it let in stay,
// but sign in through the provider only while some rule still admits them.
func (db *DB) DeleteOIDCRule(ctx context.Context, id int64) (*domain.OIDCRule, error) {
	var r domain.OIDCRule
	err := db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `DELETE FROM oidc_rules WHERE id = ? RETURNING id, kind, value, role`, id).Scan(&r.ID, &r.Kind, &r.Value, &r.Role)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "no such sign-in rule")
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("delete oidc rule: %w", err)
	}
	return &r, nil
}

// How a sign-in found its account.
const (
	OIDCKnown   = ""        // the identity had signed in before
	OIDCLinked  = "linked"  // linked to the account named by its e-mail address
	OIDCCreated = "created" // a new account was made for it
)

// OIDCAudit words the audit entry of a first sign-in (how is OIDCLinked or
// OIDCCreated); it is written in the transaction that links the identity.
type OIDCAudit func(a *domain.Admin, how string) (action, detail string)

// OIDCSignIn finds the account of the person p, whom a rule admitted:
// the account their identity is linked to; at a first sign-in, the
// account named by their verified e-mail address, linked now; otherwise a
// new account, named by that address (or by the subject without one), with
// role and no usable password (an owner can give it one). A first sign-in
// writes its audit entry in the same transaction. An account already
// linked to another identity of the same provider is refused: the address
// has changed hands.
func (db *DB) OIDCSignIn(ctx context.Context, p domain.OIDCPerson, role string, audit OIDCAudit) (*domain.Admin, string, error) {
	if p.Issuer == "" || p.Subject == "" {
		return nil, "", domain.Errorf(domain.EINVALID, "the ID token names no issuer or subject")
	}
	username, err := oidcUsername(p)
	if err != nil {
		return nil, "", err
	}
	// A new account needs a password hash; bcrypt runs before the write
	// transaction, not while holding the writer.
	hash, err := db.oidcNewHash(ctx, p)
	if err != nil {
		return nil, "", fmt.Errorf("oidc sign-in: %w", err)
	}
	var a domain.Admin
	var how string
	err = db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		a, how, err = db.oidcSignInTx(ctx, tx, p, username, role, hash, audit)
		return err
	})
	if errors.Is(err, errRetrySignIn) {
		return db.OIDCSignIn(ctx, p, role, audit)
	}
	if err != nil {
		return nil, "", fmt.Errorf("oidc sign-in: %w", err)
	}
	return &a, how, nil
}

// oidcUsername is the account name of p: the verified e-mail address, or
// else the subject. A name that cannot be an account here is refused.
func oidcUsername(p domain.OIDCPerson) (string, error) {
	username := p.Subject
	if p.EmailVerified && p.Email != "" {
		username = p.Email
	}
	if username == "" || len(username) > 64 || !utf8.ValidString(username) || strings.IndexFunc(username, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) >= 0 {
		return "", domain.Errorf(domain.EFORBIDDEN, "%q cannot be an account name here (at most 64 characters, no spaces); ask an owner to create an account and sign in with a password", username)
	}
	return username, nil
}

// oidcNewHash is a hash of a random password when p's identity is not
// linked yet (it may need a new account), nil when it is.
func (db *DB) oidcNewHash(ctx context.Context, p domain.OIDCPerson) ([]byte, error) {
	var known int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM oidc_identities WHERE issuer = ? AND subject = ?`, p.Issuer, p.Subject).Scan(&known); err != nil {
		return nil, err
	}
	if known > 0 {
		return nil, nil
	}
	return bcrypt.GenerateFromPassword([]byte(rand.Text()+rand.Text()), bcrypt.DefaultCost)
}

// oidcSignInTx is OIDCSignIn's transaction: the linked account, or the
// account found or created for username, linked now with its audit entry.
func (db *DB) oidcSignInTx(ctx context.Context, tx *sql.Tx, p domain.OIDCPerson, username, role string, hash []byte, audit OIDCAudit) (domain.Admin, string, error) {
	a, err := db.touchOIDCIdentity(ctx, tx, p)
	if !errors.Is(err, sql.ErrNoRows) {
		return a, OIDCKnown, err
	}
	if hash == nil {
		// Linked when read, unlinked since (its account deleted):
		// start again, and hash a password then.
		return a, OIDCKnown, errRetrySignIn
	}
	a, how, err := db.oidcAccount(ctx, tx, p.Issuer, username, role, hash)
	if err != nil {
		return a, how, err
	}
	// The audit callback sees, and may complete, the account returned.
	err = db.linkOIDCIdentity(ctx, tx, p, &a, how, audit)
	return a, how, err
}

// touchOIDCIdentity returns the account p's identity is linked to and
// records this sign-in on the link; sql.ErrNoRows when it is not linked.
func (db *DB) touchOIDCIdentity(ctx context.Context, tx *sql.Tx, p domain.OIDCPerson) (domain.Admin, error) {
	var a domain.Admin
	err := tx.QueryRowContext(ctx, `
		SELECT a.id, a.username, a.role
		FROM oidc_identities i JOIN admins a ON a.id = i.admin_id
		WHERE i.issuer = ? AND i.subject = ?`, p.Issuer, p.Subject).Scan(&a.ID, &a.Username, &a.Role)
	if err != nil {
		return domain.Admin{}, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE oidc_identities SET last_login_at = ?, email = ? WHERE issuer = ? AND subject = ?`,
		db.now(), p.Email, p.Issuer, p.Subject)
	return a, err
}

// oidcAccount is the account named username, to be linked (OIDCLinked),
// or a new one with role and the password hash (OIDCCreated). An account
// already linked to another identity of the issuer is refused.
func (db *DB) oidcAccount(ctx context.Context, tx *sql.Tx, issuer, username, role string, hash []byte) (domain.Admin, string, error) {
	var a domain.Admin
	err := tx.QueryRowContext(ctx, `SELECT id, username, role FROM admins WHERE username = ?`, username).Scan(&a.ID, &a.Username, &a.Role)
	switch {
	case err == nil:
		var other int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM oidc_identities WHERE admin_id = ? AND issuer = ?`, a.ID, issuer).Scan(&other); err != nil {
			return a, OIDCKnown, err
		}
		if other > 0 {
			return a, OIDCKnown, domain.Errorf(domain.EFORBIDDEN, "the account %s is already linked to another identity of this provider; ask an owner", username)
		}
		return a, OIDCLinked, nil
	case errors.Is(err, sql.ErrNoRows):
		a = domain.Admin{Username: username, Role: role, CreatedAt: db.Now()}
		if err := tx.QueryRowContext(ctx, `INSERT INTO admins (username, password_hash, role, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			username, string(hash), role, db.now()).Scan(&a.ID); err != nil {
			return a, OIDCKnown, err
		}
		return a, OIDCCreated, nil
	default:
		return a, OIDCKnown, err
	}
}

// linkOIDCIdentity links p's identity to the account a and writes the
// audit entry of this first sign-in.
func (db *DB) linkOIDCIdentity(ctx context.Context, tx *sql.Tx, p domain.OIDCPerson, a *domain.Admin, how string, audit OIDCAudit) error {
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO oidc_identities (issuer, subject, admin_id, email, created_at, last_login_at)
		VALUES (?, ?, ?, ?, ?, ?)`, p.Issuer, p.Subject, a.ID, p.Email, db.now(), db.now()); err != nil {
		return err
	}
	action, detail := audit(a, how)
	if len(detail) > maxAuditDetail {
		detail = detail[:maxAuditDetail] + "…"
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor, study_id, action, detail) VALUES (?, ?, NULL, ?, ?)`,
		db.now(), a.Username, action, detail)
	return err
}

var errRetrySignIn = errors.New("identity unlinked while signing in")
