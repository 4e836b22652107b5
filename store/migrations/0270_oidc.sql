-- Institutional sign-in with OpenID Connect
-- (docs/deploy.md#institutional-sign-in-openid-connect).

-- Who may sign in through the identity provider, and with which role for
-- a new account: one verified e-mail address, every verified address of
-- one domain, or one subject (the provider's id of a person, such as an
-- ORCID iD). Values are stored lower-case, subjects as given.
CREATE TABLE oidc_rules (
	id         INTEGER PRIMARY KEY,
	kind       TEXT NOT NULL CHECK (kind IN ('email', 'domain', 'subject')),
	value      TEXT NOT NULL,
	role       TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
	created_at TEXT NOT NULL,
	created_by TEXT NOT NULL,
	UNIQUE (kind, value)
);

-- The identities that have signed in, each linked to one admin account.
-- A person is (issuer, subject), never an e-mail address, which the
-- provider may reassign.
CREATE TABLE oidc_identities (
	issuer        TEXT NOT NULL,
	subject       TEXT NOT NULL,
	admin_id      INTEGER NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
	email         TEXT NOT NULL DEFAULT '',
	created_at    TEXT NOT NULL,
	last_login_at TEXT NOT NULL,
	PRIMARY KEY (issuer, subject)
);
CREATE INDEX oidc_identities_admin ON oidc_identities (admin_id);
