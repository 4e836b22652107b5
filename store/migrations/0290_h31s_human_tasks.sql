-- The humans' own questions put to models (docs/scoring.md#the-humans-own-questions):
-- four new tasks, and each prompt's answer of those tasks kept as a
-- distribution over the options (likert: the scale's points), in its own
-- column as a JSON array, so the distributions can be read without
-- decoding every answer. SQLite cannot change a CHECK constraint in place,
-- so, as in 0130, every scoring table is copied into a new one that points
-- at the new jobs table; the old tables are dropped leaves first (nothing
-- cascades) and the new ones renamed (which rewrites the references).

CREATE TABLE scoring_jobs_new (
	id          INTEGER PRIMARY KEY,
	study_id    INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	task        TEXT NOT NULL CHECK (task IN ('truefalse', 'multiplechoice', 'generation', 'likert', 'expert', 'context', 'explanation-rating')),
	scorer      TEXT NOT NULL,
	config      TEXT NOT NULL DEFAULT '{}',
	strategy    TEXT NOT NULL DEFAULT '',
	seed        INTEGER NOT NULL DEFAULT 1,
	compare_study_id INTEGER REFERENCES studies (id) ON DELETE SET NULL,
	status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'partial', 'failed', 'cancelled')),
	error       TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL,
	started_at  TEXT NOT NULL DEFAULT '',
	finished_at TEXT NOT NULL DEFAULT '',
	lease_owner TEXT NOT NULL DEFAULT '',
	lease_until INTEGER NOT NULL DEFAULT 0
);

INSERT INTO scoring_jobs_new (id, study_id, task, scorer, config, strategy, seed, compare_study_id, status, error, created_at, started_at, finished_at, lease_owner, lease_until)
SELECT id, study_id, task, scorer, config, strategy, seed, compare_study_id, status, error, created_at, started_at, finished_at, lease_owner, lease_until
FROM scoring_jobs;

CREATE TABLE scoring_prompts_new (
	job_id      INTEGER NOT NULL REFERENCES scoring_jobs_new (id) ON DELETE CASCADE,
	seq         INTEGER NOT NULL,
	key         TEXT NOT NULL,
	item_key    TEXT NOT NULL,
	condition   TEXT NOT NULL DEFAULT '',
	option_order TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL,
	answer      TEXT,
	error       TEXT NOT NULL DEFAULT '',
	attempts    INTEGER NOT NULL DEFAULT 0,
	answered_at TEXT NOT NULL DEFAULT '',
	-- A human-task answer's distribution over the options in their
	-- canonical order, as a JSON array (the answer's "dist"); NULL for the
	-- other tasks and unanswered prompts.
	distribution TEXT,
	PRIMARY KEY (job_id, seq),
	UNIQUE (job_id, key)
);

INSERT INTO scoring_prompts_new (job_id, seq, key, item_key, condition, option_order, text, answer, error, attempts, answered_at)
SELECT job_id, seq, key, item_key, condition, option_order, text, answer, error, attempts, answered_at
FROM scoring_prompts;

CREATE TABLE scoring_batches_new (
	id            INTEGER PRIMARY KEY,
	job_id        INTEGER NOT NULL REFERENCES scoring_jobs_new (id) ON DELETE CASCADE,
	base_url      TEXT NOT NULL,
	state         TEXT NOT NULL CHECK (state IN ('preparing', 'uploaded', 'submitted', 'collected')),
	input_file_id TEXT NOT NULL DEFAULT '',
	batch_id      TEXT NOT NULL DEFAULT '',
	remote_status TEXT NOT NULL DEFAULT '',
	prompts       INTEGER NOT NULL,
	answered      INTEGER NOT NULL DEFAULT 0,
	failed        INTEGER NOT NULL DEFAULT 0,
	message       TEXT NOT NULL DEFAULT '',
	created_at    TEXT NOT NULL,
	updated_at    TEXT NOT NULL
);

INSERT INTO scoring_batches_new (id, job_id, base_url, state, input_file_id, batch_id, remote_status, prompts, answered, failed, message, created_at, updated_at)
SELECT id, job_id, base_url, state, input_file_id, batch_id, remote_status, prompts, answered, failed, message, created_at, updated_at
FROM scoring_batches;

CREATE TABLE scoring_batch_prompts_new (
	batch INTEGER NOT NULL REFERENCES scoring_batches_new (id) ON DELETE CASCADE,
	seq   INTEGER NOT NULL,
	PRIMARY KEY (batch, seq)
) WITHOUT ROWID;

INSERT INTO scoring_batch_prompts_new (batch, seq) SELECT batch, seq FROM scoring_batch_prompts;

CREATE TABLE scoring_job_groups_new (
	job_id   INTEGER PRIMARY KEY REFERENCES scoring_jobs_new (id) ON DELETE CASCADE,
	group_id INTEGER NOT NULL
);

INSERT INTO scoring_job_groups_new (job_id, group_id) SELECT job_id, group_id FROM scoring_job_groups;

DROP TABLE scoring_job_groups;
DROP TABLE scoring_batch_prompts;
DROP TABLE scoring_batches;
DROP TABLE scoring_prompts;
DROP TABLE scoring_jobs;
ALTER TABLE scoring_jobs_new RENAME TO scoring_jobs;
ALTER TABLE scoring_prompts_new RENAME TO scoring_prompts;
ALTER TABLE scoring_batches_new RENAME TO scoring_batches;
ALTER TABLE scoring_batch_prompts_new RENAME TO scoring_batch_prompts;
ALTER TABLE scoring_job_groups_new RENAME TO scoring_job_groups;

CREATE INDEX scoring_jobs_study ON scoring_jobs (study_id, id);
CREATE INDEX scoring_jobs_status ON scoring_jobs (status);
CREATE INDEX scoring_batches_job ON scoring_batches (job_id, id);
CREATE INDEX scoring_job_groups_group ON scoring_job_groups (group_id);
