-- Core schema: admins, sessions keys, studies, implicature items, batches,
-- expert annotators, assignments and their judgements.

CREATE TABLE admins (
	id            INTEGER PRIMARY KEY,
	username      TEXT NOT NULL UNIQUE,
	password_hash TEXT NOT NULL,
	created_at    TEXT NOT NULL
);

-- Small server-wide values such as the session-cookie keys.
CREATE TABLE kv (
	key   TEXT PRIMARY KEY,
	value BLOB NOT NULL
);

CREATE TABLE studies (
	id         INTEGER PRIMARY KEY,
	kind       TEXT NOT NULL CHECK (kind IN ('expert', 'crowd', 'context', 'explain')),
	name       TEXT NOT NULL,
	lang       TEXT NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'it')),
	settings   TEXT NOT NULL DEFAULT '{}',
	seed       INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL
);

CREATE TABLE items (
	id            INTEGER PRIMARY KEY,
	study_id      INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	key           TEXT NOT NULL,
	type          TEXT NOT NULL CHECK (type IN ('scalar', 'discourse', 'synthetic', 'natural')),
	context       TEXT NOT NULL DEFAULT '',
	utterance     TEXT NOT NULL,
	implicature   TEXT NOT NULL,
	cancellation  TEXT NOT NULL,
	negation      TEXT NOT NULL DEFAULT '',
	strengthening TEXT NOT NULL DEFAULT '',
	neutral       TEXT NOT NULL DEFAULT '',
	-- '' for a data item; 'high' or 'low' for an attention check and the
	-- answer it expects ('low': an expert should reject it).
	check_kind    TEXT NOT NULL DEFAULT '' CHECK (check_kind IN ('', 'high', 'low')),
	status        TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'dropped')),
	version       INTEGER NOT NULL DEFAULT 1,
	UNIQUE (study_id, key)
);

-- Earlier versions of an item, kept when the review accepts a replacement.
CREATE TABLE item_revisions (
	item_id      INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
	version      INTEGER NOT NULL,
	implicature  TEXT NOT NULL,
	cancellation TEXT NOT NULL,
	note         TEXT NOT NULL DEFAULT '',
	created_at   TEXT NOT NULL,
	PRIMARY KEY (item_id, version)
);

CREATE TABLE batches (
	id       INTEGER PRIMARY KEY,
	study_id INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	number   INTEGER NOT NULL,
	UNIQUE (study_id, number)
);

CREATE TABLE batch_items (
	batch_id  INTEGER NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
	position  INTEGER NOT NULL,
	item_id   INTEGER NOT NULL REFERENCES items (id),
	condition TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (batch_id, position)
);

CREATE TABLE annotators (
	id         INTEGER PRIMARY KEY,
	study_id   INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	name       TEXT NOT NULL,
	token      TEXT NOT NULL UNIQUE,
	created_at TEXT NOT NULL,
	UNIQUE (study_id, name)
);

CREATE TABLE assignments (
	id           INTEGER PRIMARY KEY,
	annotator_id INTEGER NOT NULL REFERENCES annotators (id) ON DELETE CASCADE,
	batch_id     INTEGER NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
	round        INTEGER NOT NULL CHECK (round IN (1, 2)),
	UNIQUE (annotator_id, batch_id)
);

-- One row per answered screen; a resubmit updates it (idempotent).
CREATE TABLE judgements (
	assignment_id        INTEGER NOT NULL REFERENCES assignments (id) ON DELETE CASCADE,
	position             INTEGER NOT NULL,
	item_id              INTEGER NOT NULL REFERENCES items (id),
	item_version         INTEGER NOT NULL,
	plausible            TEXT NOT NULL CHECK (plausible IN ('yes', 'no')),
	cancellation_correct TEXT NOT NULL DEFAULT '' CHECK (cancellation_correct IN ('', 'yes', 'no')),
	alt_implicature      TEXT NOT NULL DEFAULT '',
	alt_cancellation     TEXT NOT NULL DEFAULT '',
	answered_at          TEXT NOT NULL,
	PRIMARY KEY (assignment_id, position)
);

CREATE INDEX judgements_item ON judgements (item_id);
