-- Prolific's demographic export (docs/prolific.md#demographics).

-- A crowd study's choice to keep the demographic export in the database
-- (the consent page says so when it is on). Without a row, or with keep
-- = 0, the export is fetched for each download and never stored.
CREATE TABLE prolific_demographics_settings (
	study_id   INTEGER PRIMARY KEY REFERENCES studies (id) ON DELETE CASCADE,
	keep       INTEGER NOT NULL DEFAULT 0 CHECK (keep IN (0, 1)),
	actor      TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

-- The rows of the last demographic export fetched, kept only while keep
-- is on: one per participant, fields a JSON list of [column, value] pairs
-- in Prolific's order. participant_id is lower-cased, as pragmalab
-- matches PROLIFIC_PIDs.
CREATE TABLE prolific_demographics (
	study_id       INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	participant_id TEXT NOT NULL,
	fields         TEXT NOT NULL,
	fetched_at     TEXT NOT NULL,
	PRIMARY KEY (study_id, participant_id)
);
