-- Batches of a scoring job sent to an offline engine (docs/scoring.md#openai-batch-api).
-- A row is written BEFORE its file is uploaded and updated as each step
-- comes back (file id, then batch id), so a process killed at any step
-- leaves enough for the next start to find the batch and collect it rather
-- than send the prompts twice. The prompts of each batch are listed, so a
-- prompt sits in at most one open batch and one without a reply in the
-- output can be marked failed (re-runnable) when the batch is collected.

CREATE TABLE scoring_batches (
	id            INTEGER PRIMARY KEY,
	job_id        INTEGER NOT NULL REFERENCES scoring_jobs (id) ON DELETE CASCADE,
	-- The base URL the batch went to (never a key).
	base_url      TEXT NOT NULL,
	state         TEXT NOT NULL CHECK (state IN ('preparing', 'uploaded', 'submitted', 'collected')),
	input_file_id TEXT NOT NULL DEFAULT '',
	batch_id      TEXT NOT NULL DEFAULT '',
	-- The Batches API's status: validating, in_progress, completed, expired…
	remote_status TEXT NOT NULL DEFAULT '',
	prompts       INTEGER NOT NULL,
	answered      INTEGER NOT NULL DEFAULT 0,
	failed        INTEGER NOT NULL DEFAULT 0,
	message       TEXT NOT NULL DEFAULT '',
	created_at    TEXT NOT NULL,
	updated_at    TEXT NOT NULL
);

CREATE INDEX scoring_batches_job ON scoring_batches (job_id, id);

CREATE TABLE scoring_batch_prompts (
	batch INTEGER NOT NULL REFERENCES scoring_batches (id) ON DELETE CASCADE,
	seq   INTEGER NOT NULL,
	PRIMARY KEY (batch, seq)
) WITHOUT ROWID;
