-- Prolific's webhooks, the study's life on Prolific and paid screen-outs
-- (docs/prolific.md#webhooks).

-- The linked study's status on Prolific (UNPUBLISHED, ACTIVE, PAUSED, …) as
-- the last delivery, check or transition read it, and when the last
-- delivery about it arrived: polling is the fallback while none has come
-- for 10 minutes.
ALTER TABLE prolific_links ADD COLUMN prolific_status TEXT NOT NULL DEFAULT '';
ALTER TABLE prolific_links ADD COLUMN hook_at TEXT NOT NULL DEFAULT '';

-- Every webhook delivery processed, by Prolific's X-Event-ID: an event id
-- is processed once however many times it is delivered. study_id is the
-- pragmalab study it concerned (0: none linked).
CREATE TABLE prolific_events (
	event_id    TEXT PRIMARY KEY,
	event_type  TEXT NOT NULL,
	resource_id TEXT NOT NULL,
	study_id    INTEGER NOT NULL DEFAULT 0,
	outcome     TEXT NOT NULL DEFAULT '',
	received_at TEXT NOT NULL
);
CREATE INDEX prolific_events_study ON prolific_events (study_id, received_at);

-- The hook subscriptions made from pragmalab (the page shows them; the
-- secret is never stored: it is read from the environment).
CREATE TABLE prolific_hook_subscriptions (
	id           TEXT PRIMARY KEY,
	study_id     INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	workspace_id TEXT NOT NULL,
	event_type   TEXT NOT NULL,
	target_url   TEXT NOT NULL,
	created_at   TEXT NOT NULL
);

-- People sent back to Prolific with the screen-out code who never became
-- participants here (they declined consent), by lower-cased PROLIFIC_PID.
-- Those screened out by the training are crowd_participants with status
-- 'screened_out'.
CREATE TABLE prolific_screen_outs (
	study_id       INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	participant_id TEXT NOT NULL,
	reason         TEXT NOT NULL,
	created_at     TEXT NOT NULL,
	PRIMARY KEY (study_id, participant_id)
);
