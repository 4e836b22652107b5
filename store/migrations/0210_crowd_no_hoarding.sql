-- No hoarding (docs/studies.md#no-hoarding). A consented place that has
-- received no answer yet is held only for the study's hold_minutes; one
-- client address holds at most places_per_address consented, unfinished
-- places. client_key is a hash of the address the consent came
-- from (never the address itself); '' for sessions older than this
-- migration and for pilot sessions.
ALTER TABLE crowd_participants ADD COLUMN client_key TEXT NOT NULL DEFAULT '';

CREATE INDEX crowd_participants_client ON crowd_participants (study_id, client_key, status)
	WHERE client_key != '';

-- The consented places waiting for their first answer, seen longest ago
-- first: the places takeSlot gives to a newcomer once their hold is over
-- (after those idle past the time-out).
CREATE INDEX crowd_participants_unanswered ON crowd_participants (study_id, last_seen_at)
	WHERE status = 'active' AND answered = 0 AND training_done = 0 AND training_wrong = 0 AND pilot = 0;

-- "I do not agree" (docs/studies.md#consent): the refusal is all that is
-- stored; the entry it came from is deleted in the same transaction. The
-- token is the browser's cookie, so a reload shows the same page.
CREATE TABLE crowd_refusals (
	token        TEXT PRIMARY KEY,
	study_id     INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	prolific_pid TEXT NOT NULL,
	created_at   TEXT NOT NULL
) WITHOUT ROWID;

CREATE INDEX crowd_refusals_study ON crowd_refusals (study_id, created_at);
