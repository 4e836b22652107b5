-- Admin security: roles, server-side sessions (docs/architecture.md#sessions)
-- and the audit log (docs/architecture.md#audit-log).

-- owner: everything, manages accounts; viewer: reads, changes nothing.
ALTER TABLE admins ADD COLUMN role TEXT NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'viewer'));

-- A logged-in browser. The cookie holds a random token; only its SHA-256
-- is stored, so a copy of the database does not log anyone in.
CREATE TABLE admin_sessions (
	token_hash   BLOB PRIMARY KEY,
	admin_id     INTEGER NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
	created_at   TEXT NOT NULL,
	last_seen_at TEXT NOT NULL
);
CREATE INDEX admin_sessions_admin ON admin_sessions (admin_id);

-- Every state-changing admin action: who, when, what, on which study.
-- The actor is kept as a name so the log outlives the account.
CREATE TABLE audit_log (
	id       INTEGER PRIMARY KEY,
	at       TEXT NOT NULL,
	actor    TEXT NOT NULL,
	study_id INTEGER,
	action   TEXT NOT NULL,
	detail   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_study ON audit_log (study_id, id);
