-- Arrivals from the Prolific link that have not consented yet
-- (docs/studies.md#crowd-entry). They hold no slot: a participant row, and
-- with it a batch, is made only at consent, from the entry of the same
-- token, so link openings that never consent count against no quota.
CREATE TABLE crowd_entries (
	token               TEXT PRIMARY KEY,
	study_id            INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	prolific_pid        TEXT NOT NULL,
	prolific_study_id   TEXT NOT NULL DEFAULT '',
	prolific_session_id TEXT NOT NULL DEFAULT '',
	created_at          TEXT NOT NULL
) WITHOUT ROWID;

CREATE INDEX crowd_entries_study ON crowd_entries (study_id, created_at);

-- PROLIFIC_PID is matched case-insensitively, stored in lower case; a
-- participant whose id differs from another's only by case keeps it.
UPDATE crowd_participants SET prolific_pid = lower(prolific_pid)
WHERE prolific_pid != lower(prolific_pid) AND NOT EXISTS (
	SELECT 1 FROM crowd_participants o
	WHERE o.study_id = crowd_participants.study_id AND o.id != crowd_participants.id
		AND lower(o.prolific_pid) = lower(crowd_participants.prolific_pid));
