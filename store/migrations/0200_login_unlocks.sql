-- When an account's login lock was last cleared (pragmalab admin unlock):
-- the server, which keeps the failed attempts in memory, forgets those
-- made before it (docs/deploy.md#security).
CREATE TABLE login_unlocks (
	username    TEXT PRIMARY KEY COLLATE NOCASE,
	unlocked_at TEXT NOT NULL,
	by          TEXT NOT NULL
);
