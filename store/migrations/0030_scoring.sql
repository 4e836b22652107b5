-- Model-scoring jobs (docs/scoring.md#jobs): one model endpoint (or built-in
-- scorer) × one study's items or passages × one task. Every prompt of a job
-- is stored when the job is created, and its answer (or error) as it comes
-- back, so a job resumes after a restart without asking a prompt twice.

CREATE TABLE scoring_jobs (
	id          INTEGER PRIMARY KEY,
	study_id    INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	task        TEXT NOT NULL CHECK (task IN ('truefalse', 'multiplechoice', 'generation')),
	-- 'model' for an OpenAI-compatible endpoint, else a built-in scorer.
	scorer      TEXT NOT NULL,
	-- The endpoint configuration as JSON: base URLs, model, the NAME of the
	-- API-key variable, mode, concurrency… never the key itself.
	config      TEXT NOT NULL DEFAULT '{}',
	strategy    TEXT NOT NULL DEFAULT '',
	seed        INTEGER NOT NULL DEFAULT 1,
	-- The crowd study whose ratings give the human toplines to compare with.
	compare_study_id INTEGER REFERENCES studies (id) ON DELETE SET NULL,
	status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
	error       TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL,
	started_at  TEXT NOT NULL DEFAULT '',
	finished_at TEXT NOT NULL DEFAULT '',
	-- The runner working on the job holds a lease (unix ms) it renews, so a
	-- CLI run and a server never ask the same job's prompts at once; a
	-- crashed runner's lease simply runs out.
	lease_owner TEXT NOT NULL DEFAULT '',
	lease_until INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX scoring_jobs_study ON scoring_jobs (study_id, id);
CREATE INDEX scoring_jobs_status ON scoring_jobs (status);

CREATE TABLE scoring_prompts (
	job_id      INTEGER NOT NULL REFERENCES scoring_jobs (id) ON DELETE CASCADE,
	seq         INTEGER NOT NULL,
	key         TEXT NOT NULL,
	item_key    TEXT NOT NULL,
	condition   TEXT NOT NULL DEFAULT '',
	option_order TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL,
	-- JSON of the answer; NULL until the prompt has been answered.
	answer      TEXT,
	error       TEXT NOT NULL DEFAULT '',
	attempts    INTEGER NOT NULL DEFAULT 0,
	answered_at TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (job_id, seq),
	UNIQUE (job_id, key)
);

-- Prompt templates per study; a study without a row uses the defaults.
CREATE TABLE scoring_templates (
	study_id   INTEGER PRIMARY KEY REFERENCES studies (id) ON DELETE CASCADE,
	templates  TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
