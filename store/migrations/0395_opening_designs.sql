-- The design a study opened with (docs/studies.md#frozen-design): the
-- design file as it was at its first opening, kept as it was, so the file
-- a preregistration cites can be downloaded even after the study's
-- non-frozen settings changed.
CREATE TABLE study_opening_designs (
	study_id  INTEGER PRIMARY KEY REFERENCES studies(id) ON DELETE CASCADE,
	opened_at TEXT NOT NULL,
	design    TEXT NOT NULL
);
