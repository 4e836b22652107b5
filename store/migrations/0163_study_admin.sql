-- A lab's everyday admin: archived studies, when a study's responses were
-- last exported, full item revisions, the item version of every crowd
-- rating, revoked invitation links and the review's decisions.

-- '' while the study is in use; the time it was archived otherwise.
ALTER TABLE studies ADD COLUMN archived_at TEXT NOT NULL DEFAULT '';
-- The last time a file of the study's responses was downloaded or written
-- ('' never): deleting a study with answers newer than this asks twice.
ALTER TABLE studies ADD COLUMN exported_at TEXT NOT NULL DEFAULT '';

-- An item corrected in place keeps every text field of the old version.
-- NULL in a revision written before this migration: only the implicature
-- and the cancellation were kept then (the review changed nothing else).
ALTER TABLE item_revisions ADD COLUMN type TEXT;
ALTER TABLE item_revisions ADD COLUMN context TEXT;
ALTER TABLE item_revisions ADD COLUMN utterance TEXT;
ALTER TABLE item_revisions ADD COLUMN negation TEXT;
ALTER TABLE item_revisions ADD COLUMN strengthening TEXT;
ALTER TABLE item_revisions ADD COLUMN neutral TEXT;

-- The version of the item a rating was given on (judgements already have it).
ALTER TABLE crowd_ratings ADD COLUMN item_version INTEGER NOT NULL DEFAULT 1;

-- '' while the invitation link works; a revoked link's token is replaced.
ALTER TABLE annotators ADD COLUMN revoked_at TEXT NOT NULL DEFAULT '';

-- The review's decision on a flagged item ('' not decided yet), when it was
-- taken, and the item's version before it, so it can be undone.
ALTER TABLE items ADD COLUMN review_decision TEXT NOT NULL DEFAULT ''
	CHECK (review_decision IN ('', 'accepted', 'own', 'kept', 'dropped'));
ALTER TABLE items ADD COLUMN reviewed_at TEXT NOT NULL DEFAULT '';
ALTER TABLE items ADD COLUMN review_version INTEGER NOT NULL DEFAULT 0;

-- An uploaded items file waiting for the researcher to confirm its changes.
CREATE TABLE item_reimports (
	id         INTEGER PRIMARY KEY,
	study_id   INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	filename   TEXT NOT NULL,
	data       BLOB NOT NULL,
	created_at TEXT NOT NULL
);
