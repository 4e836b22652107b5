-- Webhook deliveries seen (docs/prolific.md#webhooks). X-Event-ID is not
-- signed, so a captured delivery replayed under a new id is known by what
-- the signature covers: digest is the hex SHA-256 of its timestamp, a NUL
-- and its body. A row is written in the transaction that applies the
-- delivery, so one refused (Prolific unreachable) is not remembered, and
-- is kept until expires_at (UNIX seconds: the timestamp plus the five
-- minutes a signature is accepted for), so a replay after a restart is
-- recognised; rows past it are pruned as deliveries arrive.
CREATE TABLE prolific_hook_deliveries (
	digest     TEXT PRIMARY KEY,
	event_id   TEXT NOT NULL,
	expires_at INTEGER NOT NULL
);
CREATE INDEX prolific_hook_deliveries_expiry ON prolific_hook_deliveries (expires_at);
