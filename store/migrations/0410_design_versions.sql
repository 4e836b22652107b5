-- Design versions (docs/studies.md#design-versions): a study that has
-- opened may start a new version of its design with changed frozen
-- settings. Each version is kept (its number, language, settings and the
-- design file as `pragmalab study design` prints it); version 1 is the
-- design the study opened with. A batch belongs to the version it was
-- built for, so a rating carries its version through its participant's
-- batch; the batches of an earlier version are retired: no newcomer is
-- given one.
ALTER TABLE batches ADD COLUMN design_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE batches ADD COLUMN retired INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1));

DROP INDEX batches_slots;
CREATE INDEX batches_slots ON batches (study_id, retired, slots_taken, number);

CREATE TABLE study_design_versions (
	study_id   INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	version    INTEGER NOT NULL CHECK (version >= 1),
	lang       TEXT NOT NULL,
	settings   TEXT NOT NULL,
	design     TEXT NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (study_id, version)
);

-- Version 1 of every study that kept its opening design: that design.
INSERT INTO study_design_versions (study_id, version, lang, settings, design, created_at)
SELECT o.study_id, 1, COALESCE(json_extract(o.design, '$.lang'), s.lang),
	COALESCE(json_extract(o.design, '$.settings'), s.settings), o.design, o.opened_at
FROM study_opening_designs o JOIN studies s ON s.id = o.study_id
WHERE json_valid(o.design);
