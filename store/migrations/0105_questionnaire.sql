-- The optional post-study questionnaire of a crowd study
-- (docs/studies.md#post-study-questionnaire): one row per participant who
-- sent it (empty fields: not asked, or left blank).
CREATE TABLE crowd_questionnaires (
	participant_id   INTEGER PRIMARY KEY REFERENCES crowd_participants (id) ON DELETE CASCADE,
	native_languages TEXT NOT NULL DEFAULT '',
	age_range        TEXT NOT NULL DEFAULT '',
	gender           TEXT NOT NULL DEFAULT '',
	comments         TEXT NOT NULL DEFAULT '',
	answered_at      TEXT NOT NULL
);
