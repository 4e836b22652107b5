-- Pilot links (docs/studies.md#pilots): one per study, its own token, that
-- walks the real participant or expert flow in any state. Pilot sessions
-- and experts are marked; their answers are kept apart from the study's.
CREATE TABLE pilot_links (
	study_id   INTEGER PRIMARY KEY REFERENCES studies (id) ON DELETE CASCADE,
	token      TEXT NOT NULL UNIQUE,
	created_at TEXT NOT NULL
);

ALTER TABLE annotators ADD COLUMN pilot INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crowd_participants ADD COLUMN pilot INTEGER NOT NULL DEFAULT 0;
